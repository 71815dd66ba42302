package sqlmode

import "testing"

func TestAliasKeywordsQuoted(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"SELECT bit_or(b) OVER (ORDER BY pk) AS bit_or, std(b) as Std FROM t", "SELECT bit_or(b) OVER (ORDER BY pk) AS `bit_or`, std(b) as `Std` FROM t"},
		// A call after AS, a quoted alias, a string and a CAST's type
		// are left alone.
		{"SELECT 1 AS `bit_or`, 'x AS bit_or', CAST(a AS CHAR) FROM t", ""},
		{"CREATE TABLE t2 AS SELECT now() AS now", "CREATE TABLE t2 AS SELECT now() AS `now`"},
	} {
		got, added := aliasKeywords(tc.q, false)
		checkInsertions(t, tc.q, tc.want, got, added) // quantified_internal_test.go
	}
}
