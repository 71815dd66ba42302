package rowenc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// MySQL's binary DECIMAL format (decimal2bin in strings/decimal.cc):
//
// The integer and fractional digits are stored separately, each in groups of
// nine decimal digits per 4-byte big-endian word. Integer digits that do not
// fill a whole group come first, fractional leftovers last, each in the
// smallest number of bytes that holds them (dig2bytes). Negative numbers
// have every byte inverted, and finally the top bit of the first byte is
// flipped so that the encoding sorts like the number (positive numbers start
// with the bit set).

const (
	maxDecimalPrecision = 65
	maxDecimalScale     = 30
	digitsPerWord       = 9
)

var dig2bytes = [10]int{0, 1, 1, 2, 2, 3, 3, 4, 4, 4}

var pow10 = [10]uint32{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000}

func checkDecimalMeta(prec, scale int) error {
	if prec < 1 || prec > maxDecimalPrecision || scale > maxDecimalScale || scale > prec {
		return corrupt("bad DECIMAL(%d,%d)", prec, scale)
	}
	return nil
}

// DecimalSize is the number of bytes a DECIMAL(prec,scale) value occupies
// (MySQL's decimal_bin_size).
func DecimalSize(prec, scale int) int {
	intg := prec - scale
	return intg/digitsPerWord*4 + dig2bytes[intg%digitsPerWord] + scale/digitsPerWord*4 + dig2bytes[scale%digitsPerWord]
}

// AppendDecimal appends d in MySQL's binary format for DECIMAL(prec,scale).
// d is rounded half away from zero to scale digits, as MySQL stores it; an
// error wrapping ErrRange is returned if it then needs more than prec-scale
// integer digits.
func AppendDecimal(dst []byte, d decimal.Decimal, prec, scale int) ([]byte, error) {
	if err := checkDecimalMeta(prec, scale); err != nil {
		return nil, err
	}
	intg := prec - scale
	if prec <= 18 && d.Exponent() == -int32(scale) {
		if out, ok := appendColumnDecimal(dst, d, intg, scale); ok {
			return out, nil
		}
	}
	// Screen by magnitude before rounding or printing: a value like 1e999999
	// would otherwise materialise a million digits.
	if d.Sign() != 0 {
		order := int64(d.NumDigits()) + int64(d.Exponent()) // 10^(order-1) <= |d| < 10^order
		if order > int64(intg)+1 {
			return nil, fmt.Errorf("%w: %s does not fit DECIMAL(%d,%d)", ErrRange, d.String(), prec, scale)
		}
		if order < -int64(scale)-1 {
			d = decimal.Zero
		}
	}
	d = d.Round(int32(scale))
	neg := d.Sign() < 0
	s := d.Abs().StringFixed(int32(scale))
	ip, fp, _ := strings.Cut(s, ".")
	ip = strings.TrimLeft(ip, "0")
	if len(ip) > intg {
		return nil, fmt.Errorf("%w: %s does not fit DECIMAL(%d,%d)", ErrRange, d.String(), prec, scale)
	}
	if len(fp) != scale {
		return nil, fmt.Errorf("%w: %s has %d fractional digits, want %d", ErrRange, d.String(), len(fp), scale)
	}
	return appendDecimalDigits(dst, ip, fp, neg, intg, scale), nil
}

// appendColumnDecimal is AppendDecimal for a value already at the
// column's scale (a stored DECIMAL column's values are) whose coefficient
// fits an int64: its digits printed once, from the int64, where the
// general path counted them, rounded and printed the value through
// big.Int (1.5% of the server's CPU under TPC-C). False when the value
// does not fit the column (the general path reports it).
func appendColumnDecimal(dst []byte, d decimal.Decimal, intg, scale int) ([]byte, bool) {
	c := d.Coefficient()
	if !c.IsInt64() {
		return dst, false
	}
	v := c.Int64()
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	var buf [24]byte
	digits := strconv.AppendUint(buf[:0], u, 10)
	if len(digits) <= scale { // 0.00ddd: pad to one integer digit
		digits = append(make([]byte, 0, scale+1), strings.Repeat("0", scale+1-len(digits))...)
		digits = strconv.AppendUint(digits, u, 10)
	}
	ip := strings.TrimLeft(string(digits[:len(digits)-scale]), "0")
	if len(ip) > intg {
		return dst, false
	}
	return appendDecimalDigits(dst, ip, string(digits[len(digits)-scale:]), neg && u != 0, intg, scale), true
}

