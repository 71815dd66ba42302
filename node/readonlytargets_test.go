package node_test

import (
	"database/sql"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestReadOnlyRefusesBeforeRunning: under read_only a user without
// SUPER gets 1290 for an UPDATE, DELETE or INSERT ... SELECT of a table
// that is not temporary even when it matches no row (MySQL refuses the
// statement, not its rows; Petrel let those through), and for a
// multiple-table UPDATE or DELETE that writes such a table; writing only
// temporary tables, joined to base tables, still runs (mtr's read_only).
func TestReadOnlyRefusesBeforeRunning(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE ro", "CREATE TABLE ro.t1 (a INT)", "INSERT INTO ro.t1 VALUES (1)",
		"CREATE TABLE ro.t2 (a INT)", "CREATE USER u@'%'", "GRANT ALL ON ro.* TO u@'%'", "SET GLOBAL read_only = 1")
	defer mustExec(t, root, "SET GLOBAL read_only = 0")
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "u", "tcp", n.Addr(), "ro"
	u, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	u.SetMaxOpenConns(1)
	for _, q := range []string{
		"UPDATE t1 SET a = 1 WHERE 1 = 0",
		"DELETE FROM t1 WHERE 1 = 0",
		"INSERT INTO t1 SELECT * FROM t2",
		"UPDATE t1, t2 SET t1.a = t2.a + 1 WHERE t1.a = t2.a",
		"DELETE t1 FROM t1, t2 WHERE t1.a = t2.a",
	} {
		if _, err := u.Exec(q); errno(t, err) != 1290 {
			t.Errorf("%s: %v, want error 1290", q, err)
		}
	}
	mustExec(t, u, "CREATE TEMPORARY TABLE t3 (a INT)", "INSERT INTO t3 VALUES (1)",
		"UPDATE t1, t3 SET t3.a = t1.a + 1 WHERE t1.a = t3.a",
		"INSERT INTO t3 SELECT * FROM t2",
		"DELETE t3 FROM t1, t3 WHERE t1.a = t3.a")
}
