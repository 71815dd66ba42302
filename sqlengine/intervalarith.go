package sqlengine

import (
	"reflect"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// `x + INTERVAL n unit`, `INTERVAL n unit + x` and `x - INTERVAL n unit`
// are DATE_ADD and DATE_SUB, as MySQL's parser makes them
// (Item_date_add_interval). GMS built an arithmetic operator typed
// DATETIME, which arith/dateinterval.go turns into DATE_ADD only after
// the derived tables and views above it had taken that type: `SELECT *
// FROM (SELECT d + INTERVAL 1 DAY x ...) s ORDER BY ...` printed a DATE
// as '2020-02-01 00:00:00'. Rewritten in the parse tree, every reader
// sees DATE_ADD's type; the column keeps its name (the text as written).

// intervalArith rewrites stmt's date +/- INTERVAL operators.
func intervalArith(stmt ast.Statement) {
	if stmt == nil {
		return
	}
	walkStatement(stmt, func(n ast.SQLNode) (bool, error) { // bitliteral.go
		replaceIntervalArith(n)
		return true, nil
	})
}

var exprType = reflect.TypeOf((*ast.Expr)(nil)).Elem()

// replaceIntervalArith replaces the date +/- INTERVAL operators among n's
// expression fields (and the elements of its expression lists).
func replaceIntervalArith(n ast.SQLNode) {
	v := reflect.ValueOf(n)
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return
		}
		v = v.Elem()
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				replaceIn(f)
			}
		}
	case reflect.Slice:
		replaceIn(v)
	}
}

// replaceIn replaces f, an expression field or a list of expressions,
// where it is a date +/- INTERVAL.
func replaceIn(f reflect.Value) {
	switch {
	case f.Type() == exprType:
		if f.IsNil() {
			return
		}
		if d := dateArith(f.Interface().(ast.Expr)); d != nil {
			f.Set(reflect.ValueOf(d))
		}
	case f.Kind() == reflect.Slice && f.Type().Elem() == exprType:
		for i := 0; i < f.Len(); i++ {
			replaceIn(f.Index(i))
		}
	}
}

// dateArith is e as DATE_ADD or DATE_SUB, or nil.
func dateArith(e ast.Expr) ast.Expr {
	b, ok := e.(*ast.BinaryExpr)
	if !ok {
		return nil
	}
	_, lIv := b.Left.(*ast.IntervalExpr)
	rIv, rOk := b.Right.(*ast.IntervalExpr)
	switch {
	case b.Operator == ast.PlusStr && rOk && !lIv:
		return dateFunc("date_add", b.Left, rIv)
	case b.Operator == ast.PlusStr && lIv && !rOk:
		return dateFunc("date_add", b.Right, b.Left.(*ast.IntervalExpr))
	case b.Operator == ast.MinusStr && rOk && !lIv:
		return dateFunc("date_sub", b.Left, rIv)
	}
	return nil
}

func dateFunc(name string, date ast.Expr, iv *ast.IntervalExpr) ast.Expr {
	return &ast.FuncExpr{Name: ast.NewColIdent(name), Exprs: ast.SelectExprs{&ast.AliasedExpr{Expr: date}, &ast.AliasedExpr{Expr: iv}}}
}