// appendDecimalDigits packs the (unsigned) integer digits ip (at most intg of
// them, no leading zeros needed) and exactly scale fractional digits fp.
func appendDecimalDigits(dst []byte, ip, fp string, neg bool, intg, scale int) []byte {
	ip = strings.Repeat("0", intg-len(ip)) + ip
	start := len(dst)
	// Leading partial group of integer digits, then full groups.
	lead := intg % digitsPerWord
	dst = appendDigitGroup(dst, ip[:lead], dig2bytes[lead])
	for i := lead; i < intg; i += digitsPerWord {
		dst = appendDigitGroup(dst, ip[i:i+digitsPerWord], 4)
	}
	// Full fractional groups, then the trailing partial group.
	full := scale / digitsPerWord * digitsPerWord
	for i := 0; i < full; i += digitsPerWord {
		dst = appendDigitGroup(dst, fp[i:i+digitsPerWord], 4)
	}
	dst = appendDigitGroup(dst, fp[full:], dig2bytes[scale-full])
	if neg {
		for i := start; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	if len(dst) > start {
		dst[start] ^= 0x80
	}
	return dst
}

func appendDigitGroup(dst []byte, digits string, nbytes int) []byte {
	if nbytes == 0 {
		return dst
	}
	var v uint32
	for i := 0; i < len(digits); i++ {
		v = v*10 + uint32(digits[i]-'0')
	}
	for i := nbytes - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

// DecodeDecimal reads a DECIMAL(prec,scale) value from the start of b and
// returns it as a plain decimal string with exactly scale fractional digits
// ("-12.50", "0.000", "7"), plus the number of bytes consumed. Digit groups
// out of range (a group of k digits holding 10^k or more) are corrupt, as in
// MySQL's bin2decimal.
func DecodeDecimal(b []byte, prec, scale int) (string, int, error) {
	if err := checkDecimalMeta(prec, scale); err != nil {
		return "", 0, err
	}
	size := DecimalSize(prec, scale)
	if len(b) < size {
		return "", 0, corrupt("truncated DECIMAL(%d,%d)", prec, scale)
	}
	var tmp [32]byte // DecimalSize(65, 30) == 30
	buf := tmp[:size]
	copy(buf, b[:size])
	neg := buf[0]&0x80 == 0
	buf[0] ^= 0x80
	if neg {
		for i := range buf {
			buf[i] = ^buf[i]
		}
	}
	intg := prec - scale
	var sb strings.Builder
	sb.Grow(prec + 3)
	pos := 0
	read := func(ndigits int) (uint32, error) {
		nb := dig2bytes[ndigits]
		var v uint32
		for i := 0; i < nb; i++ {
			v = v<<8 | uint32(buf[pos+i])
		}
		pos += nb
		if v >= pow10[ndigits] {
			return 0, corrupt("DECIMAL digit group %d out of range for %d digits", v, ndigits)
		}
		return v, nil
	}
	var digits []byte
	lead := intg % digitsPerWord
	if lead > 0 {
		v, err := read(lead)
		if err != nil {
			return "", 0, err
		}
		digits = appendPadded(digits, v, lead)
	}
	for i := lead; i < intg; i += digitsPerWord {
		v, err := read(digitsPerWord)
		if err != nil {
			return "", 0, err
		}
		digits = appendPadded(digits, v, digitsPerWord)
	}
	intDigits := strings.TrimLeft(string(digits), "0")
	digits = digits[:0]
	full := scale / digitsPerWord * digitsPerWord
	for i := 0; i < full; i += digitsPerWord {
		v, err := read(digitsPerWord)
		if err != nil {
			return "", 0, err
		}
		digits = appendPadded(digits, v, digitsPerWord)
	}
	if rest := scale - full; rest > 0 {
		v, err := read(rest)
		if err != nil {
			return "", 0, err
		}
		digits = appendPadded(digits, v, rest)
	}
	frac := string(digits)
	isZero := intDigits == "" && strings.Trim(frac, "0") == ""
	if neg && !isZero {
		sb.WriteByte('-')
	}
	if intDigits == "" {
		sb.WriteByte('0')
	} else {
		sb.WriteString(intDigits)
	}
	if scale > 0 {
		sb.WriteByte('.')
		sb.WriteString(frac)
	}
	return sb.String(), size, nil
}

func appendPadded(dst []byte, v uint32, width int) []byte {
	s := strconv.FormatUint(uint64(v), 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}
