package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// TestTransactions checks rollback, statement atomicity, dropped
// connections, lock wait timeouts and deadlocks.
func TestTransactions(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE tx")
	db := rootDB(t, p, "tx")
	mustExec(t, ctx, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)")
	ids := func(lo, hi int) string {
		t.Helper()
		return queryString(t, ctx, db, "SELECT COALESCE(GROUP_CONCAT(id ORDER BY id), '') FROM t WHERE id BETWEEN ? AND ?", lo, hi)
	}

	t.Run("rollback", func(t *testing.T) {
		c := conn(t, ctx, db)
		mustExec(t, ctx, c, "BEGIN", "INSERT INTO t VALUES (10, 1)")
		if n := queryInt(t, ctx, c, "SELECT COUNT(*) FROM t WHERE id = 10"); n != 1 {
			t.Errorf("inside the transaction: %d rows with id 10, want 1 (read your own write)", n)
		}
		mustExec(t, ctx, c, "ROLLBACK")
		if n := queryInt(t, ctx, db, "SELECT COUNT(*) FROM t WHERE id = 10"); n != 0 {
			t.Errorf("after ROLLBACK: %d rows with id 10, want 0", n)
		}
	})

	t.Run("failed statement in transaction", func(t *testing.T) {
		c := conn(t, ctx, db)
		mustExec(t, ctx, c, "BEGIN", "INSERT INTO t VALUES (20, 1)")
		_, err := c.ExecContext(ctx, "INSERT INTO t VALUES (21, 1), (22, 1), (20, 1), (23, 1)")
		wantErrNo(t, "multi-row INSERT with a duplicate of row 20", err, erDupEntry)
		if got := queryString(t, ctx, c, "SELECT COALESCE(GROUP_CONCAT(id ORDER BY id), '') FROM t WHERE id BETWEEN 20 AND 29"); got != "20" {
			t.Errorf("inside the transaction after the failed INSERT: ids %q, want \"20\"", got)
		}
		mustExec(t, ctx, c, "INSERT INTO t VALUES (24, 1)", "COMMIT")
		if got := ids(20, 29); got != "20,24" {
			t.Errorf("after COMMIT: ids %q, want \"20,24\" (the failed statement's rows 21, 22 must be absent)", got)
		}
	})

	t.Run("failed autocommit statement", func(t *testing.T) {
		mustExec(t, ctx, db, "INSERT INTO t VALUES (30, 1)")
		_, err := db.ExecContext(ctx, "INSERT INTO t VALUES (31, 1), (32, 1), (30, 1), (33, 1)")
		wantErrNo(t, "autocommit multi-row INSERT with a duplicate in the middle", err, erDupEntry)
		if got := ids(30, 39); got != "30" {
			t.Errorf("after the failed INSERT: ids %q, want \"30\" (no row of the failed statement)", got)
		}
	})

	t.Run("dropped connection", func(t *testing.T) {
		mustExec(t, ctx, db, "INSERT INTO t VALUES (40, 100)")
		a, drop := droppableConn(t, ctx, p)
		mustExec(t, ctx, a, "BEGIN", "UPDATE t SET v = v + 1000 WHERE id = 40")
		// Close the socket under the driver: no COMMIT, no COM_QUIT.
		drop()

		b := conn(t, ctx, db)
		mustExec(t, ctx, b, "SET SESSION innodb_lock_wait_timeout = 2")
		start := time.Now()
		_, err := b.ExecContext(ctx, "UPDATE t SET v = v + 1 WHERE id = 40")
		elapsed := time.Since(start)
		if err != nil {
			t.Fatalf("UPDATE of the row the dropped connection had locked: %v after %v; want success within 2 s", err, elapsed)
		}
		if elapsed > 2*time.Second {
			t.Errorf("UPDATE of the row the dropped connection had locked took %v, want < 2 s", elapsed)
		}
		if v := queryInt(t, ctx, db, "SELECT v FROM t WHERE id = 40"); v != 101 {
			t.Errorf("v = %d, want 101 (the dropped transaction's +1000 must be absent)", v)
		}
	})

	t.Run("lock wait timeout", func(t *testing.T) {
		mustExec(t, ctx, db, "INSERT INTO t VALUES (50, 0)")
		timeouts := globalStatus(t, ctx, db, "Innodb_row_lock_timeouts")
		waits := globalStatus(t, ctx, db, "Innodb_row_lock_waits")
		a := conn(t, ctx, db)
		mustExec(t, ctx, a, "BEGIN", "UPDATE t SET v = v + 1 WHERE id = 50")
		b := conn(t, ctx, db)
		mustExec(t, ctx, b, "SET SESSION innodb_lock_wait_timeout = 1")
		start := time.Now()
		_, err := b.ExecContext(ctx, "UPDATE t SET v = v + 100 WHERE id = 50")
		elapsed := time.Since(start)
		wantErrNo(t, "conflicting UPDATE with innodb_lock_wait_timeout=1", err, erLockWaitTimeout)
		if elapsed < 900*time.Millisecond || elapsed > 3*time.Second {
			t.Errorf("lock wait timeout after %v, want 1-3 s", elapsed)
		}
		mustExec(t, ctx, a, "COMMIT")
		if v := queryInt(t, ctx, db, "SELECT v FROM t WHERE id = 50"); v != 1 {
			t.Errorf("v = %d, want 1 (A's update only)", v)
		}
		if d := globalStatus(t, ctx, db, "Innodb_row_lock_timeouts") - timeouts; d != 1 {
			t.Errorf("Innodb_row_lock_timeouts grew by %d, want 1", d)
		}
		if d := globalStatus(t, ctx, db, "Innodb_row_lock_waits") - waits; d < 1 {
			t.Errorf("Innodb_row_lock_waits grew by %d, want at least 1", d)
		}
	})

	// SELECT ... FOR UPDATE is what read-modify-write transactions (and
	// TestConcurrentTransfers) rely on: it must lock the row and read its
	// latest committed version, not the transaction's snapshot.
	t.Run("select for update", func(t *testing.T) {
		mustExec(t, ctx, db, "INSERT INTO t VALUES (70, 0)")
		a, b := conn(t, ctx, db), conn(t, ctx, db)
		mustExec(t, ctx, b, "SET SESSION innodb_lock_wait_timeout = 1")

		mustExec(t, ctx, a, "BEGIN")
		if v := queryInt(t, ctx, a, "SELECT v FROM t WHERE id = 70 FOR UPDATE"); v != 0 {
			t.Errorf("SELECT ... FOR UPDATE: v = %d, want 0", v)
		}
		_, err := b.ExecContext(ctx, "UPDATE t SET v = v + 100 WHERE id = 70")
		wantErrNo(t, "UPDATE of a row another transaction read FOR UPDATE", err, erLockWaitTimeout)
		mustExec(t, ctx, a, "UPDATE t SET v = v + 1 WHERE id = 70", "COMMIT")
		if v := queryInt(t, ctx, db, "SELECT v FROM t WHERE id = 70"); v != 1 {
			t.Errorf("after A's commit: v = %d, want 1", v)
		}

		// A takes a snapshot with a plain read; B commits a change; A's
		// locking read must see B's value.
		v0 := queryInt(t, ctx, db, "SELECT v FROM t WHERE id = 70")
		mustExec(t, ctx, a, "BEGIN")
		if v := queryInt(t, ctx, a, "SELECT v FROM t WHERE id = 70"); v != v0 {
			t.Errorf("plain read in A: v = %d, want %d", v, v0)
		}
		mustExec(t, ctx, b, "UPDATE t SET v = v + 10 WHERE id = 70")
		if v := queryInt(t, ctx, a, "SELECT v FROM t WHERE id = 70 FOR UPDATE"); v != v0+10 {
			t.Errorf("SELECT ... FOR UPDATE after another transaction committed v = %d: read %d (a stale snapshot, not the latest committed version)", v0+10, v)
		}
		mustExec(t, ctx, a, "COMMIT")
	})

	t.Run("deadlock", func(t *testing.T) {
		mustExec(t, ctx, db, "INSERT INTO t VALUES (61, 0), (62, 0)")
		deadlocks := globalStatus(t, ctx, db, "Innodb_deadlocks")
		a, b := conn(t, ctx, db), conn(t, ctx, db)
		for _, c := range []*sql.Conn{a, b} {
			mustExec(t, ctx, c, "SET SESSION innodb_lock_wait_timeout = 20")
		}
		// A adds 10 to both rows, B adds 100, in opposite orders.
		mustExec(t, ctx, a, "BEGIN", "UPDATE t SET v = v + 10 WHERE id = 61")
		mustExec(t, ctx, b, "BEGIN", "UPDATE t SET v = v + 100 WHERE id = 62")

		aErr := make(chan error, 1)
		go func() {
			_, err := a.ExecContext(ctx, "UPDATE t SET v = v + 10 WHERE id = 62")
			aErr <- err
		}()
		// Let A queue behind B's lock, so B's next statement closes the
		// cycle rather than racing A.
		waitForLockWait(t, ctx, db)
		_, bErr := b.ExecContext(ctx, "UPDATE t SET v = v + 100 WHERE id = 61")
		if bErr == nil {
			_, bErr = b.ExecContext(ctx, "COMMIT")
		}
		var errA error
		select {
		case errA = <-aErr:
		case <-time.After(15 * time.Second):
			t.Fatal("A's UPDATE still blocked 15 s after B's conflicting UPDATE: deadlock not detected")
		}
		if errA == nil {
			_, errA = a.ExecContext(ctx, "COMMIT")
		}

		var victim, winner string
		var winnerAdd int64
		switch {
		case errNo(errA) == erLockDeadlock && bErr == nil:
			victim, winner, winnerAdd = "A", "B", 100
		case errNo(bErr) == erLockDeadlock && errA == nil:
			victim, winner, winnerAdd = "B", "A", 10
		default:
			t.Fatalf("want exactly one 1213 and one commit; A: %v, B: %v", errA, bErr)
		}
		// An application that ignores the error and commits must not
		// resurrect the victim's first UPDATE.
		vc := a
		if victim == "B" {
			vc = b
		}
		if _, err := vc.ExecContext(ctx, "COMMIT"); err != nil {
			t.Errorf("COMMIT on the victim after 1213: %v", err)
		}
		got := queryString(t, ctx, db, "SELECT GROUP_CONCAT(v ORDER BY id) FROM t WHERE id IN (61, 62)")
		if want := fmt.Sprintf("%d,%d", winnerAdd, winnerAdd); got != want {
			t.Errorf("victim %s, winner %s: rows 61,62 = %s, want %s (the winner's writes only; the victim's earlier write must be rolled back)",
				victim, winner, got, want)
		}
		if d := globalStatus(t, ctx, db, "Innodb_deadlocks") - deadlocks; d != 1 {
			t.Errorf("Innodb_deadlocks grew by %d, want 1", d)
		}
	})
}

