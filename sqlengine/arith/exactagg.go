package arith

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"

	"petrel/sqlengine/sqlmode"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"
)

// SUM and AVG of exact numbers, as MySQL computes and types them. GMS
// sums integers in float64 and types every SUM and AVG result DOUBLE
// when it builds the plan, so SUM(bigint) past 2^53 lost its last digits
// (9007199254740993 read 9.007199254740992e15), AVG(int) read 1 where
// MySQL reads 1.0000, and an exact DECIMAL sum was sent as a double
// (12345678901234567891.01 read 1.2345678901234567e19). MySQL's types:
//   - SUM(integer or DECIMAL(p,s)) is DECIMAL(p+22, s), p capped at 65;
//   - AVG(integer or DECIMAL(p,s)) is DECIMAL(p+4, s+4) (4 is
//     div_precision_increment's default), the quotient rounded half away
//     from zero to that scale.
// SUM and AVG of floats, strings and temporal values stay DOUBLE, as in
// MySQL. Window forms (SUM(x) OVER ...) are exact too (exactWindow).

// exactAgg is a SUM or AVG over an integer or DECIMAL argument.
type exactAgg struct {
	sql.Aggregation // GMS's *aggregation.Sum or *aggregation.Avg
	avg             bool
	typ             sql.DecimalType
}

func (a *exactAgg) Type() sql.Type   { return a.typ }
func (a *exactAgg) IsNullable() bool { return true }

func (a *exactAgg) child() sql.Expression { return a.Aggregation.Children()[0] }

func (a *exactAgg) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	g, err := a.Aggregation.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &exactAgg{Aggregation: g.(sql.Aggregation), avg: a.avg, typ: a.typ}, nil
}

func (a *exactAgg) WithId(id sql.ColumnId) sql.IdExpression {
	return &exactAgg{Aggregation: a.Aggregation.WithId(id).(sql.Aggregation), avg: a.avg, typ: a.typ}
}

func (a *exactAgg) NewBuffer() (sql.AggregationBuffer, error) {
	child, err := transform.Clone(a.child())
	if err != nil {
		return nil, err
	}
	return &exactBuffer{expr: child, avg: a.avg, scale: int32(a.typ.Scale())}, nil
}

