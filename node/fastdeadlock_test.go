package node_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// twoConns opens two connections of db, closed when the test ends.
func twoConns(t *testing.T, ctx context.Context, db *sql.DB) (*sql.Conn, *sql.Conn) {
	t.Helper()
	var cs [2]*sql.Conn
	for i := range cs {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		cs[i] = c
	}
	return cs[0], cs[1]
}

// TestFastWriteDeadlockVictimCommits: prepared UPDATEs (the write fast
// path) that deadlock leave the victim's transaction rolled back whole
// and ended, so its COMMIT succeeds and commits nothing, as after a
// deadlock on the GMS path; the winner's writes stand.
func TestFastWriteDeadlockVictimCommits(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE fd", "CREATE TABLE fd.t (id INT PRIMARY KEY, v INT)", "INSERT INTO fd.t VALUES (1, 0), (2, 0)")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := twoConns(t, ctx, db)
	before := statusInt(t, db, "Petrel_fast_path_writes")
	for _, c := range []struct {
		name string
		add  int
		id   int
	}{{"a", 10, 1}, {"b", 100, 2}} {
		conn := a
		if c.name == "b" {
			conn = b
		}
		if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "UPDATE fd.t SET v = v + ? WHERE id = ?", c.add, c.id); err != nil {
			t.Fatal(err)
		}
	}
	aErr := make(chan error, 1)
	go func() {
		_, err := a.ExecContext(ctx, "UPDATE fd.t SET v = v + ? WHERE id = ?", 10, 2)
		aErr <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for statusInt(t, db, "Innodb_row_lock_current_waits") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("A's UPDATE never waited for B's lock")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, bErr := b.ExecContext(ctx, "UPDATE fd.t SET v = v + ? WHERE id = ?", 100, 1)
	var errA error
	select {
	case errA = <-aErr:
	case <-time.After(15 * time.Second):
		t.Fatal("deadlock not detected")
	}
	var me *mysql.MySQLError
	victim, winner, want := a, b, "100,100"
	switch {
	case errors.As(errA, &me) && me.Number == 1213 && bErr == nil:
	case errors.As(bErr, &me) && me.Number == 1213 && errA == nil:
		victim, winner, want = b, a, "10,10"
	default:
		t.Fatalf("want one 1213 and one success; A: %v, B: %v", errA, bErr)
	}
	if _, err := victim.ExecContext(ctx, "COMMIT"); err != nil {
		t.Errorf("COMMIT on the victim after 1213: %v", err)
	}
	if _, err := winner.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatalf("COMMIT on the winner: %v", err)
	}
	if got := queryRows(t, db, "SELECT GROUP_CONCAT(v ORDER BY id) FROM fd.t"); got[0][0] != want {
		t.Errorf("rows = %s, want %s (the winner's writes only)", got[0][0], want)
	}
	if used := statusInt(t, db, "Petrel_fast_path_writes") - before; used < 3 {
		t.Errorf("%d UPDATEs took the write fast path, want at least 3", used)
	}
}
