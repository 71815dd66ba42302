package e2e

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestReplicaKeylessTable: a table without a primary key, replicated with
// the single applier and with 4 workers (STRICT replica_exec_mode).
//   - Back-to-back UPDATEs of one row: each transaction's row image is the
//     row the one before it wrote. A keyless row is found by a scan, not
//     by a key whose lock would make it wait, so the applier lets the
//     commits before such a transaction complete first (sched.go; the
//     workers schedule it after everything before it); otherwise the
//     replica stops with 1032.
//   - Two sessions on the source each DELETE ... LIMIT 1 of identical
//     rows: every DELETE deletes one row, none is lost.
//
// Both servers end with the same rows and the replica's applier still runs.
func TestReplicaKeylessTable(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	_, _, sdb, rdb := replicatingPair(t, ctx,
		"CREATE DATABASE kl",
		"CREATE TABLE kl.t (a INT NOT NULL, b INT NOT NULL)",
		"INSERT INTO kl.t VALUES (1, 0), (2, 0)")
	const updates, dupes = 150, 40
	for _, workers := range []int{1, 4} {
		mustExec(t, ctx, rdb, "STOP REPLICA SQL_THREAD", fmt.Sprintf("SET GLOBAL replica_parallel_workers = %d", workers), "START REPLICA SQL_THREAD")
		mustExec(t, ctx, sdb, "DELETE FROM kl.t WHERE a = 3")
		for i := 0; i < dupes; i++ {
			mustExec(t, ctx, sdb, "INSERT INTO kl.t VALUES (3, 7)")
		}
		before := queryInt(t, ctx, sdb, "SELECT b FROM kl.t WHERE a = 1")
		for i := 0; i < updates; i++ {
			mustExec(t, ctx, sdb, "UPDATE kl.t SET b = b + 1 WHERE a = 1")
		}
		var wg sync.WaitGroup
		errs := make(chan error, 2*dupes)
		for s := 0; s < 2; s++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < dupes/2; i++ {
					res, err := sdb.ExecContext(ctx, "DELETE FROM kl.t WHERE a = 3 LIMIT 1")
					if err != nil {
						errs <- err
						return
					}
					if n, _ := res.RowsAffected(); n != 1 {
						errs <- fmt.Errorf("DELETE ... LIMIT 1 affected %d rows, want 1", n)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if n := queryInt(t, ctx, sdb, "SELECT COUNT(*) FROM kl.t WHERE a = 3"); n != 0 {
			t.Fatalf("%d workers: %d rows of a = 3 left on the source after %d acknowledged deletes of %d rows", workers, n, dupes, dupes)
		}
		if n := queryInt(t, ctx, sdb, "SELECT b FROM kl.t WHERE a = 1"); n != before+updates {
			t.Fatalf("%d workers: b = %d on the source, want %d", workers, n, before+updates)
		}
		waitCaughtUp(t, ctx, sdb, rdb, 60*time.Second)
		if n := sameTable(t, ctx, sdb, rdb, "kl.t", "a, b"); n != 2 {
			t.Fatalf("%d workers: %d rows, want 2", workers, n)
		}
		st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
		if st["Replica_SQL_Running"] != "Yes" || st["Last_SQL_Errno"] != "0" {
			t.Fatalf("%d workers: applier: %v", workers, st)
		}
	}
}
