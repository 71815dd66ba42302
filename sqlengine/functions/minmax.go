package functions

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"petrel/sqlengine/arith"
)

// GREATEST and LEAST over DECIMAL arguments. GMS's refuse any DECIMAL
// value (1105 "unsupported type for greatest/least argument"), so
// GREATEST(price, 0) over a DECIMAL column failed. MySQL compares
// numbers as integers when all are integers, as DOUBLEs when one is a
// DOUBLE, else as DECIMALs; the DECIMAL result has the arguments'
// largest scale and integer digits (GREATEST(CAST(1.5 AS DECIMAL(5,2)),
// 2) is 2.00). Arguments of other kinds, or no DECIMAL among them, go to
// GMS's functions as before.

type minMax struct {
	name     string // "greatest" or "least"
	args     []sql.Expression
	gms      sql.Expression
	greatest bool
	// mine: the arguments are numbers with a DECIMAL among them; double:
	// one of them is approximate (the comparison and result are DOUBLE).
	mine, double bool
	typ          sql.Type
	// text: every argument is a nonbinary string, compared by the first
	// one's collation.
	text sql.Type
	// mode, modeType: minmaxmodes.go's comparisons.
	mode     minMaxMode
	modeType sql.Type
}

func newGreatest(args ...sql.Expression) (sql.Expression, error) {
	return newMinMax("greatest", true, args)
}

func newLeast(args ...sql.Expression) (sql.Expression, error) {
	return newMinMax("least", false, args)
}

func newMinMax(name string, greatest bool, args []sql.Expression) (sql.Expression, error) {
	// ENUM and SET arguments compare as their member text (enumtext.go);
	// GMS refused them.
	copied := false
	for i, a := range args {
		if a.Resolved() && enumOrSet(a.Type()) {
			if !copied {
				args, copied = append([]sql.Expression(nil), args...), true
			}
			args[i] = &enumText{child: a}
		}
	}
	var g sql.Expression
	var err error
	if greatest {
		g, err = function.NewGreatest(args...)
	} else {
		g, err = function.NewLeast(args...)
	}
	m := &minMax{name: name, args: args, gms: g, greatest: greatest}
	m.mine, m.double, m.typ = decimalArgs(args)
	m.text = textArgs(args)
	if !m.mine && m.text == nil {
		m.mode, m.modeType = minMaxModeOf(args)
	}
	// GMS refuses a TIME argument, which minmaxmodes.go compares.
	if err != nil && m.mode == modeOther {
		return nil, err
	}
	return m, nil
}

// decimalArgs reports whether args are resolved numbers with a DECIMAL
// among them, whether one is approximate, and the result's type.
func decimalArgs(args []sql.Expression) (mine, double bool, typ sql.Type) {
	dec := false
	intDigits, scale := 0, 0
	for _, a := range args {
		if !a.Resolved() {
			return false, false, nil
		}
		t := a.Type()
		if svt, ok := t.(sql.SystemVariableType); ok {
			t = svt.UnderlyingType()
		}
		switch {
		case types.IsDecimal(t):
			dec = true
			dt := t.(sql.DecimalType)
			intDigits = max(intDigits, int(dt.Precision())-int(dt.Scale()))
			scale = max(scale, int(dt.Scale()))
		case types.IsFloat(t):
			double = true
		case arith.IsIntegerType(t):
			p, _, _ := arith.ExactDigits(t)
			intDigits = max(intDigits, p)
		case t == types.Null:
		default:
			return false, false, nil
		}
	}
	if !dec {
		return false, false, nil
	}
	if double {
		return true, true, types.Float64
	}
	dt, err := types.CreateDecimalType(uint8(min(intDigits+scale, types.DecimalTypeMaxPrecision)), uint8(scale))
	if err != nil {
		return false, false, nil
	}
	return true, false, dt
}

func (m *minMax) Resolved() bool {
	for _, a := range m.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (m *minMax) String() string {
	s := make([]string, len(m.args))
	for i, a := range m.args {
		s[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", m.name, strings.Join(s, ","))
}

func (m *minMax) Type() sql.Type {
	if m.mine {
		return m.typ
	}
	if m.mode != modeOther {
		return m.modeType
	}
	return m.gms.Type()
}

func (m *minMax) IsNullable() bool {
	for _, a := range m.args {
		if a.IsNullable() {
			return true
		}
	}
	return false
}
func (m *minMax) Children() []sql.Expression { return m.args }
func (m *minMax) FunctionName() string       { return m.name }
func (m *minMax) Description() string        { return "MySQL's " + m.name }
func (m *minMax) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return newMinMax(m.name, m.greatest, children)
}

// textArgs is the type whose collation compares args when all are
// nonbinary strings (or NULL), else nil. GMS compared them as bytes, so
// LEAST('a', 'B') was 'B' where utf8mb4_0900_ai_ci makes it 'a'.
func textArgs(args []sql.Expression) sql.Type {
	var first sql.Type
	for _, a := range args {
		if !a.Resolved() {
			return nil
		}
		t := a.Type()
		if t == types.Null {
			continue
		}
		if !types.IsText(t) || types.IsBinaryType(t) {
			return nil
		}
		if first == nil {
			first = t
		}
	}
	return first
}

func (m *minMax) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if m.text != nil {
		return m.evalText(ctx, row)
	}
	if m.mode != modeOther {
		return m.evalMode(ctx, row)
	}
	if !m.mine {
		return m.gms.Eval(ctx, row)
	}
	var best decimal.Decimal
	var bestF float64
	for i, a := range m.args {
		v, err := a.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, err
		}
		if m.double {
			f, _, err := types.Float64.Convert(ctx, v)
			if err != nil {
				return nil, err
			}
			x := f.(float64)
			if i == 0 || (m.greatest && x > bestF) || (!m.greatest && x < bestF) {
				bestF = x
			}
			continue
		}
		c, _, err := types.InternalDecimalType.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		var d decimal.Decimal
		switch x := c.(type) {
		case decimal.Decimal:
			d = x
		case decimal.NullDecimal:
			d = x.Decimal
		default:
			return nil, fmt.Errorf("%s: %v is not a number", m.name, v)
		}
		if c := d.Cmp(best); i == 0 || (m.greatest && c > 0) || (!m.greatest && c < 0) {
			best = d
		}
	}
	if m.double {
		return bestF, nil
	}
	// At the result's scale: GREATEST(2, 1.50) is 2.00.
	return best.Round(int32(m.typ.(sql.DecimalType).Scale())), nil
}

// evalText picks the greatest or least string by m.text's collation.
func (m *minMax) evalText(ctx *sql.Context, row sql.Row) (any, error) {
	var best any
	for i, a := range m.args {
		v, err := a.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, err
		}
		if i == 0 {
			best = v
			continue
		}
		x, y := v, best
		if m.padSpace() {
			// PAD SPACE (every collation but the _0900_ ones): trailing
			// spaces do not count.
			xs, ok1 := x.(string)
			ys, ok2 := y.(string)
			if ok1 && ok2 {
				x, y = strings.TrimRight(xs, " "), strings.TrimRight(ys, " ")
			}
		}
		c, err := m.text.Compare(ctx, x, y)
		if err != nil {
			return m.gms.Eval(ctx, row)
		}
		if (m.greatest && c > 0) || (!m.greatest && c < 0) {
			best = v
		}
	}
	return best, nil
}

func (m *minMax) padSpace() bool {
	st, ok := m.text.(sql.StringType)
	return ok && !strings.Contains(st.Collation().Name(), "_0900_")
}
