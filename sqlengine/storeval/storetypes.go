package storeval

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
	"petrel/sqlengine/sqlmode"
	"petrel/storage/keys"
)

// Value's rules for the column types other than integers and
// character strings: DECIMAL, FLOAT/DOUBLE, YEAR, BIT, ENUM, SET, DATE,
// DATETIME, TIMESTAMP and TIME (storevalue.go has the frame). GMS keeps
// no declared precision for TIME, so a TIME column keeps microseconds.

// numberOf reads v as a decimal number for a numeric column: Go numbers
// as they are, strings by their numeric prefix (1366 when there is none,
// 1265 for what follows it). ok=false with a nil error: not a number
// Value knows (left to GMS).
func numberOf(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int, kind string) (d decimal.Decimal, ok bool, err error) {
	switch x := v.(type) {
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint, uint64:
		d, _ = decimal.NewFromString(fmt.Sprint(x))
		return d, true, nil
	case float32:
		return decimal.NewFromFloat32(x), true, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return d, false, nil
		}
		return decimal.NewFromFloat(x), true, nil
	case decimal.Decimal:
		return x, true, nil
	case bool:
		if x {
			return decimal.NewFromInt(1), true, nil
		}
		return decimal.Zero, true, nil
	case string:
		n, parsed, truncated := parseNumberPrefix(x)
		if !parsed {
			if _, err := warnOrFail(ctx, m, mysqlerr.ErTruncatedWrongValue, nil,
				fmt.Sprintf("Incorrect %s value: '%s' for column '%s' at row %d", kind, x, col.Name, rowNum)); err != nil {
				return d, false, err
			}
			return decimal.Zero, true, nil
		}
		if truncated {
			if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataTruncated, nil,
				fmt.Sprintf("Data truncated for column '%s' at row %d", col.Name, rowNum)); err != nil {
				return d, false, err
			}
		}
		return n, true, nil
	}
	return d, false, nil
}

func outOfRange(col *sql.Column, rowNum int) string {
	return fmt.Sprintf("Out of range value for column '%s' at row %d", col.Name, rowNum)
}

func storeDecimal(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	dt, isDec := col.Type.(sql.DecimalType)
	if !isDec {
		return v, nil
	}
	if d, ok := v.(decimal.Decimal); ok && keys.DecimalFits(col.Type, d) {
		// The common case: already at the column's scale and within its
		// range (no bound built, nothing rounded).
		return v, nil
	}
	if r, ok := smallDecimal(dt, v); ok {
		return r, nil
	}
	d, ok, err := numberOf(ctx, m, col, v, rowNum, "decimal")
	if err != nil || !ok {
		return v, err
	}
	scale := int32(dt.Scale())
	r := d.Round(scale)
	max := dt.ExclusiveUpperBound().Sub(decimal.New(1, -scale))
	switch {
	case r.GreaterThan(max):
		if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataOutOfRange, nil, outOfRange(col, rowNum)); err != nil {
			return nil, err
		}
		return max, nil
	case r.LessThan(max.Neg()):
		if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataOutOfRange, nil, outOfRange(col, rowNum)); err != nil {
			return nil, err
		}
		return max.Neg(), nil
	}
	if !r.Equal(d) {
		// Rounded away digits are a note, in every mode.
		if m.Exact {
			return nil, storeError(mysqlerr.ErWarnDataTruncated, "Data truncated for column '%s' at row %d", col.Name, rowNum)
		}
		ctx.Session.Warn(&sql.Warning{Level: "Note", Code: mysqlerr.ErWarnDataTruncated,
			Message: fmt.Sprintf("Data truncated for column '%s' at row %d", col.Name, rowNum)})
	}
	return r, nil
}

