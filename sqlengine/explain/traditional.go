package explain

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/proto/query"

	"petrel/sqlengine/planstats"
)

// Traditional EXPLAIN: a row per table the chosen plan reads, in the
// order it reads them (a join's outer side first), under MySQL's twelve
// columns. GMS v0.20.0 returned one row of NULLs.
//
//   - id numbers the SELECTs: 1 the statement's, then its subqueries,
//     derived tables and UNION's further selects as met;
//   - select_type: SIMPLE without subqueries, else PRIMARY for the outer
//     select; SUBQUERY (DEPENDENT SUBQUERY when it reads outer columns),
//     DERIVED, UNION, and UNION RESULT for UNION's de-duplication;
//   - type: const for a whole primary or unique key's single value, eq_ref
//     for such a key looked up per row of a join, ref for a non-unique key
//     (or a key prefix) looked up by value, range for index ranges, index
//     for an index read whole, ALL for a table scan;
//   - possible_keys: the table's indexes whose first column a condition
//     on the table (its filter, the join's condition, the lookup's key)
//     names, and the index read;
//   - key_len: the bytes of the key columns used, as MySQL counts them
//     (each column's key image, +1 for a nullable column, +2 for a
//     variable-length one);
//   - ref: for a lookup, the columns (db.table.column) or "const" that
//     give each key column;
//   - rows: the rows the access is estimated to read (planstats/estimate.go),
//     per lookup for a join's inner side;
//   - filtered: the percentage of those rows the table's filter keeps,
//     100 without one;
//   - Extra: "Using where" under a filter, "Using join buffer (hash
//     join)" for a hash join's build side, "Using temporary" and "Using
//     filesort" on a select's first table when it groups or sorts.

// tradRow is one row of traditional EXPLAIN.
type tradRow struct {
	id       any
	selType  string
	table    any
	typ      any
	possible any
	key      any
	keyLen   any
	ref      any
	rows     any
	filtered any
	extra    []string
}

func (r *tradRow) sqlRow() sql.Row {
	var extra any
	if len(r.extra) > 0 {
		extra = strings.Join(r.extra, "; ")
	}
	return sql.NewRow(r.id, r.selType, r.table, nil, r.typ, r.possible, r.key, r.keyLen, r.ref, r.rows, r.filtered, extra)
}

// tradExplain collects the rows of one statement's plan.
type tradExplain struct {
	pe     *planstats.Estimator
	rows   []*tradRow
	nextID uint64
	defers []func()
}

// traditionalExplain returns traditional EXPLAIN's rows for plan n.
func traditionalExplain(ctx *sql.Context, n sql.Node) sql.RowIter {
	rows := explainTable(ctx, n)
	out := make([]sql.Row, len(rows))
	for i, r := range rows {
		out[i] = r.sqlRow()
	}
	return sql.RowsToRowIter(out...)
}

// explainTable returns the rows of traditional EXPLAIN for plan n.
func explainTable(ctx *sql.Context, n sql.Node) []*tradRow {
	te := &tradExplain{pe: planstats.NewEstimator(ctx), nextID: 1}
	te.selectRows(n, 1, statementType(n))
	for len(te.defers) > 0 {
		d := te.defers[0]
		te.defers = te.defers[1:]
		d()
	}
	if te.nextID > 1 {
		for _, r := range te.rows {
			if r.id == uint64(1) && r.selType == "SIMPLE" {
				r.selType = "PRIMARY"
			}
		}
	}
	return te.rows
}

// selectRows adds the rows of one select (id) read by n.
func (te *tradExplain) selectRows(n sql.Node, id uint64, selType string) {
	start := len(te.rows)
	var extra []string
	te.walk(n, id, selType, &extra, nil, false)
	if len(te.rows) == start {
		te.rows = append(te.rows, &tradRow{id: id, selType: selType, extra: []string{"No tables used"}})
		return
	}
	first := te.rows[start]
	sort.SliceStable(extra, func(i, j int) bool { return extra[i] == "Using temporary" && extra[j] != "Using temporary" })
	first.extra = append(first.extra, extra...)
}

