package sqlmode

import (
	"context"
	"testing"
)

func TestWithRollupMarker(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT a, SUM(c) FROM t GROUP BY a WITH ROLLUP", "SELECT a, SUM(c) FROM t GROUP BY a ,    ROLLUP()"},
		{"select a from t group by a with  rollup having a > 1", "select a from t group by a ,     rollup() having a > 1"},
		{"SELECT (SELECT 1 FROM t GROUP BY a WITH ROLLUP LIMIT 1)", "SELECT (SELECT 1 FROM t GROUP BY a ,    ROLLUP() LIMIT 1)"},
		// A common table expression named rollup, and text, are not it.
		{"WITH rollup AS (SELECT 1) SELECT * FROM rollup", "WITH rollup AS (SELECT 1) SELECT * FROM rollup"},
		{"WITH rollup(x) AS (SELECT 1) SELECT * FROM rollup", "WITH rollup(x) AS (SELECT 1) SELECT * FROM rollup"},
		{"SELECT 'GROUP BY a WITH ROLLUP'", "SELECT 'GROUP BY a WITH ROLLUP'"},
	} {
		got, added := withRollup(c.in, false)
		if got != c.want {
			t.Errorf("withRollup(%q) = %q, want %q", c.in, got, c.want)
		}
		if got != c.in && len(added) != 2 {
			t.Errorf("withRollup(%q): %d inserted bytes, want 2", c.in, len(added))
		}
	}
}

// PreparedText's rewrites, applied again by the parse of the prepared
// text, change nothing more.
func TestPreparedTextIdempotent(t *testing.T) {
	for _, q := range []string{
		"SELECT a, SUM(c) FROM t WHERE c > ? GROUP BY a WITH ROLLUP",
		"SELECT 1 FROM t WHERE a > ALL (SELECT b FROM u WHERE b < ?)",
		"SELECT SUBSTRING(s FROM ?) FROM t",
		"SELECT DATE_ADD(d, INTERVAL ? SECOND_MICROSECOND), INTERVAL(?, 1, 2) FROM t",
		"SELECT bit_or(b) OVER (ORDER BY a) AS bit_or FROM t",
		"SELECT колонка FROM t_имя WHERE колонка = ?",
	} {
		once := PreparedText(q)
		if once == q {
			t.Errorf("PreparedText(%q) rewrote nothing", q)
		}
		if twice := PreparedText(once); twice != once {
			t.Errorf("PreparedText not idempotent on %q:\n once  %q\n twice %q", q, once, twice)
		}
		if again, _ := SessionText(context.Background(), once); again != once {
			t.Errorf("the session's rewrites change the prepared text %q again: %q", once, again)
		}
	}
}
