package node_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/go-sql-driver/mysql"

	"petrel/internal/failpoint"
	"petrel/node"
)

// TestUnknownCommitOutcomeDropsConnection: a commit written to the binlog
// whose fsync then fails may or may not survive, so its client must not
// be told it failed: the server closes the connection without a reply
// (the client sees a lost connection, CR_SERVER_LOST), as MySQL going away
// under a commit does. Later writes are refused with ER_ERROR_ON_WRITE
// (1026), a definite failure. After a restart the commit is in fact
// there: it was durable, so a definite error would have invited a retry
// that applies it twice.
func TestUnknownCommitOutcomeDropsConnection(t *testing.T) {
	dir := t.TempDir() + "/d"
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	open := func() (*node.Node, *sql.DB) {
		n, err := node.Open(node.Options{Datadir: dir, RootPassword: "pw", Logger: quiet, Out: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
		cfg.Logger = &mysql.NopLogger{}
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return n, db
	}
	n, db := open()
	mustExec(t, db, "CREATE DATABASE x", "CREATE TABLE x.t (id INT PRIMARY KEY)", "INSERT INTO x.t VALUES (1)")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	failpoint.Enable("binlog.afterSync", func() error { return errors.New("injected fsync failure") })
	_, err = c.ExecContext(ctx, "INSERT INTO x.t VALUES (2)")
	failpoint.Disable("binlog.afterSync")
	c.Close()
	var me *mysql.MySQLError
	switch {
	case err == nil:
		t.Fatal("a commit whose fsync failed returned OK")
	case errors.As(err, &me):
		t.Fatalf("a commit whose outcome is unknown got a definite error: %v", err)
	}
	t.Logf("the client saw: %v", err)

	_, err = db.ExecContext(ctx, "INSERT INTO x.t VALUES (3)")
	if !errors.As(err, &me) || me.Number != 1026 {
		t.Fatalf("a write after the failed fsync: %v, want error 1026 (ER_ERROR_ON_WRITE)", err)
	}
	if err := n.Close(); err != nil {
		t.Logf("close after the failed fsync: %v", err)
	}

	n, db = open()
	defer n.Close()
	got := queryRows(t, db, "SELECT id FROM x.t ORDER BY id")
	if len(got) != 2 || got[0][0] != "1" || got[1][0] != "2" {
		t.Fatalf("rows after restart %v, want 1 and 2 (the commit with the unknown outcome was durable; 3 was refused)", got)
	}
}