// walk visits n, a part of select id: filter is the filter directly
// over n, hashed whether n is a hash join's build side.
func (te *tradExplain) walk(n sql.Node, id uint64, selType string, extra *[]string, filter *plan.Filter, hashed bool) {
	te.subqueries(n, id)
	if a, ok := planstats.AccessOf(n); ok {
		te.rows = append(te.rows, te.accessRow(a, id, selType, filter, hashed))
		return
	}
	switch x := n.(type) {
	case *plan.Filter:
		te.walk(x.Child, id, selType, extra, x, hashed)
		return
	case *plan.Project:
		// A filter over a projection of a table is the table's.
		if _, ok := planstats.AccessOf(planstats.StripProjects(x.Child)); ok {
			te.walk(x.Child, id, selType, extra, filter, hashed)
			return
		}
	case *plan.ResolvedTable, *plan.TableAlias:
		// A table that is not Petrel's (information_schema's, a
		// system table): no estimate.
		if rt, ok := x.(*plan.ResolvedTable); ok && plan.IsDualTable(rt.Table) {
			return
		}
		if nm, ok := x.(sql.Nameable); ok {
			r := &tradRow{id: id, selType: selType, table: nm.Name(), typ: "ALL", filtered: 100.0}
			if filter != nil {
				r.extra = append(r.extra, "Using where")
			}
			te.rows = append(te.rows, r)
			return
		}
	case *plan.InsertInto:
		if d, ok := x.Destination.(sql.Nameable); ok {
			te.rows = append(te.rows, &tradRow{id: id, selType: selType, table: d.Name(), typ: "ALL"})
		}
		te.walk(x.Source, id, selType, extra, nil, false)
		return
	case *plan.HashLookup:
		te.walk(x.Child, id, selType, extra, filter, true)
		return
	case *plan.GroupBy, *plan.Distinct, *plan.OrderedDistinct:
		if x, ok := x.(*plan.GroupBy); !ok || len(x.GroupByExprs) > 0 {
			addOnce(extra, "Using temporary")
		}
	case *plan.Sort, *plan.TopN:
		addOnce(extra, "Using filesort")
	case *plan.SubqueryAlias:
		te.nextID++
		did := te.nextID
		r := &tradRow{id: id, selType: selType, table: fmt.Sprintf("<derived%d>", did), typ: "ALL", filtered: 100.0}
		if est, ok := te.pe.Rows(x.Child); ok {
			r.rows = uint64(math.Round(est))
		}
		if filter != nil {
			r.extra = append(r.extra, "Using where")
		}
		te.rows = append(te.rows, r)
		te.defers = append(te.defers, func() { te.selectRows(x.Child, did, "DERIVED") })
		return
	case *plan.SetOp:
		te.walk(x.Left(), id, selType, extra, nil, false)
		te.nextID++
		uid := te.nextID
		te.selectRows(x.Right(), uid, "UNION")
		if x.Distinct {
			te.rows = append(te.rows, &tradRow{id: nil, selType: "UNION RESULT", table: fmt.Sprintf("<union%d,%d>", id, uid), typ: "ALL", extra: []string{"Using temporary"}})
		}
		return
	}
	for _, c := range n.Children() {
		te.walk(c, id, selType, extra, nil, false)
	}
}

func addOnce(list *[]string, s string) {
	for _, x := range *list {
		if x == s {
			return
		}
	}
	*list = append(*list, s)
}

// subqueries numbers the subqueries in n's expressions and lists their
// rows after the current select's.
func (te *tradExplain) subqueries(n sql.Node, id uint64) {
	ex, ok := n.(sql.Expressioner)
	if !ok {
		return
	}
	for _, e := range ex.Expressions() {
		sql.Inspect(e, func(x sql.Expression) bool {
			sq, ok := x.(*plan.Subquery)
			if !ok {
				return true
			}
			te.nextID++
			sid := te.nextID
			typ := "SUBQUERY"
			if !sq.Correlated().Empty() {
				typ = "DEPENDENT SUBQUERY"
			}
			q := sq.Query
			te.defers = append(te.defers, func() { te.selectRows(q, sid, typ) })
			return false
		})
	}
}

