package sqlengine

import "testing"

// Option-file integers take K, M and G (powers of 1024), as MySQL's.
func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "5": 5, "64M": 64 << 20, "64m": 64 << 20, "2G": 2 << 30, "512k": 512 << 10, "-3": -3} {
		if got, ok := parseSize(in); !ok || got != want {
			t.Errorf("parseSize(%q) = %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "M", "1X", "1.5G", "9223372036854775807G", "ten"} {
		if got, ok := parseSize(in); ok {
			t.Errorf("parseSize(%q) = %d, accepted", in, got)
		}
	}
}
