package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/sqlengine/arith"
	"petrel/sqlengine/functions"
)

// DOUBLE results with fixed decimals. MySQL gives some DOUBLE results a
// number of decimals and prints them with that many digits: PI() has 6
// (3.141593), STD, STDDEV, VARIANCE and their _POP/_SAMP forms over an
// integer or DECIMAL argument its scale plus 4 (STD of 1, 2, 3 is
// 0.8165), a FLOAT(M,D) or DOUBLE(M,D) column D (and its SUM, MIN and
// MAX; its AVG D plus 4), and +, -, * of such values the larger of
// their operands', / the dividend's plus div_precision_increment. GMS's DOUBLE has no
// decimals, so Petrel printed every digit (0.816496580927726). An
// after-all rule works out the decimals of the statement's result
// columns from its plan and notes them in the session; the text
// protocol's fields take them (doubleDecimalsFixed), and textFloats
// prints that many digits, as for FLOAT(M,D) columns (floatdigits.go).

const doubleDecimalsRuleID analyzer.RuleId = 1735

// resultDecimals are the decimals of a statement's DOUBLE result
// columns, by position, noted with the columns' names so that a result
// of another statement (a CALL's, a trigger's) is not given them.
type resultDecimals struct {
	names []string
	dec   []int // -1: none
}

// doubleDecimalsRule notes the decimals of the result columns of the
// top-level statement n.
func doubleDecimalsRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	s, ok := ctx.Session.(*Session)
	if !ok || (scope != nil && !scope.IsEmpty()) {
		return n, transform.SameTree, nil
	}
	s.resultDec = nil
	sch := n.Schema()
	exprs, aggs := projectionOf(ctx, n)
	if exprs == nil {
		if setOpNode(n) {
			s.resultDec = setOpDecimals(ctx, n, sch)
		}
		return n, transform.SameTree, nil
	}
	// A DOUBLE with fixed decimals read as text (CONCAT, CAST AS CHAR)
	// is written with them: CONCAT(PI()) is '3.141593'.
	n, same, err := transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		out, ok := functions.FixedDoubleText(e, func(c sql.Expression) (int, bool) {
			d, ok := doubleDecimals(ctx, c, aggs)
			return d, ok && d < notFixedDec
		})
		if !ok {
			return e, transform.SameTree, nil
		}
		return out, transform.NewTree, nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	if len(exprs) != len(sch) {
		return n, same, nil
	}
	var rd *resultDecimals
	for i, e := range exprs {
		var d int
		switch {
		case sch[i].Type == types.Float64:
			var ok bool
			d, ok = doubleDecimals(ctx, e, aggs)
			if !ok || d >= notFixedDec {
				continue
			}
		case types.IsTimespan(sch[i].Type):
			// A TIME expression's precision (arith/timefsp.go):
			// timeAtPrecision prints its digits.
			fsp, trusted := arith.TimeFSP(ctx, e)
			if !trusted || fsp == 0 || fsp >= 6 {
				continue
			}
			d = fsp
		default:
			continue
		}
		if rd == nil {
			rd = &resultDecimals{names: make([]string, len(sch)), dec: make([]int, len(sch))}
			for j := range sch {
				rd.names[j], rd.dec[j] = sch[j].Name, -1
			}
		}
		rd.dec[i] = d
	}
	s.resultDec = rd
	return n, same, nil
}

// exprName is the name a GroupBy's selected expression is read by.
func exprName(e sql.Expression) string {
	if n, ok := e.(sql.Nameable); ok {
		return n.Name()
	}
	return e.String()
}

// projectionOf finds the projection that gives n's rows (through
// single-child nodes): its expressions, and the aggregates of the
// GroupBy under it by name, with, for the columns of a derived table or
// set operation it reads, their decimals (derivedDecimals). exprs is
// nil when there is none.
func projectionOf(ctx *sql.Context, n sql.Node) (exprs []sql.Expression, aggs map[string]sql.Expression) {
	aggs = map[string]sql.Expression{}
	for node := n; node != nil; {
		switch x := node.(type) {
		case *plan.Project:
			// The aggregates it reads, through HAVING, ORDER BY and
			// the like; or the derived table it reads.
			for c := x.Child; c != nil; {
				if g, ok := c.(*plan.GroupBy); ok {
					for _, e := range g.SelectedExprs {
						aggs[strings.ToLower(exprName(e))] = e
					}
					break
				}
				if sq, ok := c.(*plan.SubqueryAlias); ok {
					derivedDecimals(ctx, sq, aggs)
					break
				}
				if len(c.Children()) != 1 {
					break
				}
				c = c.Children()[0]
			}
			return x.Projections, aggs
		case *plan.GroupBy:
			return x.SelectedExprs, aggs
		default:
			ch := node.Children()
			if len(ch) != 1 {
				return nil, aggs
			}
			node = ch[0]
		}
	}
	return nil, aggs
}

