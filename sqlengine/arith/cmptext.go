package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
)

// A string literal compared with a column it does not read as:
//
//   - with a DATE, DATETIME or TIMESTAMP, text that is no date (`d =
//     'a'`, `d IN ('a', 'b')`, `d BETWEEN 'x' AND ...`): MySQL reads the
//     zero date, with warning 1292, and compares; GMS failed the
//     statement (1105 "Incorrect datetime value"). Only text that
//     neither GMS nor MySQL's date forms (ParseDateText) read is
//     replaced: what GMS reads compares as before.
//   - with a number (an integer, DECIMAL, DOUBLE or BIT column), text
//     that is not a whole number (`id = '1x'`): MySQL compares the two as
//     DOUBLEs, the text read by its leading number with 1292; GMS
//     converted the literal to the column's type and failed (1366 "'1x'
//     is not a valid value for 'int'"). Clean numeric text is GMS's.
//
// The literal is replaced, with the warning, when the statement is
// analysed (MySQL converts a constant once). In a statement that
// changes rows under strict mode (StrictWrite) the warning is MySQL 8's
// error 1292 (WL#6891): UPDATE t SET c = c + 1 WHERE id = '1bad' fails.
// FoldConstants replaces them, and BadTextRule in the statements it does
// not see.

// BadTextRuleID is BadTextRule's.
const BadTextRuleID analyzer.RuleId = 1061

// BadTextRule replaces the literals of a single-table UPDATE or DELETE,
// which runs no OnceBeforeDefault rule (so no FoldConstants) before its
// index lookups read them (AlwaysBeforeDefault). Other statements are
// FoldConstants'.
func BadTextRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch n.(type) {
	case *plan.Update, *plan.DeleteFrom:
	default:
		return n, transform.SameTree, nil
	}
	if !n.Resolved() {
		return n, transform.SameTree, nil
	}
	strict := StrictWrite(ctx, n)
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		ne, ok, err := fixCmpText(ctx, e, strict)
		if err != nil {
			return e, transform.SameTree, err
		}
		same := transform.SameTree
		if ok {
			e, same = ne, transform.NewTree
		}
		ne, sameNum, err := writeComparisons(e, strict) // strictcmp.go
		return ne, same && sameNum, err
	})
}

// fixCmpText gives e with such literals replaced; ok=false when e is no
// such comparison.
func fixCmpText(ctx *sql.Context, e sql.Expression, strict bool) (sql.Expression, bool, error) {
	f := &textFixer{ctx: ctx, strict: strict}
	out, ok := f.replace(e)
	if f.refused != "" {
		return nil, false, mysqlerr.New(mysqlerr.ErWrongValue, "%s", f.refused)
	}
	return out, ok, nil
}

// textFixer replaces the literals of one expression.
type textFixer struct {
	ctx     *sql.Context
	strict  bool
	refused string // the first warning, under strict
}

func (f *textFixer) replace(e sql.Expression) (sql.Expression, bool) {
	switch x := e.(type) {
	case *expression.InTuple:
		tup, ok := x.Right().(expression.Tuple)
		if !ok {
			return nil, false
		}
		elems := make([]sql.Expression, len(tup))
		changed := false
		for i, el := range tup {
			elems[i] = el
			if z, ok := f.fix(x.Left(), el); ok {
				elems[i], changed = z, true
			}
		}
		if !changed {
			return nil, false
		}
		return expression.NewInTuple(x.Left(), expression.NewTuple(elems...)), true
	case *expression.Between:
		lo, okLo := f.fix(x.Val, x.Lower)
		hi, okHi := f.fix(x.Val, x.Upper)
		if !okLo && !okHi {
			return nil, false
		}
		if !okLo {
			lo = x.Lower
		}
		if !okHi {
			hi = x.Upper
		}
		return expression.NewBetween(x.Val, lo, hi), true
	case expression.Comparer:
		l, r := x.Left(), x.Right()
		if z, ok := f.fix(l, r); ok {
			r = z
		} else if z, ok := f.fix(r, l); ok {
			l = z
		} else {
			return nil, false
		}
		ne, err := x.WithChildren(l, r)
		if err != nil {
			return nil, false
		}
		return ne, true
	}
	return nil, false
}

// fix is the literal lit, compared with col, replaced when col is a
// column (no literal) it does not read as.
func (f *textFixer) fix(col, lit sql.Expression) (sql.Expression, bool) {
	if _, ok := col.(*expression.Literal); ok {
		return nil, false
	}
	if z, ok := numDateLiteral(col, lit, f.warn); ok { // numdatecmp.go
		return z, true
	}
	l, ok := lit.(*expression.Literal)
	if !ok {
		return nil, false
	}
	s, ok := l.Value().(string)
	if !ok || !types.IsText(l.Type()) {
		return nil, false
	}
	switch ct := col.Type(); {
	case types.IsTime(ct):
		if _, _, err := types.DatetimeMaxPrecision.Convert(f.ctx, s); err == nil {
			return nil, false
		}
		if _, ok := ParseDateText(s); ok {
			return nil, false
		}
		if !f.warn("Truncated incorrect datetime value: '" + s + "'") {
			return nil, false
		}
		return expression.NewLiteral(types.DatetimeMaxPrecision.Zero(), types.DatetimeMaxPrecision), true
	case IsIntegerType(ct) || types.IsDecimal(ct) || types.IsFloat(ct) || types.IsBit(ct):
		v, clean := stringDouble(s)
		if clean && !types.IsBit(ct) {
			return nil, false // a number: GMS's
		}
		if clean {
			// A BIT compares with text as a number too: GMS read '1'
			// as its byte (49) and failed, 1105 "beyond the maximum
			// value that can be held by 2 bits".
			return expression.NewLiteral(v, types.Float64), true
		}
		if !f.warn("Truncated incorrect DOUBLE value: '" + s + "'") {
			return nil, false
		}
		return expression.NewLiteral(v, types.Float64), true
	}
	return nil, false
}

// warn gives warning 1292 with msg, or under strict keeps it as the
// statement's error (false).
func (f *textFixer) warn(msg string) bool {
	if f.strict {
		if f.refused == "" {
			f.refused = msg
		}
		return false
	}
	f.ctx.Warn(mysqlerr.ErWrongValue, "%s", msg)
	return true
}
