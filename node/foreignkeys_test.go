package node_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// Foreign keys (issue 31) across a restart: the constraints are kept in
// the catalog and enforced after it (a child row with no parent is
// refused, a parent's delete still cascades), SHOW CREATE TABLE prints
// them, and the flag the fast paths read is rebuilt from the catalog.
// Then the reference checks' locks: a transaction that inserted a child
// row holds its parent, so another transaction's DELETE of the parent
// waits for it and then finds the child (1451), where an unlocked check
// would have deleted the parent under an uncommitted child.
func TestForeignKeysRestartAndLocks(t *testing.T) {
	opts := restartableOptions(t)
	n, err := node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	connect := func(n *node.Node) *sql.DB { return rootConn(t, n) }
	db := connect(n)
	mustExec(t, db, "CREATE DATABASE d", "USE d")
	db.SetMaxOpenConns(1)
	mustExec(t, db,
		"CREATE TABLE d.p (id INT PRIMARY KEY)",
		"CREATE TABLE d.c (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_c FOREIGN KEY (pid) REFERENCES d.p (id) ON DELETE CASCADE)",
		"INSERT INTO d.p VALUES (1), (2), (3)",
		"INSERT INTO d.c VALUES (10, 1), (20, 2)")
	db.Close()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n, err = node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	db = connect(n)
	var me *mysql.MySQLError
	// Prepared (the binary protocol, the write fast path's shape) and text.
	if _, err := db.Exec("INSERT INTO d.c VALUES (?, ?)", 30, 9); !errors.As(err, &me) || me.Number != 1452 {
		t.Fatalf("after a restart, a child row without its parent: %v, want 1452", err)
	}
	if _, err := db.Exec("INSERT INTO d.c VALUES (31, 9)"); !errors.As(err, &me) || me.Number != 1452 {
		t.Fatalf("after a restart, a child row without its parent (text): %v, want 1452", err)
	}
	if _, err := db.Exec("DELETE FROM d.p WHERE id = ?", 1); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.QueryRow("SELECT COUNT(*) FROM d.c").Scan(&left); err != nil || left != 1 {
		t.Fatalf("after the parent's delete: %d child rows (%v), want 1 (the cascade)", left, err)
	}
	var name, create string
	if err := db.QueryRow("SHOW CREATE TABLE d.c").Scan(&name, &create); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(create, "CONSTRAINT `fk_c` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE") {
		t.Fatalf("SHOW CREATE TABLE after a restart:\n%s", create)
	}

	// The locks of a reference check.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// waits runs child in a transaction on a, then parent's DELETE on b,
	// which must wait for a's COMMIT; it returns the DELETE's outcome.
	waits := func(child, parent string) error {
		t.Helper()
		mustExecConn(t, a, "BEGIN", child)
		done := make(chan error, 1)
		go func() {
			_, err := b.ExecContext(ctx, parent)
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("%s did not wait for the transaction holding its child: %v", parent, err)
		case <-time.After(500 * time.Millisecond):
		}
		mustExecConn(t, a, "COMMIT")
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			t.Fatalf("%s never finished", parent)
		}
		return nil
	}
	// ON DELETE CASCADE: once the child is committed the delete takes it
	// along.
	if err := waits("INSERT INTO d.c VALUES (40, 3)", "DELETE FROM d.p WHERE id = 3 AND id NOT IN (SELECT 0)"); err != nil {
		t.Fatalf("the parent's DELETE after the child's commit: %v", err)
	}
	var kids int
	if err := db.QueryRow("SELECT COUNT(*) FROM d.c WHERE pid = 3").Scan(&kids); err != nil || kids != 0 {
		t.Fatalf("child rows of the deleted parent: %d (%v), want 0 (cascaded)", kids, err)
	}
	// A parent whose child row is uncommitted cannot be deleted from under it.
	mustExec(t, db, "CREATE TABLE d.r (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES d.p (id))")
	if err := waits("INSERT INTO d.r VALUES (1, 2)", "DELETE FROM d.p WHERE id = 2 AND id NOT IN (SELECT 0)"); !errors.As(err, &me) || me.Number != 1451 {
		t.Fatalf("the parent's DELETE after the child's commit: %v, want 1451", err)
	}
	// A constraint over a secondary index and the primary-key columns
	// its entries end in, one of which the index holds already: the
	// lookup must not bound the key past that column (an entry's key is
	// fk1 pk2 pk1 pk2 pk3, the extended columns fk1 pk2 pk1 pk3).
	mustExec(t, db,
		"CREATE TABLE d.p1 (fk1 INT, pk1 INT, pk2 INT, pk3 INT, PRIMARY KEY (pk1, pk2, pk3), INDEX (fk1, pk2))",
		"INSERT INTO d.p1 VALUES (0, 1, 2, 3)",
		"CREATE TABLE d.c3 (fk1 INT, pk1 INT, pk2 INT, pk3 INT, PRIMARY KEY (pk1, pk2, pk3), CONSTRAINT fk3 FOREIGN KEY (fk1, pk2, pk1, pk3) REFERENCES d.p1 (fk1, pk2, pk1, pk3))",
		"INSERT INTO d.c3 VALUES (0, 1, 2, 3)")
	if _, err := db.Exec("INSERT INTO d.c3 VALUES (0, 1, 2, 4)"); !errors.As(err, &me) || me.Number != 1452 {
		t.Fatalf("a child of no parent row through the extended index: %v, want 1452", err)
	}
}
