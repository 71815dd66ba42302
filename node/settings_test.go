package node_test

import (
	"testing"
	"time"
)

// The tests below check that a SET GLOBAL reaches the component that
// uses the setting (surface/sysvar pushes it), not only the variable.

// TestShutdownTimeoutPushed: SET GLOBAL shutdown_timeout is the node's
// shutdown deadline at once.
func TestShutdownTimeoutPushed(t *testing.T) {
	n, open := startNode(t)
	if got := n.ShutdownTimeout(); got != 10*time.Second {
		t.Fatalf("default ShutdownTimeout = %v, want 10s", got)
	}
	mustExec(t, open(""), "SET GLOBAL shutdown_timeout = 7")
	if got := n.ShutdownTimeout(); got != 7*time.Second {
		t.Errorf("after SET GLOBAL shutdown_timeout = 7: ShutdownTimeout = %v, want 7s", got)
	}
}

// TestBinlogCacheSizePushed: after SET GLOBAL binlog_cache_size = 4096
// the binary log spills a transaction of 20 KiB of events to a file
// (the default cache, 32 KiB, holds it).
func TestBinlogCacheSizePushed(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, c VARCHAR(2000))")
	insert := "INSERT INTO d.t VALUES (?, REPEAT('x', 2000))"
	spills := func() string { return queryRows(t, db, "SHOW GLOBAL STATUS LIKE 'Binlog_cache_disk_use'")[0][1] }
	bigTxn := func(base int) {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			if _, err := tx.Exec(insert, base+i); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	bigTxn(0)
	if got := spills(); got != "0" {
		t.Fatalf("Binlog_cache_disk_use = %s with the default cache, want 0", got)
	}
	mustExec(t, db, "SET GLOBAL binlog_cache_size = 4096")
	bigTxn(100)
	if got := spills(); got != "1" {
		t.Errorf("Binlog_cache_disk_use = %s after SET GLOBAL binlog_cache_size = 4096, want 1", got)
	}
}

// TestLockWaitTimeoutPushed: the replica applier's lock wait is
// innodb_lock_wait_timeout's global value, pushed to the engine: the
// option file's at start, a SET GLOBAL at once, never a SET SESSION.
func TestLockWaitTimeoutPushed(t *testing.T) {
	n, open := startNodeWith(t, map[string]string{"innodb_lock_wait_timeout": "12"})
	if got := n.SQL().LockWaitTimeout(); got != 12*time.Second {
		t.Fatalf("option file's 12: LockWaitTimeout = %v", got)
	}
	db := open("")
	mustExec(t, db, "SET GLOBAL innodb_lock_wait_timeout = 7")
	if got := n.SQL().LockWaitTimeout(); got != 7*time.Second {
		t.Errorf("after SET GLOBAL innodb_lock_wait_timeout = 7: %v", got)
	}
	mustExec(t, db, "SET SESSION innodb_lock_wait_timeout = 3")
	if got := n.SQL().LockWaitTimeout(); got != 7*time.Second {
		t.Errorf("after SET SESSION innodb_lock_wait_timeout = 3: %v, want 7s (the global)", got)
	}
}
