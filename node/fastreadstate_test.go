package node_test

import (
	"context"
	"testing"
)

// The prepared-statement fast reads (point, range, secondary index) leave
// the session as a SELECT through GMS does: warnings of the previous
// statement cleared, FOUND_ROWS() the rows sent, ROW_COUNT() -1.
func TestFastReadsSessionState(t *testing.T) {
	_, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE rs", "CREATE TABLE rs.t (id INT PRIMARY KEY, k INT, v INT, KEY k (k))",
		"INSERT INTO rs.t VALUES (1, 10, 1), (2, 10, 2), (3, 30, 3), (4, 40, 4)")
	ctx := context.Background()
	c, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	warnings := func() int { return connRowCount(t, c, "SHOW WARNINGS") }
	// The statement before each fast read: 7 rows and a warning.
	const before = "SELECT 1/0 UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6"
	if n := connRowCount(t, c, before); n != 7 || warnings() == 0 {
		t.Fatalf("setup: %d rows (want 7) or no warning", n)
	}
	connRowCount(t, c, before)
	if got := connInt(t, c, "SELECT FOUND_ROWS()"); got != 7 {
		t.Fatalf("setup: FOUND_ROWS() %d, want 7", got)
	}
	for _, tc := range []struct {
		q     string
		args  []any
		found int64
	}{
		{"SELECT v FROM rs.t WHERE id = ?", []any{3}, 1},
		{"SELECT v FROM rs.t WHERE id = ?", []any{99}, 0},
		{"SELECT v FROM rs.t WHERE id BETWEEN ? AND ?", []any{1, 3}, 3},
		{"SELECT v FROM rs.t WHERE k = ?", []any{10}, 2},
	} {
		st, err := c.PrepareContext(ctx, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		run := func() {
			t.Helper()
			rows, err := st.QueryContext(ctx, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			n := int64(0)
			for rows.Next() {
				n++
			}
			rows.Close()
			if n != tc.found {
				t.Fatalf("%s %v: %d rows, want %d", tc.q, tc.args, n, tc.found)
			}
		}
		fast := statusInt(t, root, "Petrel_fast_path_reads")
		for i := 1; i <= 2; i++ { // GMS answers the first execution, the fast path the next ones
			connRowCount(t, c, before)
			run()
			if w := warnings(); w != 0 {
				t.Errorf("%s %v (execution %d): SHOW WARNINGS lists %d after it, want 0", tc.q, tc.args, i, w)
			}
			connRowCount(t, c, before)
			run()
			if got := connInt(t, c, "SELECT FOUND_ROWS()"); got != tc.found {
				t.Errorf("%s %v (execution %d): FOUND_ROWS() %d, want %d", tc.q, tc.args, i, got, tc.found)
			}
		}
		if used := statusInt(t, root, "Petrel_fast_path_reads") - fast; used < 2 {
			t.Errorf("%s: the fast path answered %d of 4 executions", tc.q, used)
		}
		st.Close()
	}
}
