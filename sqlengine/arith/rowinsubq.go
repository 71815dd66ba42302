package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// A row IN a subquery, (a, b) IN (SELECT c, d ...), is the OR of the
// row comparisons with the subquery's rows (rowcmp.go): NULL, not TRUE,
// when the row matches only where a NULL is compared ((20, NULL) with a
// row (20, NULL)), and NULL, not FALSE, when no row differs in a
// component that is not NULL. GMS looked the row up in a hash set of the
// subquery's rows, NULLs equal (mtr subselect_nulls). In WHERE GMS plans
// most of them as semi joins; this is the expression that stays (select
// list, IS UNKNOWN, OR).

// rowInSubquery is a plan.InSubquery whose left side is a row: a row
// constructor or a subquery of one row.
type rowInSubquery struct {
	*plan.InSubquery
	left  expression.Tuple // nil: the left side is a row subquery
	ltyps []sql.Type
	sub   *plan.Subquery
}

// newRowInSubquery is in as a rowInSubquery, or nil.
func newRowInSubquery(in *plan.InSubquery) sql.Expression {
	sub, ok := in.RightChild.(*plan.Subquery)
	if !ok || sub.Query == nil {
		return nil
	}
	n := len(sub.Query.Schema())
	r := &rowInSubquery{InSubquery: in, sub: sub}
	switch l := in.LeftChild.(type) {
	case expression.Tuple:
		r.left = l
		for _, e := range l {
			r.ltyps = append(r.ltyps, e.Type())
		}
	case *plan.Subquery:
		if l.Query == nil {
			return nil
		}
		for _, c := range l.Query.Schema() {
			r.ltyps = append(r.ltyps, c.Type)
		}
	default:
		return nil
	}
	if n < 2 || len(r.ltyps) != n {
		return nil
	}
	return r
}

func (r *rowInSubquery) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	ne, err := r.InSubquery.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if in, ok := ne.(*plan.InSubquery); ok {
		if out := newRowInSubquery(in); out != nil {
			return out, nil
		}
	}
	return ne, nil
}

func (r *rowInSubquery) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv := make([]any, len(r.ltyps))
	if r.left != nil {
		for i, e := range r.left {
			v, err := e.Eval(ctx, row)
			if err != nil {
				return nil, err
			}
			lv[i] = v
		}
	} else {
		v, err := r.LeftChild.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		switch x := v.(type) {
		case nil: // no row: every component NULL
		case []any:
			if len(x) != len(lv) {
				return r.InSubquery.Eval(ctx, row)
			}
			copy(lv, x)
		default:
			return r.InSubquery.Eval(ctx, row)
		}
	}
	rows, err := r.sub.EvalMultiple(ctx, row)
	if err != nil {
		return nil, err
	}
	sch := r.sub.Query.Schema()
	null := false
	for _, rr := range rows {
		rv, ok := rr.([]any)
		if !ok || len(rv) != len(lv) {
			return r.InSubquery.Eval(ctx, row)
		}
		// The row's =: FALSE at a component that differs, else NULL
		// at a NULL one, else TRUE.
		differ, rowNull := false, false
		for i := range lv {
			if lv[i] == nil || rv[i] == nil {
				rowNull = true
				continue
			}
			c, err := expression.NewEquals(expression.NewLiteral(lv[i], r.ltyps[i]), expression.NewLiteral(rv[i], sch[i].Type)).Eval(ctx, nil)
			if err != nil {
				return nil, err
			}
			if c == nil {
				rowNull = true
				continue
			}
			if b, ok := c.(bool); ok && !b {
				differ = true
				break
			}
		}
		switch {
		case differ:
		case rowNull:
			null = true
		default:
			return true, nil
		}
	}
	if null {
		return nil, nil
	}
	return false, nil
}
