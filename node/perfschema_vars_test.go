package node_test

import (
	"strconv"
	"testing"
	"time"
)

// performance_schema's global_variables, session_variables,
// global_status, session_status and threads (issue 31: what monitoring
// tools read) answer as SHOW VARIABLES and SHOW STATUS do, and threads
// lists the connections.
func TestPerformanceSchemaVariablesStatusThreads(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	one := func(q string, args ...any) string {
		t.Helper()
		var s string
		if err := db.QueryRow(q, args...).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s
	}
	show := func(q string) string {
		t.Helper()
		var name, v string
		if err := db.QueryRow(q).Scan(&name, &v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	for _, name := range []string{"autocommit", "binlog_format", "max_connections", "gtid_mode", "read_only"} {
		got := one("SELECT VARIABLE_VALUE FROM performance_schema.global_variables WHERE VARIABLE_NAME = ?", name)
		if want := show("SHOW GLOBAL VARIABLES LIKE '" + name + "'"); got != want {
			t.Errorf("global_variables %s = %q, SHOW GLOBAL VARIABLES %q", name, got, want)
		}
	}
	mustExec(t, db, "SET SESSION sql_mode = 'ANSI_QUOTES'", "SET SESSION autocommit = 0")
	if got := one("SELECT VARIABLE_VALUE FROM performance_schema.session_variables WHERE VARIABLE_NAME = 'sql_mode'"); got != "ANSI_QUOTES" {
		t.Errorf("session_variables sql_mode = %q, want ANSI_QUOTES", got)
	}
	if got := one("SELECT VARIABLE_VALUE FROM performance_schema.session_variables WHERE VARIABLE_NAME = 'autocommit'"); got != "OFF" {
		t.Errorf("session_variables autocommit = %q, want OFF", got)
	}
	if got := one("SELECT VARIABLE_VALUE FROM performance_schema.global_variables WHERE VARIABLE_NAME = 'autocommit'"); got != "ON" {
		t.Errorf("global_variables autocommit = %q, want ON", got)
	}
	mustExec(t, db, "SET SESSION autocommit = 1")
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM performance_schema.global_status").Scan(&n); err != nil || n < 50 {
		t.Fatalf("global_status rows: %d (%v)", n, err)
	}
	q1 := one("SELECT VARIABLE_VALUE + 0 FROM performance_schema.session_status WHERE VARIABLE_NAME = 'Questions'")
	q2 := one("SELECT VARIABLE_VALUE + 0 FROM performance_schema.session_status WHERE VARIABLE_NAME = 'Questions'")
	if q1 == q2 {
		t.Errorf("session_status Questions did not move between two statements: %s", q1)
	}
	if got, want := one("SELECT VARIABLE_VALUE FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Threads_connected'"), show("SHOW GLOBAL STATUS LIKE 'Threads_connected'"); got != want {
		t.Errorf("global_status Threads_connected %q, SHOW GLOBAL STATUS %q", got, want)
	}
	// Uptime counts seconds since the start (GMS kept it at 0).
	time.Sleep(1100 * time.Millisecond)
	if up, err := strconv.Atoi(one("SELECT VARIABLE_VALUE FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Uptime'")); err != nil || up < 1 {
		t.Errorf("Uptime %d (%v) more than a second after the start", up, err)
	}
	other := open("")
	mustExec(t, other, "SELECT 1")
	if got := one("SELECT COUNT(*) FROM performance_schema.threads WHERE TYPE = 'FOREGROUND' AND PROCESSLIST_USER = 'root'"); got != "2" {
		t.Errorf("threads: %s foreground threads of root, want 2", got)
	}
	if got := one("SELECT PROCESSLIST_INFO FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()"); got != "SELECT PROCESSLIST_INFO FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()" {
		t.Errorf("threads: own PROCESSLIST_INFO %q", got)
	}
}
