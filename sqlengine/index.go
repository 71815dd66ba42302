package sqlengine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"petrel/sqlengine/collate"
	"petrel/storage"
	"petrel/storage/keys"
)

// Index exposes a primary or secondary index to the GMS planner.
type Index struct {
	t     *Table
	id    uint8 // 0 = PRIMARY
	name  string
	ords  []int
	uniq  bool
	cmt   string
	plens []uint16
}

var (
	_ sql.Index         = (*Index)(nil)
	_ sql.OrderedIndex  = (*Index)(nil)
	_ sql.ExtendedIndex = (*Index)(nil)
)

func (ix *Index) ID() string { return ix.name }

// KeyOrds are the ordinals of the table's columns the index keys, in key
// order (the lookup rules read them).
func (ix *Index) KeyOrds() []int { return ix.ords }

// Prefixed reports a column indexed by a prefix of its value.
func (ix *Index) Prefixed() bool { return len(ix.plens) > 0 }

// IsPrimary reports the primary key.
func (ix *Index) IsPrimary() bool   { return ix.id == 0 }
func (ix *Index) Database() string  { return ix.t.db.name }
func (ix *Index) Table() string     { return ix.t.t.Def.Name }
func (ix *Index) IsUnique() bool    { return ix.uniq }
func (ix *Index) IsSpatial() bool   { return false }
func (ix *Index) IsFullText() bool  { return false }
func (ix *Index) IsVector() bool    { return false }
func (ix *Index) Comment() string   { return ix.cmt }
func (ix *Index) IndexType() string { return "BTREE" }
func (ix *Index) IsGenerated() bool { return false }
func (ix *Index) PrefixLengths() []uint16 {
	return ix.plens
}
func (ix *Index) CanSupport(*sql.Context, ...sql.Range) bool { return true }
func (ix *Index) CanSupportOrderBy(sql.Expression) bool      { return false }
func (ix *Index) Order() sql.IndexOrder                      { return sql.IndexOrderAsc }
func (ix *Index) Reversible() bool                           { return true }

func (ix *Index) colExpr(o int) string {
	return ix.t.t.Def.Name + "." + ix.t.t.Schema[o].Name
}

// Expressions implements sql.Index.
func (ix *Index) Expressions() []string {
	out := make([]string, len(ix.ords))
	for i, o := range ix.ords {
		out[i] = ix.colExpr(o)
	}
	return out
}

// ColumnExpressionTypes implements sql.Index.
func (ix *Index) ColumnExpressionTypes() []sql.ColumnExpressionType {
	out := make([]sql.ColumnExpressionType, len(ix.ords))
	for i, o := range ix.ords {
		out[i] = sql.ColumnExpressionType{Expression: ix.colExpr(o), Type: ix.t.t.Schema[o].Type}
	}
	return out
}

// extendedOrds are the index columns followed by the primary-key columns
// not already in it: the full key order of a secondary index.
func (ix *Index) extendedOrds() []int {
	out := append([]int(nil), ix.ords...)
	if ix.id == 0 {
		return out
	}
	for _, p := range ix.t.t.Def.PK {
		found := false
		for _, o := range ix.ords {
			found = found || o == p
		}
		if !found {
			out = append(out, p)
		}
	}
	return out
}

// keyedCols is how many of the n extended columns (extendedOrds) a key
// of ix spells in that order. A secondary entry's key is the index's
// columns, then every primary-key column in key order, also those the
// index holds already; extendedOrds lists those once. So the extended
// list and the key agree up to the first primary-key column the index
// already holds: table PRIMARY KEY (a, b, c), INDEX (x, b) has keys x b a
// b c for the extended columns x b a c, and a range may only bound x, b
// and a by key (c is left to the re-check).
func (ix *Index) keyedCols(n int) int {
	if ix.id == 0 {
		return n
	}
	k := len(ix.ords)
	for _, p := range ix.t.t.Def.PK {
		if slices.Contains(ix.ords, p) {
			break
		}
		k++
	}
	return min(k, n)
}

// ExtendedExpressions implements sql.ExtendedIndex.
func (ix *Index) ExtendedExpressions() []string {
	var out []string
	for _, o := range ix.extendedOrds() {
		out = append(out, ix.colExpr(o))
	}
	return out
}

