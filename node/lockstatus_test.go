package node_test

import (
	"context"
	"testing"
	"time"
)

// TestRowLockTimeStatus: Innodb_row_lock_time, _avg and _max report the
// row-lock waits in milliseconds, as InnoDB does: a write that waits
// 300 ms for another transaction's lock shows in all three.
func TestRowLockTimeStatus(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE lt", "CREATE TABLE lt.t (id INT PRIMARY KEY, v INT)", "INSERT INTO lt.t VALUES (1, 0)")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := twoConns(t, ctx, db)
	if got := statusInt(t, db, "Innodb_row_lock_time"); got != 0 {
		t.Fatalf("Innodb_row_lock_time = %d before any wait, want 0", got)
	}
	if _, err := a.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, "UPDATE lt.t SET v = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := b.ExecContext(ctx, "UPDATE lt.t SET v = 2 WHERE id = 1")
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for statusInt(t, db, "Innodb_row_lock_current_waits") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the second UPDATE never waited")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := a.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the waiting UPDATE never finished")
	}
	waits := statusInt(t, db, "Innodb_row_lock_waits")
	total := statusInt(t, db, "Innodb_row_lock_time")
	maxMs := statusInt(t, db, "Innodb_row_lock_time_max")
	avg := statusInt(t, db, "Innodb_row_lock_time_avg")
	if waits != 1 || total < 300 || total > 10000 || maxMs != total || avg != total {
		t.Errorf("waits %d, time %d ms, max %d ms, avg %d ms; want 1 wait of at least 300 ms in all three", waits, total, maxMs, avg)
	}
	if got := queryRows(t, db, "SELECT v FROM lt.t"); got[0][0] != "2" {
		t.Errorf("v = %s, want 2", got[0][0])
	}
}
