package e2e

import (
	"fmt"
	"testing"
	"time"
)

// TestReplicaTransactionRetries: a client transaction on the replica that
// holds a row locked (SELECT ... FOR UPDATE) makes the applier's update of
// that row wait innodb_lock_wait_timeout (the replica's global value) and
// fail with 1205; the applier rolls it back and applies it again
// (replica_transaction_retries, MySQL's default 10), counting each retry
// in performance_schema.replication_applier_status and
// Replica_retried_transactions, and applies it once the client commits,
// without stopping. With replica_transaction_retries = 0 the same
// conflict stops the applier with Last_SQL_Errno 1205 and nothing of the
// transaction applied; START REPLICA applies it once the lock is gone.
// Both with the single applier and with 4 workers.
func TestReplicaTransactionRetries(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	_, _, sdb, rdb := replicatingPair(t, ctx,
		"CREATE DATABASE rt",
		"CREATE TABLE rt.t (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO rt.t VALUES (1, 0), (2, 0)")
	if n := queryInt(t, ctx, rdb, "SELECT @@GLOBAL.slave_transaction_retries"); n != 10 {
		t.Fatalf("replica_transaction_retries = %d, want MySQL's default 10", n)
	}
	mustExec(t, ctx, rdb, "SET GLOBAL innodb_lock_wait_timeout = 1")
	retries := func() int64 {
		return queryInt(t, ctx, rdb, "SELECT COUNT_TRANSACTIONS_RETRIES FROM performance_schema.replication_applier_status")
	}
	waitRow := func(id, want int64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for queryInt(t, ctx, rdb, "SELECT v FROM rt.t WHERE id = ?", id) != want {
			if time.Now().After(deadline) {
				t.Fatalf("row %d never reached %d on the replica: %v", id, want, replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	v := int64(0)
	for _, workers := range []int{1, 4} {
		mustExec(t, ctx, rdb, "STOP REPLICA SQL_THREAD", fmt.Sprintf("SET GLOBAL replica_parallel_workers = %d", workers), "START REPLICA SQL_THREAD")
		before := retries()
		// A client holds row 1; the source updates rows 2 and 1 in one
		// transaction.
		lk, err := rdb.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mustExec(t, ctx, lk, "START TRANSACTION")
		if n := queryInt(t, ctx, lk, "SELECT v FROM rt.t WHERE id = 1 FOR UPDATE"); n != v {
			t.Fatalf("row 1 = %d, want %d", n, v)
		}
		v++
		mustExec(t, ctx, sdb, "START TRANSACTION", fmt.Sprintf("UPDATE rt.t SET v = %d WHERE id = 2", v), fmt.Sprintf("UPDATE rt.t SET v = %d WHERE id = 1", v), "COMMIT")
		deadline := time.Now().Add(30 * time.Second)
		for retries()-before < 2 {
			if time.Now().After(deadline) {
				t.Fatalf("%d workers: the applier did not retry: %d retries; %v", workers, retries()-before, replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS"))
			}
			time.Sleep(100 * time.Millisecond)
		}
		st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
		if st["Replica_SQL_Running"] != "Yes" || st["Last_SQL_Errno"] != "0" {
			t.Fatalf("%d workers: the applier stopped on a lock it retries: %v", workers, st)
		}
		if n := queryInt(t, ctx, rdb, "SELECT v FROM rt.t WHERE id = 2"); n != v-1 {
			t.Fatalf("%d workers: row 2 = %d while the transaction waits, want %d: half a transaction applied", workers, n, v-1)
		}
		mustExec(t, ctx, lk, "COMMIT")
		lk.Close()
		waitRow(1, v)
		waitRow(2, v)
		n := retries() - before
		if s := globalStatus(t, ctx, rdb, "Replica_retried_transactions"); s < n+before {
			t.Errorf("Replica_retried_transactions %d, want at least %d", s, n+before)
		}
		t.Logf("%d workers: applied after %d retries", workers, n)

		// No retries: the applier stops at the first lock wait timeout.
		mustExec(t, ctx, rdb, "SET GLOBAL replica_transaction_retries = 0")
		lk, err = rdb.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mustExec(t, ctx, lk, "START TRANSACTION")
		queryInt(t, ctx, lk, "SELECT v FROM rt.t WHERE id = 1 FOR UPDATE")
		v++
		mustExec(t, ctx, sdb, "START TRANSACTION", fmt.Sprintf("UPDATE rt.t SET v = %d WHERE id = 2", v), fmt.Sprintf("UPDATE rt.t SET v = %d WHERE id = 1", v), "COMMIT")
		deadline = time.Now().Add(30 * time.Second)
		for {
			st = replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
			if st["Replica_SQL_Running"] == "No" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d workers, no retries: the applier did not stop: %v", workers, st)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if st["Last_SQL_Errno"] != "1205" {
			t.Fatalf("%d workers, no retries: Last_SQL_Errno %s (%s), want 1205", workers, st["Last_SQL_Errno"], st["Last_SQL_Error"])
		}
		if n := queryInt(t, ctx, rdb, "SELECT v FROM rt.t WHERE id = 2"); n != v-1 {
			t.Fatalf("%d workers, no retries: row 2 = %d after the failure, want %d", workers, n, v-1)
		}
		mustExec(t, ctx, lk, "COMMIT")
		lk.Close()
		mustExec(t, ctx, rdb, "SET GLOBAL replica_transaction_retries = 10", "START REPLICA SQL_THREAD")
		waitRow(1, v)
		waitRow(2, v)
	}
	want := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed")
	if n := queryInt(t, ctx, rdb, "SELECT GTID_SUBSET(?, @@GLOBAL.gtid_executed)", want); n != 1 {
		t.Fatalf("the replica's gtid_executed lacks the source's %q", want)
	}
}