// ExtendedColumnExpressionTypes implements sql.ExtendedIndex.
func (ix *Index) ExtendedColumnExpressionTypes() []sql.ColumnExpressionType {
	var out []sql.ColumnExpressionType
	for _, o := range ix.extendedOrds() {
		out = append(out, sql.ColumnExpressionType{Expression: ix.colExpr(o), Type: ix.t.t.Schema[o].Type})
	}
	return out
}

// GetIndexes implements sql.IndexAddressable.
func (t *Table) GetIndexes(*sql.Context) ([]sql.Index, error) {
	var out []sql.Index
	if !t.t.Hidden {
		out = append(out, &Index{t: t, id: 0, name: "PRIMARY", ords: t.t.Def.PK, uniq: true})
	}
	for _, ix := range t.t.Indexes {
		out = append(out, &Index{t: t, id: ix.Def.ID, name: ix.Def.Name, ords: ix.Ords, uniq: ix.Def.Unique, cmt: ix.Def.Comment, plens: ix.Def.Prefix})
	}
	return out, nil
}

// PreciseMatch implements sql.IndexAddressable: rows returned from a
// lookup are exactly those in range (they are re-checked against it).
func (t *Table) PreciseMatch() bool { return true }

// IndexedAccess implements sql.IndexAddressable.
func (t *Table) IndexedAccess(_ *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	return &indexedTable{Table: t, lookup: lookup}
}

type indexedTable struct {
	*Table
	lookup sql.IndexLookup
}

// LookupPartitions implements sql.IndexedTable: one partition per range.
func (it *indexedTable) LookupPartitions(ctx *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	ix, ok := lookup.Index.(*Index)
	if !ok {
		return nil, fmt.Errorf("sqlengine: foreign index %T", lookup.Index)
	}
	if lookup.IsEmptyRange {
		return sql.PartitionsToPartitionIter(), nil
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok {
		return nil, fmt.Errorf("sqlengine: unsupported range collection %T", lookup.Ranges)
	}
	var parts []sql.Partition
	for _, r := range ranges {
		lo, hi, eqCols, empty := rangeBounds(ctx, it.Table.t, ix, r)
		if empty {
			continue
		}
		point := ix.id == 0 && eqCols == len(ix.ords)
		parts = append(parts, &lookupPartition{scanPartition: scanPartition{lo: lo, hi: hi, rng: r, point: point},
			ix: ix, reverse: lookup.IsReverse, exact: eqCols == len(r)})
	}
	return sql.PartitionsToPartitionIter(parts...), nil
}

type lookupPartition struct {
	scanPartition
	ix      *Index
	reverse bool
	// exact: every column of the range is an equality rangeBounds keyed
	// without loss, so the span holds the range's rows and no others.
	exact bool
}

// PartitionRows implements sql.Table for lookup partitions.
func (it *indexedTable) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	lp, ok := p.(*lookupPartition)
	if !ok {
		return it.Table.PartitionRows(ctx, p)
	}
	if lp.point {
		// Equality on every primary-key column, each value converted
		// to the column's type without loss (rangeBounds): the one row
		// stored under that key is the range's, and re-checking it
		// against a filter built for it (as a lookup join would for
		// every outer row) changes nothing.
		return it.Table.scan(ctx, lp.ix.id, &lp.scanPartition, lp.reverse, nil)
	}
	if lp.exact {
		// Equalities on a key prefix, each keyed without loss: the span
		// is the range, so the rows need no re-check. A lookup join into
		// a non-unique prefix (TPC-H Q16's partsupp by ps_partkey, once
		// per part) built and evaluated a range filter for every outer
		// row.
		ri, err := it.Table.scan(ctx, lp.ix.id, &lp.scanPartition, lp.reverse, nil)
		it.Table.narrow(ri)
		it.Table.prefilter(ctx, ri)
		return ri, err
	}
	var exprs []sql.Expression
	sch := it.Table.t.Schema
	for _, o := range lp.ix.extendedOrds()[:len(lp.rng)] {
		c := sch[o]
		exprs = append(exprs, expression.NewGetFieldWithTable(o, 0, c.Type, it.Table.db.name, it.Table.t.Def.Name, c.Name, c.Nullable))
	}
	filter, err := expression.NewRangeFilterExpr(exprs, []sql.MySQLRange{lp.rng})
	if err != nil {
		return nil, err
	}
	if it.Table.t.Def.KeyFormat >= storage.KeyFormatPadSpace {
		// The keys ignore trailing spaces under PAD SPACE collations;
		// so does the re-check.
		if filter, _, err = transform.Expr(filter, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return collate.PadComparison(ctx, e)
		}); err != nil {
			return nil, err
		}
	}
	ri, err := it.Table.scan(ctx, lp.ix.id, &lp.scanPartition, lp.reverse, filter)
	it.Table.narrow(ri)
	it.Table.prefilter(ctx, ri)
	return ri, err
}