// NewWindowFunction is SUM or AVG OVER a window, exact (GMS sums
// windows in float64 prefix sums, DECIMAL columns too).
func (a *exactAgg) NewWindowFunction() (sql.WindowFunction, error) {
	child, err := transform.Clone(a.child())
	if err != nil {
		return nil, err
	}
	w := &exactWindow{expr: child, avg: a.avg, scale: int32(a.typ.Scale())}
	if def := a.Window(); def != nil && def.Frame != nil {
		if w.framer, err = def.Frame.NewFramer(def); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// exactWindow keeps a partition's prefix sums (and counts of non-NULL
// values) as decimals; a frame's sum is the difference of two.
type exactWindow struct {
	expr   sql.Expression
	avg    bool
	scale  int32
	framer sql.WindowFramer
	start  int
	sums   []decimal.Decimal
	counts []int64
}

func (w *exactWindow) Dispose() { expression.Dispose(w.expr) }

func (w *exactWindow) DefaultFramer() sql.WindowFramer {
	if w.framer != nil {
		return w.framer
	}
	return aggregation.NewUnboundedPrecedingToCurrentRowFramer()
}

func (w *exactWindow) StartPartition(ctx *sql.Context, in sql.WindowInterval, buf sql.WindowBuffer) error {
	n := in.End - in.Start
	w.start, w.sums, w.counts = in.Start, make([]decimal.Decimal, n), make([]int64, n)
	acc, cnt := decimal.Zero, int64(0)
	for i := 0; i < n; i++ {
		v, err := w.expr.Eval(ctx, buf[in.Start+i])
		if err != nil {
			return err
		}
		if d, ok, err := exactOperand(ctx, v); err != nil {
			return err
		} else if ok {
			acc, cnt = acc.Add(d), cnt+1
		}
		w.sums[i], w.counts[i] = acc, cnt
	}
	return nil
}

func (w *exactWindow) Compute(_ *sql.Context, in sql.WindowInterval, _ sql.WindowBuffer) any {
	e, s := in.End-w.start-1, in.Start-w.start-1
	if in.End <= in.Start || e < 0 || e >= len(w.sums) {
		return nil
	}
	sum, cnt := w.sums[e], w.counts[e]
	if s >= 0 && s < len(w.sums) {
		sum, cnt = sum.Sub(w.sums[s]), cnt-w.counts[s]
	}
	if cnt == 0 {
		return nil
	}
	if w.avg {
		q, _ := sum.QuoRem(decimal.NewFromInt(cnt), (w.scale+8)/9*9)
		return q
	}
	return sum
}

// exactOperand is v as a decimal (false for NULL).
func exactOperand(ctx *sql.Context, v any) (decimal.Decimal, bool, error) {
	if v == nil {
		return decimal.Decimal{}, false, nil
	}
	if n, isBig, u, ok := IntOperand(v); ok {
		if isBig {
			return decimal.NewFromBigInt(new(big.Int).SetUint64(u), 0), true, nil
		}
		return decimal.NewFromInt(n), true, nil
	}
	if d, ok := v.(decimal.Decimal); ok {
		return d, true, nil
	}
	d, _, err := types.InternalDecimalType.Convert(ctx, v)
	if err != nil {
		return decimal.Decimal{}, false, err
	}
	dd, ok := d.(decimal.Decimal)
	return dd, ok, nil
}

// exactBuffer sums in an int64 scaled by 10^-exp while the values fit
// (integers, and decimals of up to 18 digits: one allocation-free add
// per row) and in a decimal from the first overflow on.
type exactBuffer struct {
	expr  sql.Expression
	avg   bool
	scale int32
	rows  int64
	small int64
	exp   int32 // small's exponent (<= 0)
	sum   decimal.Decimal
	isBig bool
}

func (b *exactBuffer) Update(ctx *sql.Context, row sql.Row) error {
	if se, ok := b.expr.(SmallEvaler); ok {
		// DECIMAL arithmetic that fits an int64 (decArith's small
		// path) adds without a decimal in between.
		d, null, ok, err := se.EvalSmall(ctx, row)
		if err != nil || null {
			return err
		}
		if ok {
			b.rows++
			if b.isBig || !b.addScaled(d.C, d.E) {
				b.addBig(decimal.New(d.C, d.E))
			}
			return nil
		}
	}
	v, err := b.expr.Eval(ctx, row)
	if err != nil || v == nil {
		return err
	}
	b.rows++
	if n, isBig, u, ok := IntOperand(v); ok {
		if isBig {
			b.addDecimal(decimal.NewFromBigInt(new(big.Int).SetUint64(u), 0))
		} else {
			b.addInt(n)
		}
		return nil
	}
	if d, ok := v.(decimal.Decimal); ok {
		b.addDecimal(d)
		return nil
	}
	d, _, err := types.InternalDecimalType.Convert(ctx, v)
	if err != nil {
		return err
	}
	if dd, ok := d.(decimal.Decimal); ok {
		b.addDecimal(dd)
	}
	return nil
}

func (b *exactBuffer) addInt(n int64) {
	if b.isBig || !b.addScaled(n, 0) {
		b.addBig(decimal.NewFromInt(n))
	}
}

func (b *exactBuffer) addDecimal(d decimal.Decimal) {
	if !b.isBig && d.Exponent() <= 0 && d.Exponent() >= -18 && Limit18.Holds(d) && b.addScaled(d.CoefficientInt64(), d.Exponent()) {
		return
	}
	b.addBig(d)
}

// addScaled adds c * 10^e to small (AddSmall, at the
// smaller exponent); false (small unchanged) when the sum leaves int64.
func (b *exactBuffer) addScaled(c int64, e int32) bool {
	if c == math.MinInt64 {
		return false
	}
	s, ok := AddSmall(SmallDec{C: b.small, E: b.exp}, SmallDec{C: c, E: e})
	if ok {
		b.small, b.exp = s.C, s.E
	}
	return ok
}

// addBig moves the sum to a decimal (once) and adds d there.
func (b *exactBuffer) addBig(d decimal.Decimal) {
	if !b.isBig {
		b.sum = decimal.New(b.small, b.exp)
		b.isBig = true
	}
	b.sum = b.sum.Add(d)
}

func (b *exactBuffer) Eval(*sql.Context) (any, error) {
	if b.rows == 0 {
		return nil, nil
	}
	sum := b.sum
	if !b.isBig {
		sum = decimal.New(b.small, b.exp)
	}
	if b.avg {
		// MySQL divides decimals to whole 9-digit words beyond the
		// result's scale and truncates there; the column shows the
		// scale, arithmetic on the result uses every digit (AVG 5/3
		// reads 1.6667, and AVG(...) * 2 reads 3.3333, not 3.3334).
		q, _ := sum.QuoRem(decimal.NewFromInt(b.rows), (b.scale+8)/9*9)
		return q, nil
	}
	return sum, nil
}

func (b *exactBuffer) Dispose() { expression.Dispose(b.expr) }

// integerPrecision is the number of decimal digits MySQL counts for an
// integer type's values (decimal_precision()).
func integerPrecision(t sql.Type) (uint8, bool) {
	switch t.Type() {
	case sqltypes.Int8, sqltypes.Uint8:
		return 3, true
	case sqltypes.Int16, sqltypes.Uint16:
		return 5, true
	case sqltypes.Int24:
		return 7, true
	case sqltypes.Uint24:
		return 8, true
	case sqltypes.Int32, sqltypes.Uint32:
		return 10, true
	case sqltypes.Int64:
		return 19, true
	case sqltypes.Uint64:
		return 20, true
	}
	return 0, false
}

// exactAggType is MySQL's result type for SUM or AVG of an argument of
// type t, and false where the result is a DOUBLE. inc is
// div_precision_increment, AVG's digits past its argument's.
func exactAggType(t sql.Type, avg bool, inc int) (sql.DecimalType, bool) {
	var p, s uint8
	if dt, ok := t.(sql.DecimalType); ok {
		p, s = dt.Precision(), dt.Scale()
	} else if IsIntegerType(t) {
		if p, ok = integerPrecision(t); !ok {
			return nil, false
		}
	} else {
		return nil, false
	}
	if avg {
		p, s = p+uint8(inc), min(s+uint8(inc), 30)
	} else {
		p += 22
	}
	t2, err := types.CreateDecimalType(min(p, 65), s)
	if err != nil {
		return nil, false
	}
	return t2, true
}

// exactSums puts exactAgg in place of GMS's SUM and AVG over integers
// and decimals, and retypes the columns that read their results.
func ExactSums(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	if tc, ok := n.(*plan.TableCopier); ok {
		// CREATE TABLE ... AS SELECT: the select was analysed (and its
		// sums replaced) on its own, before GMS made this node.
		retypeCreateSelect(tc)
		widenCreateSelect(ctx, tc)
		nullableCreateSelect(tc)
		renameCreateSelect(ctx, tc)
		setOpCreateSelect(ctx, tc) // ctassetop.go
		return n, transform.SameTree, nil
	}
	retype := map[sql.ColumnId]sql.DecimalType{}
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		var alias *expression.Alias
		if a, ok := e.(*expression.Alias); ok {
			// A window's result is read by its alias's id.
			alias, e = a, a.Child
		}
		var agg sql.Aggregation
		avg := false
		switch x := e.(type) {
		case *aggregation.Sum:
			agg = x
		case *aggregation.Avg:
			agg, avg = x, true
		default:
			return true
		}
		if t, ok := exactAggType(agg.Children()[0].Type(), avg, DivIncrement(ctx)); ok {
			retype[agg.Id()] = t
			if alias != nil && alias.Id() != 0 {
				retype[alias.Id()] = t
			}
		}
		return true
	})
	if len(retype) == 0 {
		return n, transform.SameTree, nil
	}
	out, same, err := transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *aggregation.Sum, *aggregation.Avg:
			agg := x.(sql.Aggregation)
			if t, ok := retype[agg.Id()]; ok {
				return &exactAgg{Aggregation: agg, avg: isAvg(x), typ: t}, transform.NewTree, nil
			}
		case *expression.GetField:
			if t, ok := retype[x.Id()]; ok && !x.Type().Equals(t) {
				// GMS typed it DOUBLE (GROUP BY), or as the argument
				// (a window's SUM).
				ng := expression.NewGetFieldWithTable(x.Index(), int(x.TableId()), t, x.Database(), x.Table(), x.Name(), x.IsNullable()).WithId(x.Id())
				return ng.(sql.Expression), transform.NewTree, nil
			}
		}
		return e, transform.SameTree, nil
	})
	return out, same, err
}

