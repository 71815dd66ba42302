package arith

import (
	"math"
	"strconv"
	"strings"
)

// DoubleText is f as MySQL writes a DOUBLE (f32: a FLOAT) as a string,
// where a string function or CONCAT reads it (String::set_real, my_gcvt
// with a width every number fits): the shortest digits that read back
// as f (a FLOAT's six significant digits), plainly while the decimal
// point is within 15 places of the first digit (1e-15 to 999999999999999)
// or inside the digits, else in exponent form without '+' or leading
// exponent zeros (1e15, 1.5e-15, 1.2345678901234568e17). Go's
// strconv.FormatFloat(f, 'f', -1, 64), which GMS uses, wrote
// 1000000000000000.
func DoubleText(f float64, f32 bool) string {
	if f == 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	if f32 {
		// FLT_DIG (6) significant digits: 3.14159265 reads 3.14159.
		f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'e', 5, 64), 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, e, _ := strings.Cut(s, "e")
	exp, err := strconv.Atoi(e)
	if err != nil {
		return s
	}
	n := len(strings.TrimPrefix(strings.Replace(mant, ".", "", 1), "-")) // significant digits
	decpt := exp + 1                                                     // digits before the point
	const maxDecpt = 15                                                  // MAX_DECPT_FOR_F_FORMAT, DBL_DIG
	if decpt >= -maxDecpt+1 && (decpt <= maxDecpt || n > decpt) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return mant + "e" + strconv.Itoa(exp)
}
