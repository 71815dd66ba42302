package node_test

import (
	"context"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// A lock clause is the parsed statement's, never words in its text: a
// plain SELECT whose literal or comment says "for update" takes no row
// locks and keeps its REPEATABLE READ snapshot; a real FOR UPDATE, text or
// prepared, locks.
func TestLockClauseFromParse(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE lk", "CREATE TABLE lk.t (id INT PRIMARY KEY, c VARCHAR(40), v INT)",
		"INSERT INTO lk.t VALUES (1, 'for update', 10), (2, 'lock in share mode', 20)")
	ctx := context.Background()
	a, b := twoConns(t, ctx, db)
	if _, err := b.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	want := int64(10)
	for _, tc := range []struct {
		name    string
		q       string
		args    []any
		locking bool
	}{
		{"literal, text", "SELECT v FROM lk.t WHERE c = 'for update' AND id = 1", nil, false},
		{"comment, text", "SELECT v FROM lk.t /* for update */ WHERE id = 1", nil, false},
		{"literal, prepared", "SELECT v FROM lk.t WHERE c <> 'lock in share mode' AND id = ?", []any{1}, false},
		{"clause, text", "SELECT v FROM lk.t WHERE id = 1 FOR UPDATE", nil, true},
		{"clause, prepared", "SELECT v FROM lk.t WHERE id = ? FOR UPDATE", []any{1}, true},
		{"share, text", "SELECT v FROM lk.t WHERE id = 1 LOCK IN SHARE MODE", nil, true},
	} {
		if _, err := a.ExecContext(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		var got int64
		if err := a.QueryRowContext(ctx, tc.q, tc.args...).Scan(&got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != want {
			t.Fatalf("%s: read %d, want %d", tc.name, got, want)
		}
		_, err := b.ExecContext(ctx, "UPDATE lk.t SET v = v + 1 WHERE id = 1")
		var me *mysql.MySQLError
		switch {
		case tc.locking && (err == nil || !asMySQL(err, &me) || me.Number != 1205):
			t.Fatalf("%s: another session's UPDATE of the locked row: %v, want 1205", tc.name, err)
		case !tc.locking && err != nil:
			t.Fatalf("%s: another session's UPDATE waited on a plain read: %v", tc.name, err)
		}
		if !tc.locking {
			// The plain read kept its snapshot: the committed update is
			// not seen inside the transaction.
			if err := a.QueryRowContext(ctx, "SELECT v FROM lk.t WHERE id = 1").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("%s: second read in the transaction saw %d, want the snapshot's %d", tc.name, got, want)
			}
			want++
		}
		if _, err := a.ExecContext(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
	}
	// After the locking statements, the next plain statement does not lock.
	if _, err := a.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if n := connRowCount(t, a, "SELECT v FROM lk.t WHERE id = 2"); n != 1 {
		t.Fatalf("rows %d", n)
	}
	if _, err := b.ExecContext(ctx, "UPDATE lk.t SET v = v + 1 WHERE id = 2"); err != nil {
		t.Fatalf("a plain read after a locking one locked: %v", err)
	}
	if _, err := a.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
}
