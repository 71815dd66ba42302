package sqlmode

import "testing"

// TRIM(LEADING FROM s) trims spaces: the string is inserted.
func TestTrimSpaces(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT TRIM(LEADING FROM '  a ')", "SELECT TRIM(LEADING ' ' FROM '  a ')"},
		{"select trim(both from s), trim(trailing 'x' from s) from t", "select trim(both ' ' from s), trim(trailing 'x' from s) from t"},
		{"SELECT TRIM('  a ')", "SELECT TRIM('  a ')"},
	} {
		if got, _ := trimSpaces(tc.in, false); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// N'text' is the literal 'text'; N elsewhere is left alone.
func TestNationalStrings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT N'abc', n'x'", "SELECT  'abc',  'x'"},
		{"SELECT N, 'a' FROM t WHERE IN'x'", "SELECT N, 'a' FROM t WHERE IN'x'"},
		{"INSERT INTO t VALUES (N'ñ')", "INSERT INTO t VALUES ( 'ñ')"},
		{"SELECT 'N''x'", "SELECT 'N''x'"},
	} {
		if got := nationalStrings(tc.in, false); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}
