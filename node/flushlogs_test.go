package node_test

import (
	"database/sql"
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"
)

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

// FLUSH HOSTS (mysqladmin flush-hosts) is OK for an account with RELOAD
// and 1227 without, as MySQL's; GMS refused it with 1105.
func TestFlushHosts(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	for _, q := range []string{"FLUSH HOSTS", "FLUSH LOCAL HOSTS", "FLUSH NO_WRITE_TO_BINLOG HOSTS"} {
		if _, err := db.Exec(q); err != nil {
			t.Errorf("%s: %v, want OK", q, err)
		}
	}
	mustExec(t, db, "CREATE USER plain@'%' IDENTIFIED BY 'pw'")
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "plain", "pw", "tcp", n.Addr()
	u, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	var me *mysql.MySQLError
	if _, err := u.Exec("FLUSH HOSTS"); !errors.As(err, &me) || me.Number != 1227 {
		t.Errorf("FLUSH HOSTS without RELOAD: %v, want 1227", err)
	}
}
