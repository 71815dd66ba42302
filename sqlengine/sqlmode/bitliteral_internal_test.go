package sqlmode

import "testing"

func TestBitLiteral(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 0b101", "SELECT b'101'"},
		{"SELECT 0b101+0b1, HEX(0b1000001)", "SELECT b'101'+b'1', HEX(b'1000001')"},
		{"SELECT '0b101', `0b101`, 0B101, 0b12, 0b1x, x0b1", "SELECT '0b101', `0b101`, 0B101, 0b12, 0b1x, x0b1"},
		{"SELECT 1 /* 0b1 */ -- 0b1\n", "SELECT 1 /* 0b1 */ -- 0b1\n"},
	} {
		got, added := bitLiteral(tc.in, false)
		if got != tc.want {
			t.Errorf("%q: got %q want %q", tc.in, got, tc.want)
		}
		for _, a := range added {
			if got[a] != '\'' {
				t.Errorf("%q: added offset %d is %q", tc.in, a, got[a])
			}
		}
	}
}
