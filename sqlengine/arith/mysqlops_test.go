package arith

import (
	"math"
	"testing"
)

// CastStringInt is MySQL's string-to-integer cast: the leading integer,
// with "truncated" (warning 1292) whenever more than trailing spaces
// follows or the digits exceed 64 bits.
func TestCastStringInt(t *testing.T) {
	for _, c := range []struct {
		in        string
		unsigned  bool
		want      uint64
		truncated bool
	}{
		{"12abc", false, 12, true},
		{" \t 123 \t ", false, 123, false},
		{"\n123", false, 0, true}, // only spaces and tabs lead
		{"", false, 0, true},
		{"-7", true, math.MaxUint64 - 6, false},
		{"-9223372036854775808", false, 1 << 63, false},
		{"-9223372036854775809", false, 1 << 63, true},
		{"18446744073709551615", true, math.MaxUint64, false},
		{"18446744073709551616", true, math.MaxUint64, true},
		{"99999999999999999999", false, math.MaxUint64, true}, // -1 as signed, as MySQL's
		{"1.9", false, 1, true},
	} {
		got, tr := castStringInt(nil, c.in, c.unsigned)
		if got != c.want || tr != c.truncated {
			t.Errorf("castStringInt(%q, %v) = %d, %v; want %d, %v", c.in, c.unsigned, got, tr, c.want, c.truncated)
		}
	}
}

func TestBitOperandRounding(t *testing.T) {
	for _, c := range []struct {
		in   any
		want uint64
	}{
		{1.5, 2}, {2.5, 2}, {-1.0, math.MaxUint64}, {1e30, math.MaxUint64}, {int8(-1), math.MaxUint64}, {uint64(7), 7}, {true, 1},
	} {
		got, err := bitOperand(nil, c.in)
		if err != nil || got != c.want {
			t.Errorf("bitOperand(%v) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}
