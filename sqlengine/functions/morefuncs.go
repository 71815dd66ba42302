package functions

import (
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Functions GMS lacks (it answered 1305), as MySQL 8's:
//   - INSERT(str, pos, len, newstr): str with len characters from pos
//     replaced by newstr; str itself when pos is outside it, the rest of
//     str replaced when len runs past its end or is negative;
//   - MAKE_SET(bits, str1, ...): the strings whose bit is set in bits,
//     comma-separated, NULL strings skipped;
//   - EXPORT_SET(bits, on, off[, sep[, n]]): on or off for each of bits'
//     n lowest bits (64 when n is missing, negative or above 64), lowest
//     first, joined by sep (',');
//   - MAKEDATE(year, dayofyear): the date, NULL for a day of year below 1
//     or a date past 9999; a year below 100 is read as a two-digit one;
//   - UTC_TIME([fsp]): the statement's UTC time of day, whole seconds
//     unless fsp (a fraction prints with six digits: GMS's TIME has no
//     precision).
// Any NULL argument makes the result NULL, except MAKE_SET's strings.

// scalarFn is a function of evaluated arguments.
type scalarFn struct {
	name string
	args []sql.Expression
	typ  sql.Type
	// eval answers from the arguments' values (NULLs included).
	eval func(ctx *sql.Context, vals []any) (any, error)
	mk   func(args ...sql.Expression) (sql.Expression, error)
	// volatile: the value depends on the clock.
	volatile bool
}

func (f *scalarFn) Resolved() bool {
	for _, a := range f.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (f *scalarFn) String() string {
	s := make([]string, len(f.args))
	for i, a := range f.args {
		s[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", strings.ToUpper(f.name), strings.Join(s, ","))
}

func (f *scalarFn) Type() sql.Type                                           { return f.typ }
func (f *scalarFn) IsNullable() bool                                         { return true }
func (f *scalarFn) Children() []sql.Expression                               { return f.args }
func (f *scalarFn) FunctionName() string                                     { return f.name }
func (f *scalarFn) Description() string                                      { return "MySQL's " + f.name }
func (f *scalarFn) IsNonDeterministic() bool                                 { return f.volatile }
func (f *scalarFn) WithChildren(c ...sql.Expression) (sql.Expression, error) { return f.mk(c...) }

func (f *scalarFn) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	vals := make([]any, len(f.args))
	for i, a := range f.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if vals[i], err = sql.UnwrapAny(ctx, v); err != nil {
			return nil, err
		}
	}
	return f.eval(ctx, vals)
}

// anyNull: one of vals is NULL.
func anyNull(vals []any) bool {
	for _, v := range vals {
		if v == nil {
			return true
		}
	}
	return false
}

// argInt is v as a BIGINT (a string by its leading number, GMS's
// conversion).
func argInt(ctx *sql.Context, v any) int64 {
	n, _, err := types.Int64.Convert(ctx, v)
	if err != nil {
		return 0
	}
	i, _ := n.(int64)
	return i
}

// argUint is v as a BIGINT UNSIGNED (a negative integer's 64 bits).
func argUint(ctx *sql.Context, v any) uint64 {
	if n, _, err := types.Uint64.Convert(ctx, v); err == nil {
		if u, ok := n.(uint64); ok {
			return u
		}
	}
	return uint64(argInt(ctx, v))
}

func argText(ctx *sql.Context, v any) string {
	s, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return fmt.Sprint(v)
	}
	str, _ := s.(string)
	return str
}

func newInsertFunc(args ...sql.Expression) (sql.Expression, error) {
	if len(args) != 4 {
		return nil, sql.ErrInvalidArgumentNumber.New("INSERT", 4, len(args))
	}
	return &scalarFn{name: "insert", args: args, typ: types.LongText, mk: newInsertFunc, eval: func(ctx *sql.Context, vals []any) (any, error) {
		if anyNull(vals) {
			return nil, nil
		}
		s := []rune(argText(ctx, vals[0]))
		pos, n := argInt(ctx, vals[1]), argInt(ctx, vals[2])
		if pos < 1 || pos > int64(len(s)) {
			return string(s), nil
		}
		start := int(pos - 1)
		if n < 0 || n > int64(len(s)-start) {
			n = int64(len(s) - start)
		}
		return string(s[:start]) + argText(ctx, vals[3]) + string(s[start+int(n):]), nil
	}}, nil
}

func newMakeSet(args ...sql.Expression) (sql.Expression, error) {
	if len(args) < 2 {
		return nil, sql.ErrInvalidArgumentNumber.New("MAKE_SET", 2, len(args))
	}
	return &scalarFn{name: "make_set", args: args, typ: types.LongText, mk: newMakeSet, eval: func(ctx *sql.Context, vals []any) (any, error) {
		if vals[0] == nil {
			return nil, nil
		}
		bits := argUint(ctx, vals[0])
		var out []string
		for i, v := range vals[1:] {
			if i < 64 && bits&(1<<uint(i)) != 0 && v != nil {
				out = append(out, argText(ctx, v))
			}
		}
		return strings.Join(out, ","), nil
	}}, nil
}

func newExportSet(args ...sql.Expression) (sql.Expression, error) {
	if len(args) < 3 || len(args) > 5 {
		return nil, sql.ErrInvalidArgumentNumber.New("EXPORT_SET", "3 to 5", len(args))
	}
	return &scalarFn{name: "export_set", args: args, typ: types.LongText, mk: newExportSet, eval: func(ctx *sql.Context, vals []any) (any, error) {
		if anyNull(vals) {
			return nil, nil
		}
		bits := argUint(ctx, vals[0])
		on, off, sep, n := argText(ctx, vals[1]), argText(ctx, vals[2]), ",", int64(64)
		if len(vals) > 3 {
			sep = argText(ctx, vals[3])
		}
		if len(vals) > 4 {
			if n = argInt(ctx, vals[4]); n < 0 || n > 64 {
				n = 64
			}
		}
		var b strings.Builder
		for i := int64(0); i < n; i++ {
			if i > 0 {
				b.WriteString(sep)
			}
			if bits&(1<<uint(i)) != 0 {
				b.WriteString(on)
			} else {
				b.WriteString(off)
			}
		}
		return b.String(), nil
	}}, nil
}

func newMakeDate(args ...sql.Expression) (sql.Expression, error) {
	if len(args) != 2 {
		return nil, sql.ErrInvalidArgumentNumber.New("MAKEDATE", 2, len(args))
	}
	return &scalarFn{name: "makedate", args: args, typ: types.Date, mk: newMakeDate, eval: func(ctx *sql.Context, vals []any) (any, error) {
		if anyNull(vals) {
			return nil, nil
		}
		year, day := argInt(ctx, vals[0]), argInt(ctx, vals[1])
		if day < 1 || year < 0 || year > 9999 || day > 3652424 {
			return nil, nil
		}
		if year < 100 {
			// Two digits: 70-99 are 1970-1999, 0-69 2000-2069.
			if year < 70 {
				year += 2000
			} else {
				year += 1900
			}
		}
		d := time.Date(int(year), time.January, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(day-1))
		if d.Year() > 9999 {
			return nil, nil
		}
		return d, nil
	}}, nil
}

func newUTCTime(args ...sql.Expression) (sql.Expression, error) {
	if len(args) > 1 {
		return nil, sql.ErrInvalidArgumentNumber.New("UTC_TIME", "0 or 1", len(args))
	}
	return &scalarFn{name: "utc_time", args: args, typ: types.Time, mk: newUTCTime, volatile: true, eval: func(ctx *sql.Context, vals []any) (any, error) {
		fsp := int64(0)
		if len(vals) == 1 {
			if vals[0] == nil {
				return nil, nil
			}
			fsp = argInt(ctx, vals[0])
			if fsp < 0 || fsp > 6 {
				return nil, sql.ErrInvalidArgument.New("utc_time")
			}
		}
		t := ctx.QueryTime().UTC()
		unit := time.Second
		for i := int64(0); i < fsp; i++ {
			unit /= 10
		}
		day := t.Sub(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)).Truncate(unit)
		return types.Time.MicrosecondsToTimespan(day.Microseconds()), nil
	}}, nil
}
