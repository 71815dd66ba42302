package planstats

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/sqlengine/lookup"
	"petrel/storage"
)

// Table is a Petrel table as the statistics and estimates read it; the
// backend's table (sqlengine.Table) implements it. Its indexes
// (GetIndexes) are Index values.
type Table interface {
	lookup.KeyTable
	// Database is the table's database name.
	Database() string
	// Storage is the definition the table was resolved with.
	Storage() *storage.Table
	// Latest is the table's current definition (after DDL that kept
	// its id).
	Latest() (*storage.Table, error)
	// ApproxRows is storage's live row counter of the table.
	ApproxRows() uint64
	DataLength(ctx *sql.Context) (uint64, error)
	// Statistics is the engine's statistics provider; nil before it is
	// made.
	Statistics() *Provider
}

// Index is one of a Table's indexes.
type Index interface {
	lookup.KeyIndex
	// Owner is the table the index belongs to.
	Owner() Table
}

// Unwrap finds Petrel's table under GMS's wrappers.
func Unwrap(t sql.Table) (Table, bool) {
	for t != nil {
		switch x := t.(type) {
		case Table:
			return x, true
		case sql.TableWrapper:
			t = x.Underlying()
		default:
			return nil, false
		}
	}
	return nil, false
}

// indexOf is a sql.Index as Petrel's; false for any other.
func indexOf(ix sql.Index) (Index, bool) {
	p, ok := ix.(Index)
	return p, ok
}

// indexes are tb's indexes.
func indexes(ctx *sql.Context, tb Table) []Index {
	all, err := tb.GetIndexes(ctx)
	if err != nil {
		return nil
	}
	out := make([]Index, 0, len(all))
	for _, sx := range all {
		if ix, ok := indexOf(sx); ok {
			out = append(out, ix)
		}
	}
	return out
}

// filteredTable is lookup.FilteredTable's table when it is Petrel's.
func filteredTable(n sql.Node) (string, Table) {
	name, t := lookup.FilteredTable(n)
	tb, _ := t.(Table)
	if tb == nil {
		return "", nil
	}
	return name, tb
}

// PrefixEstimate is the rows one key of ix's first k columns is expected
// to match: 1 for a whole unique key, else the rows per distinct prefix at
// the last analysis, else (never analysed) a tenth of the rows per column.
func PrefixEstimate(tb Table, ix Index, k int, rows float64) float64 {
	if ix.IsUnique() && k == len(ix.KeyOrds()) {
		return 1
	}
	if sp := tb.Statistics(); sp != nil {
		if n, distinct, ok := sp.PrefixCounts(tb.Database(), tb.Name(), ix.ID(), k); ok && distinct > 0 {
			return math.Max(1, float64(n)/float64(distinct))
		}
	}
	return math.Max(1, rows/math.Pow(10, float64(k)))
}