// smallDecimal is storeDecimal's answer for an integer, or a DECIMAL of
// at most 18 digits, stored exactly (no digit rounded away) within a
// column of at most 18 digits: the value at the column's scale, made in
// int64 arithmetic. The general path built the column's bound and
// rounded and compared through big.Int powers of ten for every value (a
// fifth of the CPU of an INSERT ... SELECT computing three DECIMAL
// columns, bench/tpchscan/setup.sql). Anything else, a value out of
// range or one that loses digits (a warning or a note), takes the
// general path.
func smallDecimal(dt sql.DecimalType, v any) (decimal.Decimal, bool) {
	p, s := int32(dt.Precision()), int32(dt.Scale())
	if p > 18 {
		return decimal.Decimal{}, false
	}
	var c int64
	var e int32
	if d, ok := v.(decimal.Decimal); ok {
		sd, ok := arith.SmallOf(d)
		if !ok {
			return decimal.Decimal{}, false
		}
		c, e = sd.C, sd.E
	} else {
		n, big, _, ok := arith.IntOperand(v)
		if _, isBool := v.(bool); !ok || big || isBool {
			return decimal.Decimal{}, false
		}
		c = n
	}
	switch {
	case e < -s: // fractional digits past the scale: exact only if zero
		k := -s - e
		if k > 18 || c%arith.Pow10(k) != 0 {
			return decimal.Decimal{}, false
		}
		c /= arith.Pow10(k)
	case e > -s: // scaled up to the column's scale
		k := e + s
		if k > 18 || c > math.MaxInt64/arith.Pow10(k) || c < -math.MaxInt64/arith.Pow10(k) {
			return decimal.Decimal{}, false
		}
		c *= arith.Pow10(k)
	}
	if c >= arith.Pow10(p) || c <= -arith.Pow10(p) {
		return decimal.Decimal{}, false
	}
	return decimal.New(c, -s), true
}

func storeFloat(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	if digits, scale, ok := columnFloatDigits(ctx, col); ok {
		return storeFloatDigits(ctx, m, col, v, rowNum, digits, scale)
	}
	if f, ok := v.(float64); ok && !math.IsInf(f, 0) && !math.IsNaN(f) && (col.Type.Type() != sqlTypeFloat32 || math.Abs(f) <= math.MaxFloat32) {
		return v, nil // the common case
	}
	d, ok, err := numberOf(ctx, m, col, v, rowNum, "double")
	if err != nil || !ok {
		return v, err
	}
	f, _ := d.Float64()
	max := math.MaxFloat64
	if col.Type.Type() == sqlTypeFloat32 {
		max = math.MaxFloat32
	}
	if math.IsInf(f, 0) || math.Abs(f) > max {
		if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataOutOfRange, nil, outOfRange(col, rowNum)); err != nil {
			return nil, err
		}
		if f < 0 {
			return -max, nil
		}
		return max, nil
	}
	return f, nil
}

func storeYear(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	if s, ok := v.(string); ok {
		n, parsed, truncated := parseNumberPrefix(s)
		if !parsed {
			return warnOrFail(ctx, m, mysqlerr.ErTruncatedWrongValue, int16(0),
				fmt.Sprintf("Incorrect integer value: '%s' for column '%s' at row %d", s, col.Name, rowNum))
		}
		if truncated {
			if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataTruncated, nil,
				fmt.Sprintf("Data truncated for column '%s' at row %d", col.Name, rowNum)); err != nil {
				return nil, err
			}
		}
		y := n.Round(0).IntPart()
		if y == 0 {
			return int16(2000), nil // the string '0' is the year 2000
		}
		v = y
	}
	d, ok, err := numberOf(ctx, m, col, v, rowNum, "integer")
	if err != nil || !ok {
		return v, err
	}
	y := d.Round(0)
	if !y.IsInteger() || y.LessThan(decimal.Zero) || y.GreaterThan(decimal.NewFromInt(2155)) ||
		(y.GreaterThan(decimal.NewFromInt(99)) && y.LessThan(decimal.NewFromInt(1901))) {
		return warnOrFail(ctx, m, mysqlerr.ErWarnDataOutOfRange, int16(0), outOfRange(col, rowNum))
	}
	return y.IntPart(), nil
}

func storeBit(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	bt, ok := col.Type.(types.BitType)
	if !ok {
		return v, nil
	}
	var u uint64
	tooLong := false
	switch x := v.(type) {
	case []byte:
		if len(x) > 8 {
			tooLong = true
		}
		for _, b := range x {
			u = u<<8 | uint64(b)
		}
	case string:
		return storeBit(ctx, m, col, []byte(x), rowNum)
	case int8, int16, int32, int64, int:
		n, _ := strconv.ParseInt(fmt.Sprint(x), 10, 64)
		u = uint64(n)
	case uint8, uint16, uint32, uint64, uint:
		u, _ = strconv.ParseUint(fmt.Sprint(x), 10, 64)
	case float64:
		u = uint64(int64(math.Round(x)))
	case decimal.Decimal:
		u = uint64(x.Round(0).IntPart())
	default:
		return v, nil
	}
	bits := bt.NumberOfBits()
	if tooLong || (bits < 64 && u >= 1<<bits) {
		if m.Strict {
			return nil, storeError(mysqlerr.ErDataTooLong, "Data too long for column '%s' at row %d", col.Name, rowNum)
		}
		ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWarnDataOutOfRange, Message: outOfRange(col, rowNum)})
		if bits >= 64 {
			return uint64(math.MaxUint64), nil
		}
		return uint64(1)<<bits - 1, nil
	}
	return u, nil
}

