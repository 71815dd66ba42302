package node_test

import (
	"context"
	"database/sql"
	"testing"
)

// Operators' statements vitess does not parse, answered by Petrel.

// FLUSH LOGS rotates the binary log (Petrel's only log file), as FLUSH
// BINARY LOGS does; FLUSH ERROR LOGS has nothing to reopen and succeeds.
func TestFlushLogs(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	before := len(queryRows(t, db, "SHOW BINARY LOGS"))
	mustExec(t, db, "FLUSH LOGS", "FLUSH LOCAL LOGS", "FLUSH ERROR LOGS", "FLUSH SLOW LOGS")
	if after := len(queryRows(t, db, "SHOW BINARY LOGS")); after != before+2 {
		t.Fatalf("binary logs: %d before, %d after two FLUSH LOGS, want %d", before, after, before+2)
	}
}

// Text Petrel rewrites before vitess parses it (IS UNKNOWN, --x, '\%')
// answers as MySQL, and its columns keep the names the client wrote.
func TestRewrittenTextNames(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	rows, err := db.Query(`SELECT 1 IS UNKNOWN, (1 = 2) IS NOT UNKNOWN, --6e-16, '\%', 'a_b' LIKE 'a\_b'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	want := []string{"1 IS UNKNOWN", "(1 = 2) IS NOT UNKNOWN", "--6e-16", `\%`, `'a_b' LIKE 'a\_b'`}
	for i := range want {
		if i >= len(cols) || cols[i] != want[i] {
			t.Fatalf("column names %q, want %q", cols, want)
		}
	}
	vals := make([]string, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !rows.Next() {
		t.Fatal("no row")
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	if got := []string{vals[0], vals[1], vals[2], vals[3], vals[4]}; got[0] != "0" || got[1] != "1" || got[2] != "6e-16" || got[3] != `\%` || got[4] != "1" {
		t.Fatalf("values %q", got)
	}
}

// CHECKSUM TABLE: equal for equal rows whatever their order, different
// once a value changes, NULL with warning 1146 for a missing table.
func TestChecksumTable(t *testing.T) {
	_, c := sessionWith(t, "CREATE DATABASE ck", "USE ck",
		"CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(10), n INT)", "CREATE TABLE u (id INT PRIMARY KEY, c VARCHAR(10), n INT)",
		"INSERT INTO t VALUES (1, 'a', NULL), (2, 'b', 5)", "INSERT INTO u VALUES (2, 'b', 5), (1, 'a', NULL)")
	ctx := context.Background()
	sums := func(q string) map[string]sql.NullString {
		rows, err := c.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		out := map[string]sql.NullString{}
		for rows.Next() {
			var name string
			var sum sql.NullString
			if err := rows.Scan(&name, &sum); err != nil {
				t.Fatal(err)
			}
			out[name] = sum
		}
		return out
	}
	got := sums("CHECKSUM TABLE t, ck.u, nosuch")
	if !got["ck.t"].Valid || got["ck.t"] != got["ck.u"] || got["ck.nosuch"].Valid {
		t.Fatalf("checksums %v: want t = u, nosuch NULL", got)
	}
	var level, code, msg string
	if err := c.QueryRowContext(ctx, "SHOW WARNINGS").Scan(&level, &code, &msg); err != nil || code != "1146" {
		t.Fatalf("warning for the missing table: %s %s %s (%v)", level, code, msg, err)
	}
	if _, err := c.ExecContext(ctx, "UPDATE u SET n = 6 WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	if after := sums("CHECKSUM TABLE t, u EXTENDED"); after["ck.t"] != got["ck.t"] || after["ck.u"] == got["ck.u"] {
		t.Fatalf("after changing u: %v (before %v)", after, got)
	}
}

// START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY (two
// characteristics, which vitess alone does not parse): the snapshot is
// taken at the start, and writes are refused (1792).
func TestStartTransactionCharacteristics(t *testing.T) {
	db, a := sessionWith(t, "CREATE DATABASE st", "CREATE TABLE st.t (id INT PRIMARY KEY)", "INSERT INTO st.t VALUES (1)",
		"START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY")
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "INSERT INTO st.t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := a.QueryRowContext(ctx, "SELECT COUNT(*) FROM st.t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows seen in the snapshot: %d (%v), want 1: the later commit is after the snapshot", n, err)
	}
	if _, err := a.ExecContext(ctx, "INSERT INTO st.t VALUES (3)"); errno(t, err) != 1792 {
		t.Fatalf("write in a READ ONLY transaction: %v, want 1792", err)
	}
	if _, err := a.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, "START TRANSACTION READ WRITE, WITH CONSISTENT SNAPSHOT"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, "INSERT INTO st.t VALUES (3)"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
}
