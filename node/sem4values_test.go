package node_test

import "testing"

// Values of the data-semantics sweep 4 (2026-12-01) where MySQL 8 and
// MariaDB 10.11 differ, as MySQL 8 gives them (rows, then warning codes).
func TestSem4MySQL8Values(t *testing.T) {
	_, c := sessionWith(t, "CREATE DATABASE s4", "USE s4",
		"SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
		"CREATE TABLE n (id INT PRIMARY KEY, d DOUBLE, m DECIMAL(10,2))",
		"INSERT INTO n VALUES (1, -2.5, -2.5), (2, -0.4, -0.4), (3, 7.5, 7.5)")
	for _, tc := range []struct{ q, want string }{
		// A negative DOUBLE or DECIMAL cast to UNSIGNED is the bits of
		// its signed integer (DOUBLE rounded half to even, DECIMAL half
		// away from zero), without a warning (MySQL 8's
		// Item_typecast_unsigned; MariaDB clips to 0 with 1916).
		{"SELECT CAST(-2.5e0 AS UNSIGNED), CAST(-2.5 AS UNSIGNED), CAST(-1e0 AS UNSIGNED), CAST(-0.4e0 AS UNSIGNED), CAST(-0.5 AS UNSIGNED), CAST(-3.1234 AS UNSIGNED)",
			"18446744073709551614|18446744073709551613|18446744073709551615|0|18446744073709551615|18446744073709551613"},
		{"SELECT id, CAST(d AS UNSIGNED), CAST(m AS UNSIGNED), CAST(m AS SIGNED) FROM n ORDER BY id",
			"1|18446744073709551614|18446744073709551613|-3/2|0|0|0/3|8|8|8"},
		// A DECIMAL above BIGINT's range: UNSIGNED reaches 2^64-1, past
		// it clipped with 1292.
		{"SELECT CAST(18446744073709551615.4 AS UNSIGNED), CAST(9223372036854775808.0 AS UNSIGNED)",
			"18446744073709551615|9223372036854775808"},
		{"SELECT CAST(18446744073709551616.0 AS UNSIGNED), CAST(-9223372036854775809.0 AS UNSIGNED)",
			"18446744073709551615|9223372036854775808; 1292,1292"},
		// A hexadecimal or bit-value literal in numeric context is the
		// number its bytes spell, compared with a number too (MySQL's
		// Item_hex_string; MariaDB compares X'05' as the string '\x05'
		// with 1292, and casts X'41' as the text 'A').
		{"SELECT X'05' = 5, 0x05 = 5, b'101' = 5, X'41' IN (65, 66), 65 IN (X'41', 1), X'41' + 0, X'0A' < 11", "1|1|1|1|1|65|1"},
		{"SELECT CAST(X'41' AS SIGNED), CAST(b'1000001' AS UNSIGNED), CAST(X'41' AS DOUBLE), CAST(0xFFFFFFFFFFFFFFFF AS SIGNED)", "65|65|65|-1"},
		{"SELECT id FROM n WHERE id = X'03' OR id IN (b'1')", "1/3"},
	} {
		if got := m8Outcome(t, c, tc.q); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.q, got, tc.want)
		}
	}
}
