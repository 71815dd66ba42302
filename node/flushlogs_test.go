package node_test

import "testing"

// FLUSH LOGS on a server without a binary log is OK, as MySQL's with
// log_bin off (logrotate's `mysqladmin flush-logs` sends it); it was
// 1105 'logs not supported'. With the log, FLUSH LOGS rotates it
// (binlog tests).
func TestFlushLogsWithoutBinlog(t *testing.T) {
	_, open := startNodeWith(t, map[string]string{"skip_log_bin": "ON"})
	db := open("")
	if got := queryRows(t, db, "SELECT @@log_bin"); got[0][0] != "0" {
		t.Fatalf("@@log_bin = %s, want 0 (the test needs a server without a binary log)", got[0][0])
	}
	for _, q := range []string{"FLUSH LOGS", "FLUSH BINARY LOGS", "FLUSH LOCAL LOGS", "FLUSH NO_WRITE_TO_BINLOG LOGS", "FLUSH ERROR LOGS", "FLUSH SLOW LOGS"} {
		if _, err := db.Exec(q); err != nil {
			t.Errorf("%s without a binary log: %v, want OK", q, err)
		}
	}
}
