package node_test

import (
	"fmt"
	"testing"
)

// HANDLER OPEN / READ / CLOSE: a session's handler reads its table in
// natural or index order and keeps its place between reads; FLUSH
// TABLES starts it again; TRUNCATE closes it (1109), as in MySQL (mtr's
// truncate, flush_table); vitess refused the statements with 1064.
func TestHandlerStatements(t *testing.T) {
	ctx, c := testDBConn(t)
	mustExecConn(t, c, "CREATE TABLE t1 (id CHAR(20) PRIMARY KEY, k INT, KEY kk (k))",
		"INSERT INTO t1 VALUES ('r1', 5), ('r2', 4), ('r3', 3), ('r4', 2), ('r5', 1)",
		"HANDLER t1 OPEN", "HANDLER t1 OPEN AS a1")
	for _, step := range []struct{ q, want string }{
		{"HANDLER t1 READ FIRST", "[[r1 5]]"},
		{"HANDLER t1 READ NEXT LIMIT 2", "[[r2 4] [r3 3]]"},
		{"FLUSH TABLES", ""},
		{"HANDLER t1 READ NEXT", "[[r1 5]]"},
		{"HANDLER a1 READ kk >= (3) LIMIT 2", "[[r3 3] [r2 4]]"},
		{"HANDLER a1 READ kk NEXT", "[[r1 5]]"},
		{"HANDLER a1 READ kk NEXT", "[]"},
		{"HANDLER a1 READ kk PREV", "[[r1 5]]"},
		{"HANDLER a1 READ `PRIMARY` = ('r4')", "[[r4 2]]"},
		{"HANDLER a1 READ `PRIMARY` LAST", "[[r5 1]]"},
		{"HANDLER a1 READ `PRIMARY` <= ('r2') LIMIT 5", "[[r2 4] [r1 5]]"},
		{"HANDLER a1 READ FIRST WHERE k < 5 LIMIT 1, 2", "[[r3 3] [r4 2]]"},
	} {
		if step.want == "" {
			mustExecConn(t, c, step.q)
			continue
		}
		if got := fmt.Sprint(connRows(t, c, step.q)); got != step.want {
			t.Errorf("%s: %s, want %s", step.q, got, step.want)
		}
	}
	for q, want := range map[string]uint16{
		"HANDLER t1 OPEN AS a1":      1066,
		"HANDLER nope READ FIRST":    1109,
		"HANDLER a1 READ nokey NEXT": 1176,
		"HANDLER t9 OPEN":            1146,
	} {
		if _, err := c.ExecContext(ctx, q); errno(t, err) != want {
			t.Errorf("%s: %v, want %d", q, err, want)
		}
	}
	mustExecConn(t, c, "HANDLER a1 CLOSE", "TRUNCATE t1")
	for _, q := range []string{"HANDLER a1 READ FIRST", "HANDLER t1 READ FIRST"} {
		if _, err := c.ExecContext(ctx, q); errno(t, err) != 1109 {
			t.Errorf("%s after CLOSE / TRUNCATE: %v, want 1109", q, err)
		}
	}
}