// retypeCreateSelect gives CREATE TABLE ... AS SELECT's new columns the
// retyped SUM and AVG results' types: GMS copied the select's schema,
// DOUBLE then, into the new table's (a TableCopier's destination) when
// it resolved the statement. The columns are this statement's own.
func retypeCreateSelect(tc *plan.TableCopier) {
	ct, ok := tc.Destination.(*plan.CreateTable)
	if !ok {
		return
	}
	sel, cols := tc.Source.Schema(), ct.PkSchema().Schema
	if len(sel) != len(cols) {
		return
	}
	for i, c := range cols {
		if analysedType(c.Type, sel[i].Type) {
			// GMS typed the column from the select as it built the plan,
			// before the analyser's rules (arith, functions) retyped its
			// expressions: `dt + INTERVAL 1 DAY` stays a DATE, not a
			// DATETIME; `ts + INTERVAL 1 SECOND` of a DATETIME(3) keeps
			// its fraction (it was cut to a DATETIME); CASE over an INT
			// and a DECIMAL(10,2) is a DECIMAL(12,2), `-i` a BIGINT.
			c.Type = sel[i].Type
			c.Nullable = c.Nullable || sel[i].Nullable
			continue
		}
		st, dec := sel[i].Type.(sql.DecimalType)
		if dec && c.Type == types.Float64 {
			c.Type = sel[i].Type
			c.Nullable = true // SUM and AVG of no rows are NULL
		}
		if ct, ok := c.Type.(sql.DecimalType); ok && dec && ct.Precision() == types.DecimalTypeMaxPrecision && ct.Scale() == 4 && st.Scale() != 4 {
			// GMS's type of a quotient, where div_precision_increment
			// (divinc.go) gave the select another scale.
			c.Type = sel[i].Type
		}
	}
}

