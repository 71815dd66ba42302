package node_test

import "testing"

// Function values where MySQL 8 and MariaDB 10.11 differ, so that the
// MariaDB corpus (e2e/semantics_test.go) cannot check them: each
// statement's outcome as MySQL 8's source gives it (rows, then warning
// codes; m8Outcome).
func TestMySQL8FunctionValues(t *testing.T) {
	_, c := sessionWith(t, "CREATE DATABASE m8f", "USE m8f",
		"SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
		"CREATE TABLE d (id INT PRIMARY KEY, n BIGINT)",
		"INSERT INTO d VALUES (1, 3652424), (2, 3652425), (3, 3652500), (4, 0), (5, 738000)")
	for _, tc := range []struct{ q, want string }{
		// FROM_DAYS: get_date_from_daynr gives year 10000 from 3652425
		// to 3652499, out of range: NULL with 1441 (GMS failed the
		// statement, 1105; MariaDB gives 0000-00-00); from 3652500 on,
		// and up to 365, the zero date, which a SELECT prints whatever
		// NO_ZERO_DATE says (MariaDB: NULL under it).
		{"SELECT CONCAT(FROM_DAYS(3652424)), FROM_DAYS(3652425), FROM_DAYS(3652499), CONCAT(FROM_DAYS(3652500)), CONCAT(FROM_DAYS(99999999999))",
			"9999-12-31|NULL|NULL|0000-00-00|0000-00-00; 1441,1441"},
		{"SELECT CONCAT(FROM_DAYS(0)), CONCAT(FROM_DAYS(365)), CONCAT(FROM_DAYS(-1)), CONCAT(FROM_DAYS(367))", "0000-00-00|0000-00-00|0000-00-00|0001-01-02"},
		{"SELECT id, CONCAT(FROM_DAYS(n)) FROM d ORDER BY id", "1|9999-12-31/2|NULL/3|0000-00-00/4|0000-00-00/5|2020-07-29; 1441"},
	} {
		if got := m8Outcome(t, c, tc.q); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.q, got, tc.want)
		}
	}
}
