package sqlmode

import "testing"

func TestOptimizerHints(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT SQL_BUFFER_RESULT SUM(DISTINCT a) FROM t", "SELECT                   SUM(DISTINCT a) FROM t"},
		{"select distinct high_priority sql_small_result a from t", "select distinct                                a from t"},
		{"SELECT DISTINCTROW a FROM t", "SELECT DISTINCT    a FROM t"},
		{"SELECT * FROM t1 IGNORE KEY (b) WHERE b=''", "SELECT * FROM t1                WHERE b=''"},
		{"SELECT * FROM t1 USE INDEX () JOIN t2 FORCE KEY FOR JOIN (a, b), IGNORE INDEX FOR ORDER BY (c) ON 1",
			"SELECT * FROM t1              JOIN t2                                                          ON 1"},
		{"SELECT * FROM t1 AS x USE INDEX (PRIMARY) WHERE a = 1", "SELECT * FROM t1 AS x                     WHERE a = 1"},
		// Left alone: the words elsewhere, in strings, INSERT IGNORE.
		{"SELECT a FROM t WHERE b = 'IGNORE KEY (b)'", "SELECT a FROM t WHERE b = 'IGNORE KEY (b)'"},
		{"INSERT IGNORE INTO t (a) VALUES (1)", "INSERT IGNORE INTO t (a) VALUES (1)"},
		{"CREATE TABLE t (a INT, KEY (a))", "CREATE TABLE t (a INT, KEY (a))"},
		{"SELECT sql_buffer_result_x FROM t", "SELECT sql_buffer_result_x FROM t"},
	} {
		if got := optimizerHints(tc.in, false); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
