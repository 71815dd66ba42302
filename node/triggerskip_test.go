package node_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestTriggersNeverSkipped: an INSERT ... ON DUPLICATE KEY UPDATE on a
// table with an UPDATE trigger, and a REPLACE on a table with a DELETE
// trigger, are refused with 1235 and change nothing (GMS fired only the
// INSERT triggers: the UPDATE trigger's SET NEW.n and the DELETE
// triggers' log rows were silently skipped); on tables without such
// triggers both run, their INSERT triggers firing.
func TestTriggersNeverSkipped(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE tg", "USE tg",
		"CREATE TABLE tg.t (id INT PRIMARY KEY, a INT, n INT DEFAULT 0)",
		"CREATE TABLE tg.r (id INT PRIMARY KEY, a INT)",
		"CREATE TABLE tg.u (id INT PRIMARY KEY, a INT)",
		"CREATE TABLE tg.log (msg VARCHAR(50))",
		"CREATE TRIGGER tg.bu BEFORE UPDATE ON tg.t FOR EACH ROW SET NEW.n = OLD.n + 1",
		"CREATE TRIGGER tg.bd BEFORE DELETE ON `tg`.`r` FOR EACH ROW INSERT INTO tg.log VALUES (CONCAT('bd ', OLD.a))",
		"CREATE TRIGGER tg.bi BEFORE INSERT ON u FOR EACH ROW INSERT INTO tg.log VALUES (CONCAT('bi ', NEW.a))",
		"INSERT INTO tg.t VALUES (1, 10, 0)", "INSERT INTO tg.r VALUES (1, 10)")
	for _, q := range []string{
		"INSERT INTO tg.t VALUES (1, 20, 0) ON DUPLICATE KEY UPDATE a = VALUES(a)",
		"REPLACE INTO tg.r VALUES (1, 20)",
	} {
		_, err := db.Exec(q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1235 {
			t.Errorf("%s: %v, want error 1235", q, err)
		}
	}
	// Nothing changed: a prepared statement is refused too.
	if _, err := db.Exec("INSERT INTO tg.t VALUES (1, ?, 0) ON DUPLICATE KEY UPDATE a = VALUES(a)", 30); err == nil {
		t.Error("prepared INSERT ... ON DUPLICATE KEY UPDATE on a table with an UPDATE trigger ran")
	}
	mustExec(t, db, "INSERT INTO tg.u VALUES (1, 1) ON DUPLICATE KEY UPDATE a = 5",
		"INSERT INTO tg.u VALUES (1, 2) ON DUPLICATE KEY UPDATE a = 6", "REPLACE INTO tg.u VALUES (2, 7)")
	got := fmt.Sprint(queryRows(t, db, "SELECT id, a, n FROM tg.t"), queryRows(t, db, "SELECT id, a FROM tg.r"),
		queryRows(t, db, "SELECT id, a FROM tg.u ORDER BY id"), queryRows(t, db, "SELECT msg FROM tg.log ORDER BY msg"))
	want := "[[1 10 0]] [[1 10]] [[1 6] [2 7]] [[bi 1] [bi 2] [bi 7]]"
	if got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
}
