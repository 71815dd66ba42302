package sqlmode

import "testing"

func TestSetBinaryValueQuoted(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"SET character_set_connection=binary", "SET character_set_connection='binary'"},
		{"set names utf8, @@character_set_results = BINARY;", "set names utf8, @@character_set_results = 'BINARY';"},
		// The operator, a string and other statements are left alone.
		{"SET @a = BINARY 'x', @b = 'binary'", ""},
		{"SELECT a = binary FROM t", ""},
	} {
		got, added := setBinaryValue(tc.q, false)
		checkInsertions(t, tc.q, tc.want, got, added) // quantified_internal_test.go
	}
}