func truncatedMsg(col *sql.Column, rowNum int) string {
	return fmt.Sprintf("Data truncated for column '%s' at row %d", col.Name, rowNum)
}

func storeEnum(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	et, ok := col.Type.(sql.EnumType)
	if !ok {
		return v, nil
	}
	n := int64(et.NumberOfElements())
	switch x := v.(type) {
	case string:
		if et.IndexOf(x) >= 0 {
			return v, nil
		}
		if i := et.IndexOf(strings.TrimRight(x, " ")); i >= 0 {
			return int64(i), nil // trailing spaces are not part of a member
		}
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint, uint64:
		i, _ := strconv.ParseInt(fmt.Sprint(x), 10, 64)
		if i >= 1 && i <= n {
			return v, nil
		}
	default:
		return v, nil
	}
	if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataTruncated, nil, truncatedMsg(col, rowNum)); err != nil {
		return nil, err
	}
	return int64(0), nil // the empty string, the error member
}

func storeSet(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	stt, ok := col.Type.(sql.SetType)
	if !ok {
		return v, nil
	}
	members := stt.Values()
	switch x := v.(type) {
	case string:
		if x == "" {
			return v, nil
		}
		var kept []string
		bad := false
		for _, part := range strings.Split(x, ",") {
			found := ""
			for _, mb := range members {
				if strings.EqualFold(mb, strings.TrimRight(part, " ")) {
					found = mb
					break
				}
			}
			if found == "" {
				bad = true
				continue
			}
			kept = append(kept, found)
		}
		if !bad {
			return v, nil
		}
		if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataTruncated, nil, truncatedMsg(col, rowNum)); err != nil {
			return nil, err
		}
		return strings.Join(kept, ","), nil
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint, uint64:
		u, err := strconv.ParseUint(fmt.Sprint(x), 10, 64)
		all := uint64(1)<<len(members) - 1
		if err == nil && u <= all {
			return v, nil
		}
		if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataTruncated, nil, truncatedMsg(col, rowNum)); err != nil {
			return nil, err
		}
		return u & all, nil
	}
	return v, nil
}

