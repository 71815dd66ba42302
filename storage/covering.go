package storage

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage/keys"
)

// Covering secondary-index scans. A secondary entry's key holds the index
// columns and its value the primary key: a scan that needs only those
// columns builds its rows from the entries and skips the primary-row read
// (one Pebble Get per entry) the plain scan does. Only consistent reads
// are covered: their entries and rows come from the same read view (or,
// for rows the transaction wrote, the same overlay), so an entry stands
// for exactly the row version the plain scan would read. Locking and
// current reads re-read rows under their lock and keep the plain path.

// coverCol is one column a covering scan decodes, from the entry's key
// (index columns) or value (primary key).
type coverCol struct {
	ord  int
	typ  sql.Type
	want bool
}

type coverPlan struct {
	width   int        // columns in the table's rows
	keyCols []coverCol // index columns, up to the last wanted one
	pkCols  []coverCol // primary-key columns, up to the last wanted one
	prefix  int        // bytes of the index's key prefix
}

// Cover makes r, a secondary-index scan of a consistent read, build its
// rows from the index entries when every column in need (schema
// ordinals) is an index column (not a prefix) or a primary-key column
// and every column before it in the entry has a decodable key encoding
// (keys.KeyDecodable). The rows it then returns hold the needed columns;
// the others are nil. It reports whether the scan is covering; call it
// before the first Next.
func (r *RowIter) Cover(need []int) bool {
	if r.primary || r.started || !r.t.consistent() {
		return false
	}
	var ix *Index
	for _, x := range r.tb.Indexes {
		if x.Def.ID == r.ixID {
			ix = x
		}
	}
	if ix == nil {
		return false
	}
	p := &coverPlan{width: len(r.tb.Schema), prefix: indexPrefixLen}
	for _, o := range need {
		if o < 0 || o >= p.width {
			return false
		}
		found := false
		for i, io := range ix.Ords {
			if io == o && (i >= len(ix.Def.Prefix) || ix.Def.Prefix[i] == 0) {
				if !extendTo(&p.keyCols, ix.Ords, ix.Types, i) {
					return false
				}
				p.keyCols[i].want, found = true, true
				break
			}
		}
		if found {
			continue
		}
		if r.tb.Hidden {
			return false
		}
		for i, po := range r.tb.Def.PK {
			if po == o {
				if !extendTo(&p.pkCols, r.tb.Def.PK, r.tb.PKTypes, i) {
					return false
				}
				p.pkCols[i].want, found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	r.cover = p
	return true
}

// extendTo grows cols to hold entry columns [0, i], each decodable.
func extendTo(cols *[]coverCol, ords []int, typs []sql.Type, i int) bool {
	for j := len(*cols); j <= i; j++ {
		if !keys.KeyDecodable(typs[j]) {
			return false
		}
		*cols = append(*cols, coverCol{ord: ords[j], typ: typs[j]})
	}
	return true
}

// row builds a row from one index entry.
func (p *coverPlan) row(tb *Table, key, val []byte) (sql.Row, error) {
	row := make(sql.Row, p.width)
	if len(key) < p.prefix || !decodeCols(row, p.keyCols, key[p.prefix:]) || !decodeCols(row, p.pkCols, val) {
		return nil, fmt.Errorf("storage: index entry of %s: %w", tb.Def.Name, keys.ErrCorrupt)
	}
	return row, nil
}

func decodeCols(row sql.Row, cols []coverCol, b []byte) bool {
	for _, c := range cols {
		v, n, ok := keys.DecodeKeyValue(b, c.typ)
		if !ok {
			return false
		}
		if c.want {
			row[c.ord] = v
		}
		b = b[n:]
	}
	return true
}

// Project makes r, a primary-index scan, decode only the columns in need
// (schema ordinals) from each row; the others are nil. It reports whether
// it applies (a primary scan not started yet); call it before the first
// Next.
func (r *RowIter) Project(need []int) bool {
	if !r.primary || r.started {
		return false
	}
	want := make([]bool, len(r.tb.Schema))
	for _, o := range need {
		if o < 0 || o >= len(want) {
			return false
		}
		want[o] = true
	}
	r.want = want
	return true
}
