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
