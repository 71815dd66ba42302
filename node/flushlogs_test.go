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