func isAvg(e sql.Expression) bool {
	_, ok := e.(*aggregation.Avg)
	return ok
}

// exactSumValue is an integer column's SUM as the fast paths send it:
// DECIMAL with scale 0, the type exactSums gives the column.
func ExactSumValue(sum int64) sqltypes.Value {
	return sqltypes.MakeTrusted(sqltypes.Decimal, strconv.AppendInt(nil, sum, 10))
}

// decimalsAtScale rounds DECIMAL values that carry more fractional
// digits than their column's scale (the field's Decimals) to that scale,
// half away from zero, as MySQL shows them: MySQL keeps a quotient's
// digits to whole 9-digit words (AVG(x) * 2 reads 3.3333 from
// 1.666666666 * 2), and GMS sends a computed decimal with every digit
// it holds.
func DecimalsAtScale(res *sqltypes.Result) {
	for i, f := range res.Fields {
		if f.Type != sqltypes.Decimal || f.Decimals == 0 || f.Decimals > 30 {
			continue
		}
		for _, row := range res.Rows {
			if i >= len(row) || row[i].IsNull() {
				continue
			}
			b := row[i].Raw()
			dot := bytes.IndexByte(b, '.')
			if dot < 0 || len(b)-dot-1 <= int(f.Decimals) {
				continue
			}
			d, err := decimal.NewFromString(string(b))
			if err != nil {
				continue
			}
			row[i] = sqltypes.MakeTrusted(sqltypes.Decimal, []byte(d.StringFixed(int32(f.Decimals))))
		}
	}
}

// exactSumField makes f, the field of SUM over an integer column of type
// col, the DECIMAL field exactSums gives it, and reports whether it is
// one. A statement prepared (bound by GMS, not analysed) reports
// SUM's field as DOUBLE; the fast paths answer it with the analysed
// type, and the client sees that type at prepare too.
func ExactSumField(f *querypb.Field, col sql.Type) bool {
	dt, ok := exactAggType(col, false, 4)
	if !ok {
		return false
	}
	switch f.Type {
	case sqltypes.Decimal:
		return true
	case sqltypes.Float64:
		f.Type = sqltypes.Decimal
		f.Decimals = 0
		f.ColumnLength = dt.MaxTextResponseByteLength(nil)
		return true
	}
	return false
}

