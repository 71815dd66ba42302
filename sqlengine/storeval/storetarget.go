package storeval

import (
	"context"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"petrel/storage/keys"
)

// Lengths in characters for single-byte character sets. GMS's string
// conversion counts a latin1 (or other single-byte) CHAR/VARCHAR value's
// length in bytes of its UTF-8 form, so a latin1 VARCHAR(5) refused
// 'Kälmx'. storeValue has already checked the length in characters, so
// GMS's own conversion on the write path is given, for those columns, a
// utf8mb4 type of the same length (keys.CharLengthType, which storage's
// encoder uses too); the value is still checked against the column's
// real character set by storage (keys.CheckRow, 1366).

// widenSingleByte is keys.CharLengthType: the type and whether it
// changed (types are not all comparable: ENUM's holds maps).
func widenSingleByte(t sql.Type) (sql.Type, bool) { return keys.CharLengthType(t) }

// widenSchema is sch with widenSingleByte's types and DECIMAL columns'
// storedDecimal, and whether any changed.
func widenSchema(sch sql.Schema) (sql.Schema, bool) {
	var out sql.Schema
	for i, c := range sch {
		w, ok := widenSingleByte(c.Type)
		if dt, dec := c.Type.(types.DecimalType_); dec {
			w, ok = storedDecimal{dt}, true
		}
		if ok {
			if out == nil {
				out = sch.Copy()
			}
			out[i].Type = w
		}
	}
	return out, out != nil
}

// storedDecimal is a DECIMAL column's type as GMS's insert iterator
// converts each value to it: a value the storing rules left at the
// column's scale and within its range (keys.DecimalFits) is itself,
// without GMS's conversion, which prints and parses a column value
// whose exponent is not its scale (always, for a scale above 0: it
// compares the exponent with the scale, not its negation) and bounds
// it through big.Int: 17% of a generated 6-way INSERT ... SELECT's
// CPU. Other values take GMS's conversion.
type storedDecimal struct{ types.DecimalType_ }

func (t storedDecimal) Convert(ctx context.Context, v any) (any, sql.ConvertInRange, error) {
	if d, ok := v.(decimal.Decimal); ok && keys.DecimalFits(t.DecimalType_, d) {
		return d, sql.InRange, nil
	}
	return t.DecimalType_.Convert(ctx, v)
}

// widenGetField is gf with widenSingleByte's type (an UPDATE's SET
// target, whose type GMS's SetField converts the value to).
func widenGetField(gf *expression.GetField) *expression.GetField {
	w, ok := widenSingleByte(gf.Type())
	if !ok {
		return gf
	}
	n := expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), w, gf.Database(), gf.Table(), gf.Name(), gf.IsNullable())
	if id, ok := n.WithId(gf.Id()).(*expression.GetField); ok {
		return id
	}
	return n
}

// insertTarget stands for an INSERT's destination table with a widened
// schema (GMS's insert iterator converts each value to its schema); rows
// are still written by the table's own editors.
type insertTarget struct {
	child  sql.Node
	table  sql.InsertableTable
	schema sql.Schema
}

var (
	_ sql.Node             = (*insertTarget)(nil)
	_ sql.InsertableTable  = (*insertTarget)(nil)
	_ sql.ReplaceableTable = (*insertTarget)(nil)
	_ sql.UpdatableTable   = (*insertTarget)(nil)
	_ sql.TableWrapper     = (*insertTarget)(nil)
)

func (x *insertTarget) Resolved() bool       { return x.child.Resolved() }
func (x *insertTarget) String() string       { return x.child.String() }
func (x *insertTarget) Schema() sql.Schema   { return x.schema }
func (x *insertTarget) Children() []sql.Node { return []sql.Node{x.child} }
func (x *insertTarget) IsReadOnly() bool     { return false }
func (x *insertTarget) Name() string         { return x.table.Name() }
func (x *insertTarget) Underlying() sql.Table {
	return x.table
}
func (x *insertTarget) Collation() sql.CollationID { return x.table.Collation() }

func (x *insertTarget) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("sqlengine: insert target takes 1 child, got %d", len(children))
	}
	c := *x
	c.child = children[0]
	return &c, nil
}

func (x *insertTarget) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	return x.table.Partitions(ctx)
}

func (x *insertTarget) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	return x.table.PartitionRows(ctx, p)
}

func (x *insertTarget) Inserter(ctx *sql.Context) sql.RowInserter { return x.table.Inserter(ctx) }

func (x *insertTarget) Replacer(ctx *sql.Context) sql.RowReplacer {
	return x.table.(sql.ReplaceableTable).Replacer(ctx)
}

func (x *insertTarget) Updater(ctx *sql.Context) sql.RowUpdater {
	return x.table.(sql.UpdatableTable).Updater(ctx)
}
