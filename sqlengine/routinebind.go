package sqlengine

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"
)

// bind gives each unqualified column name below st that names one of
// the routine's variables or parameters that variable's value, which
// GMS's planner reads in place of the column (ColName.StoredProcVal).
// Every expression is bound, as MySQL reads a routine's variables
// wherever a column name may stand (GMS's interpreter bound some kinds
// of expression only); the targets of SET and UPDATE's assignments and
// INTO's variables are names, not values, and DDL is left alone.
func (r *routineRun) bind(st ast.SQLNode) {
	if st == nil {
		return
	}
	if _, ok := st.(*ast.DDL); ok {
		return
	}
	r.bindValue(reflect.ValueOf(st))
}

var (
	colNameType    = reflect.TypeOf(ast.ColName{})
	assignExprType = reflect.TypeOf(ast.AssignmentExpr{})
	setVarExprType = reflect.TypeOf(ast.SetVarExpr{})
	intoType       = reflect.TypeOf(ast.Into{})
)

func (r *routineRun) bindValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			r.bindValue(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			r.bindValue(v.Index(i))
		}
	case reflect.Struct:
		switch v.Type() {
		case colNameType:
			if v.CanAddr() {
				r.bindColumn(v.Addr().Interface().(*ast.ColName))
			}
			return
		case intoType:
			return
		}
		skipName := v.Type() == assignExprType || v.Type() == setVarExprType
		for i := 0; i < v.NumField(); i++ {
			if skipName && v.Type().Field(i).Name == "Name" {
				continue
			}
			if f := v.Field(i); f.CanSet() {
				r.bindValue(f)
			}
		}
	}
}

// bindColumn binds c when it names a variable.
func (r *routineRun) bindColumn(c *ast.ColName) {
	if !c.Qualifier.IsEmpty() {
		return
	}
	name := c.Name.Lowered()
	if iv := r.stack.GetVariable(name); iv != nil {
		c.StoredProcVal = literalOf(iv.Value)
		return
	}
	if spp := r.ctx.Session.GetStoredProcParam(name); spp != nil {
		c.StoredProcVal = literalOf(spp.Value)
	}
}

// literalOf is value v as an SQL literal.
func literalOf(v any) ast.Expr {
	switch x := v.(type) {
	case nil:
		return &ast.NullVal{}
	case ast.Expr:
		return x // a DEFAULT as GMS keeps it
	case bool:
		if x {
			return ast.NewIntVal([]byte("1"))
		}
		return ast.NewIntVal([]byte("0"))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return ast.NewIntVal([]byte(fmt.Sprint(x)))
	case float32:
		return ast.NewFloatVal([]byte(strconv.FormatFloat(float64(x), 'g', -1, 32)))
	case float64:
		return ast.NewFloatVal([]byte(strconv.FormatFloat(x, 'f', -1, 64)))
	case decimal.Decimal:
		return ast.NewStrVal([]byte(x.String()))
	case time.Time:
		return ast.NewStrVal([]byte(x.Format("2006-01-02 15:04:05.999999")))
	case types.Timespan:
		return ast.NewStrVal([]byte(x.String()))
	case []byte:
		return ast.NewStrVal(x)
	case string:
		return ast.NewStrVal([]byte(x))
	}
	return ast.NewStrVal([]byte(fmt.Sprint(v)))
}