// waitForLockWait polls until some statement is waiting for a row lock.
func waitForLockWait(t *testing.T, ctx context.Context, db *sql.DB) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if globalStatus(t, ctx, db, "Innodb_row_lock_current_waits") > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("Innodb_row_lock_current_waits stayed 0 for 5 s while a conflicting UPDATE was blocked")
}

// dropSeq numbers the dial networks droppableConn registers.
var dropSeq atomic.Int64

// droppableConn opens a connection to p whose socket drop() closes
// abruptly: the server sees EOF without COM_QUIT, as when a client dies.
// The connection is dialled through a network name of its own, so its
// socket is known without asking the server.
func droppableConn(t *testing.T, ctx context.Context, p *lab.Petrel) (*sql.Conn, func()) {
	t.Helper()
	var mu sync.Mutex
	var socks []net.Conn
	network := fmt.Sprintf("e2e-drop-%d", dropSeq.Add(1))
	mysql.RegisterDialContext(network, func(ctx context.Context, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			mu.Lock()
			socks = append(socks, c)
			mu.Unlock()
		}
		return c, err
	})
	cfg := clientConfig(t, p, "root", rootPassword, "tx")
	cfg.Net = network
	db := openConfig(t, cfg)
	db.SetMaxOpenConns(1)
	c := conn(t, ctx, db)
	if err := c.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	return c, func() {
		mu.Lock()
		defer mu.Unlock()
		if len(socks) != 1 {
			t.Fatalf("droppable connection dialled %d sockets, want 1", len(socks))
		}
		if err := socks[0].Close(); err != nil {
			t.Fatalf("close socket: %v", err)
		}
	}
}
