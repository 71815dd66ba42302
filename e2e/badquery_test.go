package e2e

import (
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

// rssPeak samples pid's RSS every 50 ms until stop is closed and returns
// the largest.
func rssPeak(pid int, stop <-chan struct{}) int64 {
	var peak int64
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if n, err := readRSS(pid); err == nil && n > peak {
			peak = n
		}
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}

// TestRunawayQueriesBounded: a query whose plan reads far more than the
// data (a three-way cross join of a 3000-row table, 27 billion rows; a
// sort of a 9-million-row cross join) ends at max_execution_time with
// 3024, or at KILL QUERY with 1317, from a real petrel process; its RSS
// during them stays under the memory budget (--memory-limit 1G), falls
// back near where it started after them, and the session and server go
// on serving.
func TestRunawayQueriesBounded(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	t0 := time.Now()
	p := startPetrel(t, ctx, lab.PetrelOptions{ExtraArgs: []string{"--skip-log-bin", "--memory-limit", "1G"}})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE d", "CREATE TABLE d.a (id INT PRIMARY KEY, v INT)",
		"INSERT INTO d.a WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i < 3000) SELECT i, i FROM s")
	if got := globalStatus(t, ctx, db, "Petrel_gc_memory_limit"); got != 1<<30 {
		t.Errorf("Go's memory limit = %d, want --memory-limit's %d", got, 1<<30)
	}
	t.Logf("setup done after %v", time.Since(t0))
	start := vmRSS(t, p.Pid())
	stop := make(chan struct{})
	peakc := make(chan int64, 1)
	go func() { peakc <- rssPeak(p.Pid(), stop) }()

	c := conn(t, ctx, db)
	mustExec(t, ctx, c, "SET SESSION max_execution_time = 500")
	began := time.Now()
	_, err := c.ExecContext(ctx, "SELECT COUNT(*) FROM d.a x, d.a y, d.a z")
	wantErrNo(t, "cross join under max_execution_time 500", err, 3024)
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("max_execution_time 500 ms ended the query after %v", d)
	}
	mustExec(t, ctx, c, "SET SESSION max_execution_time = 1000")
	_, err = c.ExecContext(ctx, "SELECT x.id, y.id FROM d.a x, d.a y ORDER BY x.v * y.v + y.id LIMIT 1")
	wantErrNo(t, "sorted cross join under max_execution_time 1000", err, 3024)
	// The session goes on; statements other than reads are not timed.
	if got := queryInt(t, ctx, c, "SELECT COUNT(*) FROM d.a"); got != 3000 {
		t.Errorf("after 3024: %d rows, want 3000", got)
	}

	t.Logf("3024s done after %v", time.Since(t0))
	// KILL QUERY from another session.
	k := conn(t, ctx, db)
	id := queryInt(t, ctx, k, "SELECT CONNECTION_ID()")
	var wg sync.WaitGroup
	var kerr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, kerr = k.ExecContext(ctx, "SELECT COUNT(*) FROM d.a x, d.a y, d.a z")
	}()
	deadline := time.Now().Add(20 * time.Second)
	for queryInt(t, ctx, db, "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ? AND info LIKE 'SELECT COUNT(*) FROM d.a x%'", id) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the cross join never showed in the process list")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	mustExec(t, ctx, db, "KILL QUERY "+itoa(int(id)))
	wg.Wait()
	wantErrNo(t, "cross join ended by KILL QUERY", kerr, 1317)
	if got := queryInt(t, ctx, k, "SELECT COUNT(*) FROM d.a WHERE id <= 10"); got != 10 {
		t.Errorf("after 1317: %d rows, want 10", got)
	}
	t.Logf("1317 done after %v", time.Since(t0))
	close(stop)
	peak := <-peakc
	t.Logf("RSS: start %d MiB, peak %d MiB", start>>20, peak>>20)
	if peak > 1<<30 {
		t.Errorf("RSS peaked at %d MiB, past the 1024 MiB budget", peak>>20)
	}
	// The heap the sort left goes back to the OS (node's memReturner).
	var now int64
	for end := time.Now().Add(45 * time.Second); time.Now().Before(end); time.Sleep(time.Second) {
		if now = vmRSS(t, p.Pid()); now <= start+256<<20 {
			break
		}
	}
	if now > start+256<<20 {
		t.Errorf("RSS %d MiB 45 s after the queries, start %d MiB: not returned", now>>20, start>>20)
	}
}