func storeDate(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	isDate := types.IsDateType(col.Type)
	kind := "datetime"
	zero := "0000-00-00 00:00:00"
	if isDate {
		kind, zero = "date", "0000-00-00"
	}
	var p arith.DateParts
	var ok bool
	var text string
	switch x := v.(type) {
	case string:
		text = x
		p, ok = arith.ParseDateText(x)
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint, uint64:
		text = fmt.Sprint(x)
		if text == "0" {
			p, ok = arith.DateParts{}, true
		} else {
			p, ok = arith.ParseDateDigits(text)
		}
	case time.Time:
		return truncateFraction(ctx, col, x), nil
	default:
		return v, nil
	}
	mode := sqlmode.Load(ctx)
	if !ok {
		// A form this parser does not read (a time zone offset, say)
		// is GMS's to read, if it can.
		if _, _, err := col.Type.Convert(ctx, v); err == nil {
			return v, nil
		}
	}
	invalid := func() (any, error) {
		if m.Strict {
			return nil, storeError(mysqlerr.ErWrongValue, "Incorrect %s value: '%s' for column '%s' at row %d", kind, text, col.Name, rowNum)
		}
		ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWarnDataTruncated, Message: truncatedMsg(col, rowNum)})
		return zero, nil
	}
	if !ok {
		return invalid()
	}
	if p.Y == 0 && p.Mo == 0 && p.D == 0 && p.H == 0 && p.Mi == 0 && p.S == 0 && p.Us == 0 {
		if mode.ModeEnabled("NO_ZERO_DATE") {
			if m.Strict {
				return nil, storeError(mysqlerr.ErWrongValue, "Incorrect %s value: '%s' for column '%s' at row %d", kind, text, col.Name, rowNum)
			}
			ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWarnDataOutOfRange, Message: outOfRange(col, rowNum)})
		}
		return zero, nil
	}
	if p.Mo > 12 || p.H > 23 || p.Mi > 59 || p.S > 59 {
		return invalid()
	}
	if p.Mo == 0 || p.D == 0 {
		if mode.ModeEnabled("NO_ZERO_IN_DATE") {
			return invalid()
		}
		// MySQL stores a date with a zero month or day when
		// NO_ZERO_IN_DATE is off; Petrel's dates cannot hold one, so it
		// refuses the value (never stores another) with MySQL's number.
		return nil, storeError(mysqlerr.ErWrongValue, "Incorrect %s value: '%s' for column '%s' at row %d (a zero month or day is not stored by Petrel)", kind, text, col.Name, rowNum)
	}
	if p.D > arith.DaysIn(p.Y, p.Mo) {
		return invalid()
	}
	t := truncateFraction(ctx, col, time.Date(p.Y, time.Month(p.Mo), p.D, p.H, p.Mi, p.S, p.Us*1000, time.UTC))
	if isDate && (p.H != 0 || p.Mi != 0 || p.S != 0 || p.Us != 0) {
		if m.Exact {
			return nil, storeError(mysqlerr.ErWarnDataTruncated, "%s", truncatedMsg(col, rowNum))
		}
		ctx.Session.Warn(&sql.Warning{Level: "Note", Code: mysqlerr.ErWarnDataTruncated, Message: truncatedMsg(col, rowNum)})
		t = time.Date(p.Y, time.Month(p.Mo), p.D, 0, 0, 0, 0, time.UTC)
	}
	if types.IsTimestampType(col.Type) {
		// Outside TIMESTAMP's range: MySQL's 1292 under strict mode, the
		// zero timestamp with 1264 otherwise (GMS failed with 1105,
		// "outside of timestamp range").
		if _, _, err := col.Type.Convert(ctx, t); types.ErrConvertingToTimeOutOfRange.Is(err) {
			if m.Strict {
				return nil, storeError(mysqlerr.ErWrongValue, "Incorrect datetime value: '%s' for column '%s' at row %d", text, col.Name, rowNum)
			}
			ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWarnDataOutOfRange, Message: outOfRange(col, rowNum)})
			return zero, nil
		}
	}
	return t, nil
}

// maxTime is TIME's range, 838:59:59 either way, in microseconds.
const maxTime = ((838*60+59)*60 + 59) * 1_000_000

func storeTime(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	var text string
	switch x := v.(type) {
	case string:
		text = strings.TrimSpace(x)
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint, uint64:
		text = fmt.Sprint(x)
	case decimal.Decimal:
		text = x.String()
	case float64:
		text = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return v, nil
	}
	us, ok := parseTimeText(text)
	if !ok {
		if m.Strict {
			return nil, storeError(mysqlerr.ErWrongValue, "Incorrect time value: '%s' for column '%s' at row %d", text, col.Name, rowNum)
		}
		ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWarnDataTruncated, Message: truncatedMsg(col, rowNum)})
		return "00:00:00", nil
	}
	if us > maxTime || us < -maxTime {
		if m.Strict {
			return nil, storeError(mysqlerr.ErWrongValue, "Incorrect time value: '%s' for column '%s' at row %d", text, col.Name, rowNum)
		}
		ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWarnDataOutOfRange, Message: outOfRange(col, rowNum)})
		if us < 0 {
			us = -maxTime
		} else {
			us = maxTime
		}
	}
	if fsp := arith.ColumnTimeFSP(ctx, col); fsp < 6 {
		// Rounded here, before GMS compares an UPDATE's old and new
		// rows: a value that rounds to the stored one changes nothing.
		us = int64(arith.RoundTimespan(ctx, types.Timespan(us), fsp))
	}
	return formatTime(us), nil
}

// parseTimeText reads [-][D ]HH:MM[:SS][.frac] and [-]HHMMSS[.frac]
// (also MMSS and SS) into microseconds.
func parseTimeText(s string) (int64, bool) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	if s == "" {
		return 0, false
	}
	frac := int64(0)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		f := s[i+1:]
		for _, c := range f {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		f = (f + "000000")[:6]
		frac, _ = strconv.ParseInt(f, 10, 64)
		s = s[:i]
	}
	days := int64(0)
	if i := strings.IndexByte(s, ' '); i >= 0 {
		d, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil || d < 0 {
			return 0, false
		}
		days, s = d, strings.TrimSpace(s[i+1:])
	}
	var h, mi, sec int64
	if strings.Contains(s, ":") {
		parts := strings.Split(s, ":")
		if len(parts) > 3 {
			return 0, false
		}
		vals := make([]int64, 3)
		for i, p := range parts {
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil || n < 0 {
				return 0, false
			}
			vals[i] = n
		}
		h, mi, sec = vals[0], vals[1], vals[2]
	} else {
		if days != 0 {
			return 0, false
		}
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		h, mi, sec = n/10000, n/100%100, n%100
	}
	if mi > 59 || sec > 59 {
		return 0, false
	}
	us := (((days*24+h)*60+mi)*60+sec)*1_000_000 + frac
	if neg {
		us = -us
	}
	return us, true
}

