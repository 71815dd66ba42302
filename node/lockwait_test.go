package node_test

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// SELECT ... FOR UPDATE | FOR SHARE with SKIP LOCKED leaves out the rows
// another transaction holds (the job-queue idiom) and NOWAIT fails at
// once with 3572, over the text and the binary protocol; the rows they
// do read are locked for their own transaction.
func TestSkipLockedAndNoWait(t *testing.T) {
	ctx := context.Background()
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE q", "CREATE TABLE q.jobs (id INT PRIMARY KEY, state VARCHAR(10))",
		"INSERT INTO q.jobs VALUES (1, 'new'), (2, 'new'), (3, 'new'), (4, 'new')", "SET GLOBAL innodb_lock_wait_timeout = 20")
	conn := func() *sql.Conn {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	ids := func(c *sql.Conn, q string, args ...any) ([]int, error) {
		rows, err := c.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []int
		for rows.Next() {
			var id int
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			out = append(out, id)
		}
		return out, rows.Err()
	}
	a, b, c := conn(), conn(), conn()
	mustExecConn(t, a, "BEGIN")
	if got, err := ids(a, "SELECT id FROM q.jobs WHERE id <= 2 ORDER BY id FOR UPDATE"); err != nil || !reflect.DeepEqual(got, []int{1, 2}) {
		t.Fatalf("a's rows: %v, %v", got, err)
	}
	// b takes what a does not hold, in a transaction: then c gets none.
	mustExecConn(t, b, "BEGIN")
	start := time.Now()
	if got, err := ids(b, "SELECT id FROM q.jobs ORDER BY id FOR UPDATE SKIP LOCKED"); err != nil || !reflect.DeepEqual(got, []int{3, 4}) {
		t.Fatalf("b SKIP LOCKED: %v, %v; want [3 4]", got, err)
	}
	if got, err := ids(c, "SELECT id FROM q.jobs WHERE id >= ? ORDER BY id FOR SHARE SKIP LOCKED", 1); err != nil || len(got) != 0 {
		t.Fatalf("c SKIP LOCKED (prepared) with every row held: %v, %v; want none", got, err)
	}
	var me *mysql.MySQLError
	for _, q := range []string{"SELECT id FROM q.jobs WHERE id = 1 FOR UPDATE NOWAIT", "SELECT id FROM q.jobs WHERE id = ? FOR UPDATE NOWAIT"} {
		var args []any
		if q[len(q)-len("? FOR UPDATE NOWAIT"):][0] == '?' {
			args = []any{3}
		}
		if _, err := ids(c, q, args...); !errors.As(err, &me) || me.Number != 3572 {
			t.Fatalf("%s: %v, want 3572", q, err)
		}
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("SKIP LOCKED and NOWAIT took %v: they waited for locks", waited)
	}
	mustExecConn(t, a, "COMMIT")
	if got, err := ids(c, "SELECT id FROM q.jobs ORDER BY id FOR UPDATE SKIP LOCKED"); err != nil || !reflect.DeepEqual(got, []int{1, 2}) {
		t.Fatalf("c after a's COMMIT: %v, %v; want [1 2]", got, err)
	}
	mustExecConn(t, b, "ROLLBACK")
}