// accessRow describes one table access.
func (te *tradExplain) accessRow(a planstats.Access, id uint64, selType string, filter *plan.Filter, hashed bool) *tradRow {
	r := &tradRow{id: id, selType: selType, table: a.Name, filtered: 100.0}
	est := te.pe.AccessRows(a)
	r.rows = uint64(math.Max(1, math.Round(est)))
	cols := map[string]bool{}
	if filter != nil {
		r.extra = append(r.extra, "Using where")
		sel := te.pe.FilterSelectivity(filter)
		r.filtered = math.Round(sel*10000) / 100
		planstats.NamedColumns(filter.Expression, a.Name, cols)
	}
	ix := a.Index()
	if ix == nil {
		r.typ = "ALL"
	} else {
		r.key = ix.ID()
		used, typ, ref := te.indexUse(a, ix)
		r.typ = typ
		if typ == "index" {
			used = len(ix.KeyOrds())
		}
		if used > 0 {
			r.keyLen = fmt.Sprint(keyLength(ix, used))
		}
		if ref != "" {
			r.ref = ref
		}
		for _, e := range a.ITA.Expressions() {
			planstats.NamedColumns(e, a.Name, cols)
		}
		cols[strings.ToLower(a.Table.Storage().Schema[ix.KeyOrds()[0]].Name)] = true
	}
	if hashed {
		r.extra = append(r.extra, "Using join buffer (hash join)")
	}
	r.possible = possibleKeys(a.Table, cols, ix)
	return r
}