// renameCreateSelect names CREATE TABLE ... AS SELECT's new columns as
// MySQL does, by the select list as written (a+1, SUM(a), COUNT(*)):
// GMS named them by its analysed expressions ((t.a + 1), sum(t.a),
// count(1)). Only a statement whose new columns are exactly its select
// list's (no column definitions of its own, no *) is renamed; the rows
// are copied by position.
func renameCreateSelect(ctx *sql.Context, tc *plan.TableCopier) {
	ct, ok := tc.Destination.(*plan.CreateTable)
	if !ok || ctx == nil {
		return
	}
	q := ctx.Query()
	r, added := sqlmode.SessionText(ctx, q)
	st, err := ast.ParseWithOptions(ctx, r, sqlmode.Load(ctx).ParserOptions())
	if err != nil {
		return
	}
	d, ok := st.(*ast.DDL)
	if !ok || d.OptSelect == nil || (d.TableSpec != nil && len(d.TableSpec.Columns) > 0) {
		return
	}
	first := d.OptSelect.Select
	for {
		// A set operation's columns are named by its first select's.
		so, isSetOp := first.(*ast.SetOp)
		if !isSetOp {
			break
		}
		first = so.Left
	}
	if p, isParen := first.(*ast.ParenSelect); isParen {
		first = p.Select
	}
	sel, ok := first.(*ast.Select)
	cols := ct.PkSchema().Schema
	if !ok || len(sel.SelectExprs) != len(cols) {
		return
	}
	names := make([]string, len(cols))
	for i, e := range sel.SelectExprs {
		ae, ok := e.(*ast.AliasedExpr)
		if !ok {
			return // *
		}
		if !ae.As.IsEmpty() {
			names[i] = ae.As.String()
			continue
		}
		if c, ok := ae.Expr.(*ast.ColName); ok {
			names[i] = c.Name.String()
			continue
		}
		if v, ok := ae.Expr.(*ast.SQLVal); ok && v.Type == ast.StrVal && len(v.Val) > 0 && len(v.Val) <= 64 {
			// A string literal names its column by its text: `SELECT
			// 'a'` makes column a (GMS's name was 'a', quotes and all).
			names[i] = string(v.Val)
			continue
		}
		// The expression as the client wrote it.
		s, e := sqlmode.OriginalOffset(ae.StartParsePos, added), sqlmode.OriginalOffset(ae.EndParsePos, added)
		if ae.EndParsePos <= ae.StartParsePos || s < 0 || e > len(q) || s >= e {
			return
		}
		names[i] = strings.TrimSpace(q[s:e])
		if len(names[i]) > 64 {
			return
		}
	}
	seen := map[string]bool{}
	for _, nm := range names {
		if seen[strings.ToLower(nm)] {
			return // GMS's duplicate-name error stands
		}
		seen[strings.ToLower(nm)] = true
	}
	for i, c := range cols {
		c.Name = names[i]
	}
}

// SetOpNumericType is MySQL's type for a UNION, INTERSECT or EXCEPT
// column whose sides are of types l and r, where one is a DECIMAL and
// the other a DECIMAL, an integer, a float or NULL: a DECIMAL with the
// larger integer part and the larger scale (decimal_int_part and
// decimals aggregated as Item_type_holder does), or DOUBLE beside a
// float. ok is false for every other pair, which GMS's own merge types.
func SetOpNumericType(l, r sql.Type) (t sql.Type, ok bool) {
	ld, lok := l.(sql.DecimalType)
	rd, rok := r.(sql.DecimalType)
	if !lok && !rok {
		return nil, false
	}
	if !lok {
		l, r, ld, rd = r, l, rd, ld
	}
	// l is a DECIMAL (ld); r any type.
	var intPart, scale uint8 = ld.Precision() - ld.Scale(), ld.Scale()
	switch {
	case rd != nil:
		intPart, scale = max(intPart, rd.Precision()-rd.Scale()), max(scale, rd.Scale())
	case r == types.Null:
		return l, true
	case types.IsFloat(r):
		return types.Float64, true
	case IsIntegerType(r):
		p, ok := integerPrecision(r)
		if !ok {
			return nil, false
		}
		intPart = max(intPart, p)
	default:
		return nil, false
	}
	d, err := types.CreateDecimalType(min(intPart+scale, 65), scale)
	if err != nil {
		return nil, false
	}
	return d, true
}