func formatTime(us int64) string {
	sign := ""
	if us < 0 {
		sign, us = "-", -us
	}
	secs := us / 1_000_000
	frac := us % 1_000_000
	out := fmt.Sprintf("%s%02d:%02d:%02d", sign, secs/3600, secs/60%60, secs%60)
	if frac != 0 {
		out += fmt.Sprintf(".%06d", frac)
	}
	return out
}

const sqlTypeFloat32 = sqltypes.Float32

// truncateFraction cuts t's fraction to col's precision under
// TIME_TRUNCATE_FRACTIONAL (GMS's conversion would round it, MySQL's
// default).
func truncateFraction(ctx *sql.Context, col *sql.Column, t time.Time) time.Time {
	dt, ok := col.Type.(sql.DatetimeType)
	if !ok || dt.Precision() >= 6 || t.Nanosecond() == 0 || !sqlmode.Load(ctx).ModeEnabled("TIME_TRUNCATE_FRACTIONAL") {
		return t
	}
	unit := time.Duration(1)
	for i := dt.Precision(); i < 9; i++ {
		unit *= 10
	}
	return t.Truncate(unit)
}

// floatDigitsSession is a session that knows its tables' FLOAT(M,D)
// and DOUBLE(M,D) columns.
type floatDigitsSession interface {
	ColumnFloatDigits(col *sql.Column) (m, d int, ok bool)
}

// columnFloatDigits are the M and D of FLOAT or DOUBLE column col, as
// the session knows them; ok is false for a column without them.
func columnFloatDigits(ctx *sql.Context, col *sql.Column) (m, d int, ok bool) {
	if s, is := ctx.Session.(floatDigitsSession); is {
		return s.ColumnFloatDigits(col)
	}
	return 0, 0, false
}

// storeFloatDigits stores v in a FLOAT(M,D) or DOUBLE(M,D) column as
// MySQL's Field_real does: the fraction rounded to D places (rint: half
// to even), then kept within plus or minus 10^(M-D) - 10^-D (1264, an
// error in strict mode, else the bound with a warning); an UNSIGNED
// column's bottom is 0. Rounding alone warns nothing.
func storeFloatDigits(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum, digits, scale int) (any, error) {
	f, ok := v.(float64)
	if !ok {
		if f32, is := v.(float32); is {
			f, ok = float64(f32), true
		}
	}
	if !ok {
		d, isNum, err := numberOf(ctx, m, col, v, rowNum, "double")
		if err != nil || !isNum {
			return v, err
		}
		f, _ = d.Float64()
	}
	if math.IsNaN(f) {
		return v, nil
	}
	p := math.Pow10(scale)
	if !math.IsInf(f, 0) {
		fl := math.Floor(f)
		f = fl + math.RoundToEven((f-fl)*p)/p
	}
	// MySQL's bound and comparison, in doubles as its truncate_double
	// makes them: FLOAT(5,2)'s 999.99 is within, FLOAT(30,10)'s 1e20 too.
	top := math.Pow10(digits-scale) - 1/p
	bottom := -top
	if types.IsUnsigned(col.Type) {
		bottom = 0
	}
	switch {
	case f > top:
		if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataOutOfRange, nil, outOfRange(col, rowNum)); err != nil {
			return nil, err
		}
		return top, nil
	case f < bottom:
		if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataOutOfRange, nil, outOfRange(col, rowNum)); err != nil {
			return nil, err
		}
		return bottom, nil
	}
	return f, nil
}

// FitFloatDigits is v stored in FLOAT(M,D) or DOUBLE(M,D) column col
// (digits M, scale D) under the session's sql_mode, as a table rewrite
// stores the rows it copies (ALTER TABLE ... MODIFY f FLOAT(5,2)).
func FitFloatDigits(ctx *sql.Context, col *sql.Column, v any, rowNum, digits, scale int) (any, error) {
	return storeFloatDigits(ctx, storeModeOf(ctx, false), col, v, rowNum, digits, scale)
}