// indexUse is how many of ix's columns an access uses, its access type
// and its ref.
func (te *tradExplain) indexUse(a planstats.Access, ix planstats.Index) (int, string, string) {
	if a.Keyed() {
		keys := a.ITA.Expressions()
		refs := make([]string, len(keys))
		for i, k := range keys {
			refs[i] = refText(a.Table.Database(), k)
		}
		typ := "ref"
		if ix.IsUnique() && len(keys) == len(ix.KeyOrds()) {
			typ = "eq_ref"
		}
		return min(len(keys), len(ix.KeyOrds())), typ, strings.Join(refs, ",")
	}
	lookup, err := a.ITA.GetLookup(te.pe.Context(), nil)
	if err != nil {
		return 0, "range", ""
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok || len(ranges) == 0 {
		return 0, "range", ""
	}
	used, points := 0, -1
	for _, rg := range ranges {
		k := 0
		for k < len(rg) && k < len(ix.KeyOrds()) && planstats.IsPoint(te.pe.Context(), rg[k]) {
			k++
		}
		u := k
		if k < len(rg) && k < len(ix.KeyOrds()) && rg[k].Type() != sql.RangeType_All {
			u++
		}
		used = max(used, u)
		if u != k {
			points = -2 // a bounded column after the points: a range
		} else if points == -1 {
			points = k
		} else if points != k {
			points = -2
		}
	}
	switch {
	case used == 0:
		return 0, "index", ""
	case len(ranges) == 1 && points > 0:
		refs := make([]string, points)
		for i := range refs {
			refs[i] = "const"
		}
		if ix.IsUnique() && points == len(ix.KeyOrds()) {
			return used, "const", strings.Join(refs, ",")
		}
		return used, "ref", strings.Join(refs, ",")
	}
	return used, "range", ""
}

// refText shows a lookup key's source as MySQL does: db.table.column for
// a column, const for a constant, func otherwise.
func refText(db string, e sql.Expression) string {
	switch x := e.(type) {
	case *expression.GetField:
		if x.Table() != "" {
			return db + "." + x.Table() + "." + x.Name()
		}
		return x.Name()
	case *expression.Literal, *expression.BindVar:
		return "const"
	}
	cols := false
	sql.Inspect(e, func(x sql.Expression) bool {
		if _, ok := x.(*expression.GetField); ok {
			cols = true
		}
		return true
	})
	if !cols {
		return "const"
	}
	return "func"
}

// possibleKeys lists tb's indexes whose first column cols names, and
// chosen: nil when none.
func possibleKeys(tb planstats.Table, cols map[string]bool, chosen planstats.Index) any {
	indexes, err := tb.GetIndexes(nil)
	if err != nil {
		return nil
	}
	var names []string
	for _, sqlIx := range indexes {
		ix := sqlIx.(planstats.Index)
		if (chosen != nil && ix.ID() == chosen.ID()) || cols[strings.ToLower(tb.Storage().Schema[ix.KeyOrds()[0]].Name)] {
			names = append(names, ix.ID())
		}
	}
	if len(names) == 0 {
		return nil
	}
	return strings.Join(names, ",")
}

// keyLength is the bytes of ix's first n columns, as MySQL's key_len.
func keyLength(ix planstats.Index, n int) int {
	total := 0
	for i, o := range ix.KeyOrds()[:n] {
		col := ix.Owner().Storage().Schema[o]
		plen := 0
		if i < len(ix.PrefixLengths()) {
			plen = int(ix.PrefixLengths()[i])
		}
		total += columnKeyBytes(col.Type, plen)
		if col.Nullable {
			total++
		}
	}
	return total
}

// columnKeyBytes is one column's key image in bytes, MySQL's: fixed
// widths for numbers and times, characters × the character set's
// longest character (+2 for a variable length), a prefix's length.
func columnKeyBytes(t sql.Type, prefix int) int {
	switch t.Type() {
	case sqltypes.Int8, sqltypes.Uint8, sqltypes.Year:
		return 1
	case sqltypes.Int16, sqltypes.Uint16:
		return 2
	case sqltypes.Int24, sqltypes.Uint24, sqltypes.Date:
		return 3
	case sqltypes.Int32, sqltypes.Uint32, sqltypes.Float32:
		return 4
	case sqltypes.Int64, sqltypes.Uint64, sqltypes.Float64:
		return 8
	case sqltypes.Decimal:
		if d, ok := t.(sql.DecimalType); ok {
			p, s := int(d.Precision()), int(d.Scale())
			return packedDigits(p-s) + packedDigits(s)
		}
	case sqltypes.Datetime, sqltypes.Timestamp, sqltypes.Time:
		base := map[query.Type]int{sqltypes.Datetime: 5, sqltypes.Timestamp: 4, sqltypes.Time: 3}[t.Type()]
		if d, ok := t.(sql.DatetimeType); ok {
			return base + (d.Precision()+1)/2
		}
		return base
	case sqltypes.Enum:
		return 2
	case sqltypes.Set:
		return 8
	case sqltypes.Bit:
		if b, ok := t.(types.BitType); ok {
			return (int(b.NumberOfBits()) + 7) / 8
		}
	}
	if st, ok := t.(sql.StringType); ok {
		chars := int(st.MaxCharacterLength())
		if prefix > 0 {
			chars = prefix
		}
		width := 1
		if cs := st.CharacterSet(); cs != sql.CharacterSet_binary {
			width = int(cs.MaxLength())
		}
		n := chars * width
		if prefix > 0 || t.Type() != sqltypes.Char && t.Type() != sqltypes.Binary {
			n += 2
		}
		return n
	}
	return 8
}

// packedDigits is the bytes MySQL packs n decimal digits into.
func packedDigits(n int) int {
	leftover := [10]int{0, 1, 1, 2, 2, 3, 3, 4, 4, 4}
	return n/9*4 + leftover[n%9]
}

// statementType is select_type of a statement's own select: SIMPLE, or
// the statement that writes.
func statementType(n sql.Node) string {
	typ := "SIMPLE"
	transform.Inspect(n, func(x sql.Node) bool {
		switch x.(type) {
		case *plan.Update:
			typ = "UPDATE"
		case *plan.DeleteFrom:
			typ = "DELETE"
		case *plan.InsertInto:
			typ = "INSERT"
		default:
			return typ == "SIMPLE"
		}
		return false
	})
	return typ
}
