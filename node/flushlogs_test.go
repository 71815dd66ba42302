package node_test

import "testing"

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