// setOpDecimals are the result decimals of set operation n of schema
// sch (nil when none is fixed).
func setOpDecimals(ctx *sql.Context, n sql.Node, sch sql.Schema) *resultDecimals {
	dec := nodeDecimals(ctx, n, 0)
	var rd *resultDecimals
	for i, c := range sch {
		if i >= len(dec) || dec[i] < 0 || c.Type != types.Float64 {
			continue
		}
		if rd == nil {
			rd = &resultDecimals{names: make([]string, len(sch)), dec: make([]int, len(sch))}
			for j := range sch {
				rd.names[j], rd.dec[j] = sch[j].Name, -1
			}
		}
		rd.dec[i] = dec[i]
	}
	return rd
}

// setOpNode: n's rows come from a set operation (through single-child
// nodes).
func setOpNode(n sql.Node) bool {
	for n != nil {
		if _, ok := n.(*plan.SetOp); ok {
			return true
		}
		ch := n.Children()
		if len(ch) != 1 {
			return false
		}
		n = ch[0]
	}
	return false
}

// nodeDecimals are the fixed decimals of n's DOUBLE columns by position
// (-1: none known): its projection's, or for a set operation the larger
// of its sides' where both are known (MySQL's aggregated decimals).
func nodeDecimals(ctx *sql.Context, n sql.Node, depth int) []int {
	sch := n.Schema()
	out := make([]int, len(sch))
	for i := range out {
		out[i] = -1
	}
	if depth > 8 {
		return out
	}
	for c := n; c != nil; {
		if so, ok := c.(*plan.SetOp); ok {
			l, r := nodeDecimals(ctx, so.Left(), depth+1), nodeDecimals(ctx, so.Right(), depth+1)
			for i := range out {
				if i < len(l) && i < len(r) && l[i] >= 0 && r[i] >= 0 {
					out[i] = max(l[i], r[i])
				}
			}
			return out
		}
		if sq, ok := c.(*plan.SubqueryAlias); ok {
			c = sq.Child
			continue
		}
		if _, ok := c.(*plan.Project); ok {
			break
		}
		ch := c.Children()
		if len(ch) != 1 {
			return out
		}
		c = ch[0]
	}
	exprs, aggs := projectionOf(ctx, n)
	if len(exprs) != len(sch) {
		return out
	}
	for i, e := range exprs {
		if d, ok := doubleDecimals(ctx, e, aggs); ok && d < notFixedDec {
			out[i] = d
		}
	}
	return out
}

// derivedDecimals notes in aggs, by column name, a literal of each
// DOUBLE column of derived table sq that has fixed decimals, typed
// DECIMAL of that scale, which doubleDecimals reads as those decimals:
// `SELECT x FROM (SELECT STD(a) x ...) d` and WITH ROLLUP's rows (a
// UNION ALL in a derived table, rewrite/rollup.go) keep STD's 4
// decimals.
func derivedDecimals(ctx *sql.Context, sq *plan.SubqueryAlias, aggs map[string]sql.Expression) {
	dec := nodeDecimals(ctx, sq.Child, 0)
	for i, c := range sq.Schema() {
		if i >= len(dec) || dec[i] < 0 || !types.IsFloat(c.Type) {
			continue
		}
		t, err := types.CreateDecimalType(65, uint8(min(dec[i], 30)))
		if err != nil {
			continue
		}
		name := strings.ToLower(c.Name)
		if _, taken := aggs[name]; !taken {
			aggs[name] = expression.NewLiteral(nil, t)
		}
	}
}

