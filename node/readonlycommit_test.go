package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// A transaction that wrote a base table before read_only went on cannot
// COMMIT (1290, and it stays open: ROLLBACK undoes it), as in MySQL
// (mtr's read_only_innodb); one that wrote only a temporary table
// commits. Under LOCK TABLES ... READ, a write under read_only is 1290,
// not the lock's 1099: MySQL refuses it before opening tables.
func TestReadOnlyRefusesCommit(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE ro", "CREATE TABLE ro.t1 (a INT)", "CREATE USER u@'%'", "GRANT ALL ON ro.* TO u@'%'")
	defer mustExec(t, root, "SET GLOBAL read_only = 0")
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "u", "tcp", n.Addr(), "ro"
	u, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	ctx := context.Background()
	c, err := u.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustExecConn(t, c, "BEGIN", "INSERT INTO t1 VALUES (11733)")
	mustExec(t, root, "SET GLOBAL read_only = 1")
	if _, err := c.ExecContext(ctx, "COMMIT"); errno(t, err) != 1290 {
		t.Fatalf("COMMIT: %v, want 1290", err)
	}
	mustExecConn(t, c, "ROLLBACK")
	if got := fmt.Sprint(queryRows(t, root, "SELECT COUNT(*) FROM ro.t1")); got != "[[0]]" {
		t.Errorf("t1 after the refused COMMIT: %s rows, want 0", got)
	}
	mustExecConn(t, c, "CREATE TEMPORARY TABLE tt (a INT)", "BEGIN", "INSERT INTO tt VALUES (1)", "COMMIT")
	if got := fmt.Sprint(connRows(t, c, "SELECT a FROM tt")); got != "[[1]]" {
		t.Errorf("tt: %s", got)
	}
	mustExecConn(t, c, "LOCK TABLES t1 READ, tt WRITE")
	if _, err := c.ExecContext(ctx, "INSERT INTO t1 VALUES (1)"); errno(t, err) != 1290 {
		t.Errorf("INSERT under LOCK TABLES t1 READ and read_only: %v, want 1290", err)
	}
	mustExecConn(t, c, "INSERT INTO tt VALUES (2)", "UNLOCK TABLES")
}
