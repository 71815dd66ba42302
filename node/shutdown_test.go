package node_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// TestShutdownInProcess drives node.Shutdown under 8 writers in one
// process (so the race detector sees the connection bookkeeping): the
// shutdown completes without error, every writer's last answer is OK,
// ER_SERVER_SHUTDOWN or a lost connection, and after reopening the
// datadir the acknowledged rows are there and the refused ones are not.
func TestShutdownInProcess(t *testing.T) {
	dir := t.TempDir() + "/d"
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	open := func() (*node.Node, *sql.DB) {
		n, err := node.Open(node.Options{Datadir: dir, RootPassword: "pw", Logger: quiet, Out: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "root", "pw", "tcp", n.Addr(), ""
		cfg.Logger = &mysql.NopLogger{}
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return n, db
	}
	n, db := open()
	mustExec(t, db, "CREATE DATABASE x", "CREATE TABLE x.t (id INT PRIMARY KEY)")
	ctx := context.Background()
	const writers = 8
	type result struct {
		acked   []int
		lastID  int
		lastErr error
	}
	results := make([]result, writers)
	var wg sync.WaitGroup
	for w := range writers {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			r := &results[w]
			for i := 0; ; i++ {
				id := w*1_000_000 + i
				var err error
				if w%2 == 0 {
					_, err = c.ExecContext(ctx, fmt.Sprintf("INSERT INTO x.t VALUES (%d)", id))
				} else {
					_, err = c.ExecContext(ctx, "INSERT INTO x.t (id) VALUES (?)", id)
				}
				if err != nil {
					r.lastID, r.lastErr = id, err
					return
				}
				r.acked = append(r.acked, id)
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := n.Shutdown(sctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	wg.Wait()

	n, db = open()
	defer n.Close()
	present := map[int]bool{}
	for _, r := range queryRows(t, db, "SELECT id FROM x.t") {
		var id int
		fmt.Sscan(r[0], &id)
		present[id] = true
	}
	acked := 0
	for w, r := range results {
		for _, id := range r.acked {
			if !present[id] {
				t.Errorf("writer %d: acknowledged id %d missing", w, id)
			}
		}
		acked += len(r.acked)
		var me *mysql.MySQLError
		switch {
		case errors.As(r.lastErr, &me) && me.Number == 1053:
			if present[r.lastID] {
				t.Errorf("writer %d: id %d refused with 1053 but present", w, r.lastID)
			}
		case errors.As(r.lastErr, &me):
			t.Errorf("writer %d: id %d got %v: a definite error other than 1053", w, r.lastID, r.lastErr)
		}
	}
	if acked == 0 || len(present) < acked || len(present) > acked+writers {
		t.Errorf("%d rows present, %d acknowledged by %d writers", len(present), acked, writers)
	}
}