// doubleDecimals are MySQL's decimals of e's value, ok false when they
// are not fixed (or not known here). aggs are the aggregates of the
// GroupBy under e's projection, by name.
func doubleDecimals(ctx *sql.Context, e sql.Expression, aggs map[string]sql.Expression) (int, bool) {
	if u := arith.FloatUnwrapped(e); u != e {
		return doubleDecimals(ctx, u, aggs)
	}
	// ROUND(double, d) and TRUNCATE(double, d) with a constant d: d
	// decimals (none for a negative d or ROUND(x)).
	if v, d, ok := functions.RoundArgs(e); ok && types.IsFloat(v.Type()) {
		if d == nil {
			return 0, true
		}
		if lit, isLit := d.(*expression.Literal); isLit {
			if n, isInt := arith.ToInt64(lit.Value()); isInt {
				return int(min(max(n, 0), notFixedDec-1)), true
			}
		}
		return 0, false
	}
	switch x := e.(type) {
	case *expression.Alias:
		return doubleDecimals(ctx, x.Child, aggs)
	case *expression.GetField:
		if a, ok := aggs[strings.ToLower(x.Name())]; ok && a != e {
			return doubleDecimals(ctx, a, aggs)
		}
		if types.IsFloat(x.Type()) {
			// A FLOAT(M,D) or DOUBLE(M,D) column's D (floatdigits.go).
			if s, ok := ctx.Session.(*Session); ok && s.eng != nil && x.Database() != "" && x.Table() != "" {
				if d := s.eng.columnDigits(x.Database(), x.Table(), x.Name()); d != nil {
					return d.D, true
				}
			}
			return 0, false
		}
		return fixedScale(x.Type())
	case *function.Pi:
		return 6, true

	case *aggregation.Sum, *aggregation.Max, *aggregation.Min:
		// Of a FLOAT(M,D) column: its D, as MySQL types them.
		if types.IsFloat(x.Type()) {
			return doubleDecimals(ctx, x.Children()[0], aggs)
		}
	case *aggregation.Avg:
		// Of a FLOAT(M,D) column: D plus div_precision_increment.
		if types.IsFloat(x.Children()[0].Type()) {
			if d, ok := doubleDecimals(ctx, x.Children()[0], aggs); ok {
				return min(d+arith.DivIncrement(ctx), notFixedDec), true
			}
		}
	case *aggregation.StdDevPop, *aggregation.StdDevSamp, *aggregation.VarPop, *aggregation.VarSamp, sql.Aggregation:
		if _, gms := x.(sql.Aggregation); gms && !functions.IsVariance(x) {
			break
		}
		arg := x.Children()[0]
		if types.IsFloat(arg.Type()) {
			// Of a FLOAT(M,D) column: D plus 4, as of an exact one.
			if d, ok := doubleDecimals(ctx, arg, aggs); ok {
				return min(d+4, notFixedDec), true
			}
			return 0, false
		}
		if !types.IsInteger(arg.Type()) && !types.IsDecimal(arg.Type()) {
			return 0, false
		}
		s, _ := fixedScale(arg.Type())
		return min(s+4, 30), true
	case *expression.Literal:
		return fixedScale(x.Type())
	case *expression.UnaryMinus:
		return doubleDecimals(ctx, x.Child, aggs)
	case *expression.Arithmetic:
		l, ok1 := doubleDecimals(ctx, x.Left(), aggs)
		r, ok2 := doubleDecimals(ctx, x.Right(), aggs)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch x.Op {
		case "+", "-", "*":
			return max(l, r), true
		}
	case *expression.Div:
		l, ok1 := doubleDecimals(ctx, x.Left(), aggs)
		_, ok2 := doubleDecimals(ctx, x.Right(), aggs)
		if ok1 && ok2 {
			return min(l+arith.DivIncrement(ctx), notFixedDec), true
		}
	}
	return 0, false
}

// fixedScale is the decimals of a value of type t that is not DOUBLE:
// an integer's 0, a DECIMAL's scale.
func fixedScale(t sql.Type) (int, bool) {
	switch {
	case types.IsInteger(t):
		return 0, true
	case types.IsDecimal(t):
		return int(t.(sql.DecimalType).Scale()), true
	}
	return 0, false
}

// doubleDecimalsFixed gives a text-protocol result's DOUBLE fields the
// decimals the rule noted for s's statement (below fieldsFixed, which
// sets 31 first; above textFloats, which prints them).
func (e *Engine) doubleDecimalsFixed(s *Session, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	if s == nil {
		return cb
	}
	// A statement starts: what an earlier one noted is no longer its (a
	// statement answered without analysis, by a cached plan, notes
	// nothing).
	s.resultDec = nil
	return func(res *sqltypes.Result, more bool) error {
		if rd := s.resultDec; rd != nil && len(res.Fields) == len(rd.names) {
			for i, f := range res.Fields {
				if rd.dec[i] < 0 || (f.Type != sqltypes.Float64 && f.Type != sqltypes.Time) || !strings.EqualFold(f.Name, rd.names[i]) {
					continue
				}
				if f.Decimals != uint32(rd.dec[i]) {
					f.Decimals = uint32(rd.dec[i])
				}
			}
		}
		return cb(res, more)
	}
}