// rangeBounds turns one GMS range into a [lo, hi) key span of ix. The span
// may be wider than the range (lossy conversions, prefix columns): rows are
// re-checked against the range, so wider is safe, narrower never happens.
func rangeBounds(ctx *sql.Context, t *storage.Table, ix *Index, r sql.MySQLRange) (lo, hi []byte, eqCols int, empty bool) {
	prefix := t.IndexKeyPrefix(ix.id)
	ords := ix.extendedOrds()
	ords = ords[:ix.keyedCols(len(ords))]
	cur := prefix
	lo, hi = prefix, keys.PrefixSuccessor(prefix)
	for i, ce := range r {
		if i >= len(ords) {
			break
		}
		if i < len(ix.plens) && ix.plens[i] > 0 {
			return
		}
		typ := t.Schema[ords[i]].Type
		lk, lkOK := exactKey(ctx, typ, ce.Typ, ce.LowerBound)
		uk, ukOK := exactKey(ctx, typ, ce.Typ, ce.UpperBound)
		// TIMESTAMP keys are stored in UTC (tszone.go); the equality
		// test below compares the range's own keys, in the session's.
		lk, uk = tsKeyToStore(ctx, typ, lk), tsKeyToStore(ctx, typ, uk)
		_, lNull := ce.LowerBound.(sql.BelowNull)
		_, uNull := ce.UpperBound.(sql.AboveNull)
		// Equality on this column: extend the prefix and go on.
		if lb, ok := ce.LowerBound.(sql.Below); ok && lkOK && ukOK {
			if _, ok := ce.UpperBound.(sql.Above); ok && keyEqual(ctx, typ, lb.Key, sql.GetMySQLRangeCutKey(ce.UpperBound)) {
				enc, err := t.AppendKey(append([]byte(nil), cur...), typ, lk)
				if err != nil {
					return
				}
				cur = enc
				lo, hi = cur, keys.PrefixSuccessor(cur)
				eqCols++
				continue
			}
		}
		if lNull && uNull { // IS NULL
			cur = append(append([]byte(nil), cur...), 0x00)
			lo, hi = cur, keys.PrefixSuccessor(cur)
			continue
		}
		// First non-equality column: bound it and stop.
		switch lb := ce.LowerBound.(type) {
		case sql.Below:
			if lkOK {
				if enc, err := t.AppendKey(append([]byte(nil), cur...), typ, lk); err == nil {
					lo = enc
				}
			}
		case sql.Above:
			if lkOK {
				if enc, err := t.AppendKey(append([]byte(nil), cur...), typ, lk); err == nil {
					lo = keys.PrefixSuccessor(enc)
				}
			}
			_ = lb
		case sql.AboveNull:
			lo = append(append([]byte(nil), cur...), 0x01)
		case sql.AboveAll:
			return nil, nil, 0, true
		}
		switch ce.UpperBound.(type) {
		case sql.Below:
			if ukOK {
				if enc, err := t.AppendKey(append([]byte(nil), cur...), typ, uk); err == nil {
					hi = enc
				}
			}
		case sql.Above:
			if ukOK {
				if enc, err := t.AppendKey(append([]byte(nil), cur...), typ, uk); err == nil {
					hi = keys.PrefixSuccessor(enc)
				}
			}
		case sql.AboveNull:
			hi = append(append([]byte(nil), cur...), 0x01)
		case sql.BelowNull:
			return nil, nil, 0, true
		}
		return
	}
	return
}

