package functions

import (
	"math"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"petrel/sqlengine/arith"
)

// FORMAT(x, d) of a DOUBLE (or of text, read as one) as MySQL's: x
// rounded to d decimals as ROUND rounds a DOUBLE (half to even on
// x*10^d), printed with all its integer digits, grouped by commas. GMS
// went through an int64, so FORMAT(1e20, 2) was
// '7,766,279,631,452,241,920.00' and FORMAT(1.5e300, 1) '0.0'. Integers,
// DECIMALs and a locale other than en_US go to GMS's FORMAT.

// formatMaxDecimals is MySQL's FORMAT_MAX_DECIMALS.
const formatMaxDecimals = 30

func newFormat(args ...sql.Expression) (sql.Expression, error) {
	g, err := function.NewFormat(args...)
	if err != nil {
		return nil, err
	}
	return &delegate{name: "format", args: args, gms: g, mk: newFormat, eval: formatDouble}, nil
}

func formatDouble(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	if t := args[0].Type(); !types.IsFloat(t) && !types.IsText(t) {
		return nil, false, nil
	}
	vals := make([]any, len(args))
	for i, a := range args {
		v, err := a.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, true, err
		}
		vals[i] = v
	}
	if len(vals) == 3 {
		if loc, ok := vals[2].(string); !ok || !strings.EqualFold(loc, "en_US") {
			return nil, false, nil
		}
	}
	var f float64
	switch x := vals[0].(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case string:
		f = textDouble(ctx, x)
	default:
		return nil, false, nil
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false, nil
	}
	d := min(max(argInt(ctx, vals[1]), 0), formatMaxDecimals)
	if p := math.Pow(10, float64(d)); !math.IsInf(f*p, 0) {
		f = math.RoundToEven(f*p) / p
	}
	s := decimal.NewFromFloat(f).StringFixed(int32(d))
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if neg && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if d > 0 {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String(), true, nil
}

// textDouble is s read as a DOUBLE by its leading number, with warning
// 1292 when more follows or there is none ('abc' is 0).
func textDouble(ctx *sql.Context, s string) float64 {
	start, end, ok := arith.NumberSpan(s)
	var f float64
	if ok {
		f, _ = strconv.ParseFloat(s[start:end], 64)
	}
	if !ok || strings.TrimRight(s[end:], " \t\r\n") != "" {
		ctx.Warn(1292, "Truncated incorrect DOUBLE value: '%s'", s)
	}
	return f
}
