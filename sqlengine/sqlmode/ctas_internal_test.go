package sqlmode

import "testing"

func TestCreateSelect(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"create TEMPORARY TABLE t2 engine=heap select * from t1", "create TEMPORARY TABLE t2             select * from t1"},
		{"CREATE TABLE d.t ENGINE = InnoDB AS SELECT 1", "CREATE TABLE d.t                 AS SELECT 1"},
		{"CREATE TABLE IF NOT EXISTS t ENGINE=MyISAM (SELECT a FROM u)", "CREATE TABLE IF NOT EXISTS t                SELECT a FROM u "},
		{"CREATE TABLE t (SELECT a FROM u);", "CREATE TABLE t  SELECT a FROM u ;"},
		// Left alone: a column list, another option, no SELECT, a
		// parenthesis that does not close the statement.
		{"CREATE TABLE t (a INT) ENGINE=InnoDB SELECT 1", "CREATE TABLE t (a INT) ENGINE=InnoDB SELECT 1"},
		{"CREATE TABLE t ENGINE=InnoDB CHARSET=latin1 SELECT 1", "CREATE TABLE t ENGINE=InnoDB CHARSET=latin1 SELECT 1"},
		{"CREATE TABLE t (a INT) ENGINE=InnoDB", "CREATE TABLE t (a INT) ENGINE=InnoDB"},
		{"CREATE TABLE t (SELECT 1) UNION (SELECT 2)", "CREATE TABLE t (SELECT 1) UNION (SELECT 2)"},
		{"SELECT 'CREATE TABLE t ENGINE=x SELECT'", "SELECT 'CREATE TABLE t ENGINE=x SELECT'"},
	} {
		if got := createSelect(tc.in, false); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestCreateColumnsSelect(t *testing.T) {
	for _, tc := range []struct {
		in           string
		create, from string // "" when not matched
	}{
		{"create table t3 (c int) select a as c from t1", "create table t3 (c int) ", "select a as c from t1"},
		{"CREATE TEMPORARY TABLE IF NOT EXISTS d.t4 (a INT, KEY (a)) ENGINE=InnoDB AS SELECT * FROM t3; SELECT 1",
			"CREATE TEMPORARY TABLE IF NOT EXISTS d.t4 (a INT, KEY (a)) ENGINE=InnoDB ", "SELECT * FROM t3; SELECT 1"},
		{"CREATE TABLE t (a INT) (SELECT 1 AS a)", "CREATE TABLE t (a INT) ", "(SELECT 1 AS a)"},
		{"CREATE TABLE t (a INT DEFAULT (1 + 2)) UNION = (x, y) SELECT 1 AS a", "CREATE TABLE t (a INT DEFAULT (1 + 2)) UNION = (x, y) ", "SELECT 1 AS a"},
		// Not matched: no column list, IGNORE / REPLACE, no SELECT
		// before the statement ends, a SELECT in a string.
		{"CREATE TABLE t SELECT 1", "", ""},
		{"CREATE TABLE t (SELECT 1)", "", ""},
		{"CREATE TABLE t (a INT) IGNORE SELECT 1", "", ""},
		{"CREATE TABLE t (a INT); SELECT 1", "", ""},
		{"CREATE TABLE t (a VARCHAR(10) DEFAULT 'select')", "", ""},
	} {
		ce, ss, ok := CreateColumnsSelect(tc.in, false)
		var create, from string
		if ok {
			create, from = tc.in[:ce], tc.in[ss:]
		}
		if create != tc.create || from != tc.from {
			t.Errorf("%q: got %q + %q, want %q + %q", tc.in, create, from, tc.create, tc.from)
		}
	}
}