// exactKey converts a range cut's key to the column type, reporting false
// when the cut has no key or the conversion changes the value (then the
// bound is left open and the range filter does the work).
func exactKey(ctx *sql.Context, colType, rangeType sql.Type, cut sql.MySQLRangeCut) (any, bool) {
	switch cut.(type) {
	case sql.Below, sql.Above:
	default:
		return nil, false
	}
	k := sql.GetMySQLRangeCutKey(cut)
	if k == nil {
		return nil, false
	}
	cv, inRange, err := colType.Convert(ctx, k)
	if err != nil || inRange != sql.InRange || cv == nil {
		return nil, false
	}
	cmpType := rangeType
	if cmpType == nil {
		cmpType = colType
	}
	if c, err := cmpType.Compare(ctx, k, cv); err != nil || c != 0 {
		return nil, false
	}
	return cv, true
}

func keyEqual(ctx *sql.Context, typ sql.Type, a, b any) bool {
	c, err := typ.Compare(ctx, a, b)
	return err == nil && c == 0
}

// CreateIndex implements sql.IndexAlterableTable: the index is built from
// the existing rows within the DDL transaction.
func (t *Table) CreateIndex(ctx *sql.Context, def sql.IndexDef) error {
	if def.IsFullText() || def.IsSpatial() || def.IsVector() {
		return sql.ErrUnsupportedFeature.New("FULLTEXT/SPATIAL/VECTOR indexes")
	}
	txn, err := t.ddlTxn(ctx)
	if err != nil {
		return err
	}
	st, err := t.latest()
	if err != nil {
		return err
	}
	nt, err := t.alterDef(ctx, txn, st, func(td *storage.TableDef) error {
		var next uint8 = 1
		for _, ix := range td.Indexes {
			if strings.EqualFold(ix.Name, def.Name) {
				return sql.ErrDuplicateKey.New(def.Name)
			}
			if ix.ID >= next {
				next = ix.ID + 1
			}
		}
		if next == 0 {
			return fmt.Errorf("sqlengine: too many indexes on %s", td.Name)
		}
		nd := storage.IndexDef{ID: next, Name: def.Name, Unique: def.IsUnique(), Comment: def.Comment}
		anyPrefix := false
		for _, c := range def.Columns {
			nd.Columns = append(nd.Columns, c.Name)
			nd.Prefix = append(nd.Prefix, uint16(c.Length))
			anyPrefix = anyPrefix || c.Length > 0
		}
		if !anyPrefix {
			nd.Prefix = nil
		}
		td.Indexes = append(td.Indexes, nd)
		return nil
	})
	if err != nil {
		return err
	}
	t.t = nt
	return ddlError(ctx, txn.BuildIndex(ctx, nt, nt.Indexes[len(nt.Indexes)-1]))
}

// DropIndex implements sql.IndexAlterableTable.
func (t *Table) DropIndex(ctx *sql.Context, name string) error {
	txn, err := t.ddlTxn(ctx)
	if err != nil {
		return err
	}
	st, err := t.latest()
	if err != nil {
		return err
	}
	var dropped *storage.Index
	nt, err := t.alterDef(ctx, txn, st, func(td *storage.TableDef) error {
		for i, ix := range td.Indexes {
			if strings.EqualFold(ix.Name, name) {
				dropped = st.Indexes[i]
				td.Indexes = append(td.Indexes[:i], td.Indexes[i+1:]...)
				return nil
			}
		}
		return sql.ErrIndexNotFound.New(name)
	})
	if err != nil {
		return err
	}
	t.t = nt
	return ddlError(ctx, txn.DropIndexData(st, dropped))
}

// RenameIndex implements sql.IndexAlterableTable.
func (t *Table) RenameIndex(ctx *sql.Context, from, to string) error {
	return t.alter(ctx, func(td *storage.TableDef) error {
		for i, ix := range td.Indexes {
			if strings.EqualFold(ix.Name, from) {
				td.Indexes[i].Name = to
				return nil
			}
		}
		return sql.ErrIndexNotFound.New(from)
	})
}
