package node_test

import (
	"context"
	"testing"
)

// TestStatementStatusCounts: Questions, Queries and Com_* count what a
// client sends, as MySQL does, for text statements, prepared executions
// answered by the fast paths and statements GMS answers; session status
// counts the session's own, global status the server's.
func TestStatementStatusCounts(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE sc", "CREATE TABLE sc.t (id INT PRIMARY KEY, v INT)")
	db := open("") // a pool of its own: c is a new connection, its first statement counted
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	session := func(name string) int64 {
		t.Helper()
		var n string
		var v int64
		if err := c.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	globalBefore := statusInt(t, db, "Com_select")
	for _, q := range []string{
		"INSERT INTO sc.t VALUES (1, 10), (2, 20)",
		"INSERT INTO sc.t VALUES (3, 30)",
		"UPDATE sc.t SET v = v + 1 WHERE id = 1",
		"DELETE FROM sc.t WHERE id = 3",
		"SELECT v FROM sc.t WHERE id = 2",
		"BEGIN",
		"SELECT COUNT(*) FROM sc.t",
		"COMMIT",
	} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Prepared (go-sql-driver prepares a statement with arguments): a
	// point select the fast path answers, executed three times.
	st, err := c.PrepareContext(ctx, "SELECT v FROM sc.t WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		var v int
		if err := st.QueryRowContext(ctx, i%2+1).Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	// Each SHOW below is itself a question and a Com_show_status, counted
	// before it answers, as in MySQL.
	for name, want := range map[string]int64{
		"Com_insert":       2,
		"Com_update":       1,
		"Com_delete":       1,
		"Com_select":       5, // 2 text, 3 executions
		"Com_begin":        1,
		"Com_commit":       1,
		"Com_stmt_prepare": 1,
		"Com_stmt_execute": 3,
	} {
		if got := session(name); got != want {
			t.Errorf("session %s = %d, want %d", name, got, want)
		}
	}
	// 8 text statements, 3 executions, the 8 SHOWs above and this one.
	if got := session("Questions"); got != 8+3+8+1 {
		t.Errorf("session Questions = %d, want %d", got, 8+3+8+1)
	}
	if got := session("Com_show_status"); got != 10 {
		t.Errorf("session Com_show_status = %d, want 10", got)
	}
	// Global: this connection's selects on top of what ran before.
	if got := statusInt(t, db, "Com_select") - globalBefore; got != 5 {
		t.Errorf("global Com_select grew by %d, want 5", got)
	}
	// Queries is Questions (no stored programs); the second SHOW counts
	// itself.
	if q, qs := statusInt(t, db, "Queries"), statusInt(t, db, "Questions"); qs != q+1 || q < 20 {
		t.Errorf("global Queries %d, then Questions %d", q, qs)
	}
}
