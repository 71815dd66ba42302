package e2e

import (
	"testing"
	"time"
)

// TestReplicaExecModeStrict: with replica_exec_mode=STRICT (the default,
// as in MySQL) a row event whose row the replica does
// not hold stops the applier with MySQL's 1032, in SHOW REPLICA STATUS and
// the worker's performance_schema row, applying nothing of that
// transaction; an INSERT of a key the replica already holds stops it with
// 1062. Switched to IDEMPOTENT, START REPLICA applies past both, and the
// rows the source logged converge.
func TestReplicaExecModeStrict(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	_, _, sdb, rdb := replicatingPair(t, ctx,
		"CREATE DATABASE xm",
		"CREATE TABLE xm.t (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO xm.t VALUES (1, 10), (2, 20), (3, 30)")
	if v := queryString(t, ctx, rdb, "SELECT @@GLOBAL.replica_exec_mode"); v != "STRICT" {
		t.Fatalf("replica_exec_mode = %q, want the default STRICT", v)
	}
	mustExec(t, ctx, rdb, "STOP REPLICA", "SET GLOBAL slave_exec_mode = 'IDEMPOTENT'", "SET GLOBAL slave_exec_mode = 'STRICT'")
	if v := queryString(t, ctx, rdb, "SELECT @@GLOBAL.replica_exec_mode"); v != "STRICT" {
		t.Fatalf("replica_exec_mode = %q after SET GLOBAL slave_exec_mode", v)
	}
	if _, err := rdb.ExecContext(ctx, "SET GLOBAL replica_exec_mode = 'LENIENT'"); errNo(err) != 1231 {
		t.Fatalf("replica_exec_mode = 'LENIENT': %v, want 1231", err)
	}
	// The replica loses row 2 behind its source's back.
	mustExec(t, ctx, rdb, "DELETE FROM xm.t WHERE id = 2", "START REPLICA")

	// An UPDATE of the missing row, in one transaction with a change the
	// replica could apply.
	mustExec(t, ctx, sdb, "START TRANSACTION", "UPDATE xm.t SET v = 11 WHERE id = 1", "UPDATE xm.t SET v = 21 WHERE id = 2", "COMMIT")
	waitSQLError := func(want string) map[string]string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
			if st["Replica_SQL_Running"] == "No" && st["Last_SQL_Errno"] == want {
				return st
			}
			if time.Now().After(deadline) {
				t.Fatalf("the applier did not stop with %s: %v", want, st)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	st := waitSQLError("1032")
	t.Logf("stopped: %s", st["Last_SQL_Error"])
	if n := queryInt(t, ctx, rdb, "SELECT v FROM xm.t WHERE id = 1"); n != 10 {
		t.Fatalf("row 1 holds %d on the replica: the failed transaction's other change was applied", n)
	}
	if n := queryInt(t, ctx, rdb, "SELECT LAST_ERROR_NUMBER FROM performance_schema.replication_applier_status_by_worker WHERE WORKER_ID = 1"); n != 1032 {
		t.Fatalf("the worker's LAST_ERROR_NUMBER = %d, want 1032", n)
	}

	// IDEMPOTENT applies past it; then an INSERT of a key the replica
	// already holds stops a STRICT applier with 1062.
	mustExec(t, ctx, rdb, "SET GLOBAL replica_exec_mode = 'IDEMPOTENT'", "START REPLICA SQL_THREAD")
	deadline := time.Now().Add(30 * time.Second)
	for queryInt(t, ctx, rdb, "SELECT v FROM xm.t WHERE id = 1") != 11 {
		if time.Now().After(deadline) {
			t.Fatalf("IDEMPOTENT did not apply past the missing row: %v", replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	mustExec(t, ctx, rdb, "STOP REPLICA", "SET GLOBAL replica_exec_mode = 'STRICT'", "INSERT INTO xm.t VALUES (4, 99)", "START REPLICA")
	mustExec(t, ctx, sdb, "INSERT INTO xm.t VALUES (4, 40)")
	waitSQLError("1062")
	if n := queryInt(t, ctx, rdb, "SELECT v FROM xm.t WHERE id = 4"); n != 99 {
		t.Fatalf("row 4 holds %d: a STRICT applier overwrote the replica's row", n)
	}
	mustExec(t, ctx, rdb, "SET GLOBAL replica_exec_mode = 'IDEMPOTENT'", "START REPLICA SQL_THREAD")
	deadline = time.Now().Add(30 * time.Second)
	for queryInt(t, ctx, rdb, "SELECT v FROM xm.t WHERE id = 4") != 40 {
		if time.Now().After(deadline) {
			t.Fatalf("IDEMPOTENT did not overwrite row 4: %v", replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Every source GTID is applied once; the rows the source logged agree
	// (row 2 stays missing: IDEMPOTENT's UPDATE of it did nothing).
	want := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed")
	if n := queryInt(t, ctx, rdb, "SELECT GTID_SUBSET(?, @@GLOBAL.gtid_executed)", want); n != 1 {
		t.Fatalf("the replica's gtid_executed %q lacks the source's %q", queryString(t, ctx, rdb, "SELECT @@GLOBAL.gtid_executed"), want)
	}
	if got := queryString(t, ctx, rdb, "SELECT GROUP_CONCAT(CONCAT(id, ':', v) ORDER BY id) FROM xm.t"); got != "1:11,3:30,4:40" {
		t.Fatalf("replica rows %q, want 1:11,3:30,4:40", got)
	}
}
