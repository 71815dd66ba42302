package node_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestDuplicateKeyTriggers: an INSERT ... ON DUPLICATE KEY UPDATE fires
// the table's BEFORE and AFTER UPDATE triggers for each row it updates
// (unchanged rows too, MySQL's trigger-33083), a BEFORE UPDATE trigger's
// SET NEW.x is stored, and a trigger's SIGNAL fails the statement (1644)
// and undoes it; a REPLACE fires the DELETE triggers for each row it
// replaces, and the AFTER INSERT triggers see the new row. GMS fired only
// the INSERT triggers (Petrel refused both with 1235 until it ran them),
// the AFTER INSERT ones for updated rows too, and with the replaced row's
// values as NEW.
func TestDuplicateKeyTriggers(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE tg", "USE tg",
		"CREATE TABLE tg.t (id INT PRIMARY KEY, a INT, n INT DEFAULT 0)",
		"CREATE TABLE tg.r (id INT PRIMARY KEY, a INT)",
		"CREATE TABLE tg.log (id INT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(50))",
		"CREATE TRIGGER tg.bu BEFORE UPDATE ON tg.t FOR EACH ROW SET NEW.n = OLD.n + 1",
		"CREATE TRIGGER tg.bu2 BEFORE UPDATE ON tg.t FOR EACH ROW INSERT INTO tg.log (msg) VALUES (CONCAT('bu ', OLD.a, ' ', NEW.a, ' ', NEW.n))",
		"CREATE TRIGGER tg.au AFTER UPDATE ON t FOR EACH ROW INSERT INTO tg.log (msg) VALUES (CONCAT('au ', OLD.a, ' ', NEW.a))",
		"CREATE TRIGGER tg.bi BEFORE INSERT ON tg.t FOR EACH ROW INSERT INTO tg.log (msg) VALUES (CONCAT('bi ', NEW.id))",
		"CREATE TRIGGER tg.ai AFTER INSERT ON tg.t FOR EACH ROW INSERT INTO tg.log (msg) VALUES (CONCAT('ai ', NEW.id, ' ', NEW.a))",
		"CREATE TRIGGER tg.rai AFTER INSERT ON tg.r FOR EACH ROW INSERT INTO tg.log (msg) VALUES (CONCAT('rai ', NEW.id, ' ', NEW.a))",
		"CREATE TRIGGER tg.bd BEFORE DELETE ON `tg`.`r` FOR EACH ROW INSERT INTO tg.log (msg) VALUES (CONCAT('bd ', OLD.a))",
		"CREATE TRIGGER tg.ad AFTER DELETE ON `tg`.`r` FOR EACH ROW INSERT INTO tg.log (msg) VALUES (CONCAT('ad ', OLD.a))",
		"INSERT INTO tg.t VALUES (1, 10, 0)", "INSERT INTO tg.r VALUES (1, 10)", "DELETE FROM tg.log")
	mustExec(t, db, "INSERT INTO tg.t VALUES (1, 10, 0) ON DUPLICATE KEY UPDATE a = VALUES(a)",
		"INSERT INTO tg.t VALUES (1, 20, 0), (2, 30, 0) ON DUPLICATE KEY UPDATE a = VALUES(a)",
		"REPLACE INTO tg.r VALUES (1, 20), (2, 30)")
	if _, err := db.Exec("INSERT INTO tg.t VALUES (1, ?, 0) ON DUPLICATE KEY UPDATE a = VALUES(a)", 40); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(queryRows(t, db, "SELECT id, a, n FROM tg.t ORDER BY id"), queryRows(t, db, "SELECT id, a FROM tg.r ORDER BY id"),
		queryRows(t, db, "SELECT msg FROM tg.log ORDER BY id"))
	want := "[[1 40 3] [2 30 0]] [[1 20] [2 30]] [[bi 1] [bu 10 10 1] [au 10 10] [bi 1] [bu 10 20 2] [au 10 20] [bi 2] [ai 2 30] " +
		"[bd 10] [ad 10] [rai 1 20] [rai 2 30] [bi 1] [bu 20 40 3] [au 20 40]]"
	if got != want {
		t.Errorf("rows %s,\nwant %s", got, want)
	}
	// A failing AFTER UPDATE trigger fails the statement and undoes it.
	mustExec(t, db, "DELETE FROM tg.log",
		"CREATE TRIGGER tg.au2 AFTER UPDATE ON tg.t FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no'")
	_, err := db.Exec("INSERT INTO tg.t VALUES (2, 50, 0) ON DUPLICATE KEY UPDATE a = VALUES(a)")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1644 {
		t.Errorf("a failing AFTER UPDATE trigger: %v, want error 1644", err)
	}
	got = fmt.Sprint(queryRows(t, db, "SELECT id, a, n FROM tg.t ORDER BY id"), queryRows(t, db, "SELECT COUNT(*) FROM tg.log"))
	if want := "[[1 40 3] [2 30 0]] [[0]]"; got != want {
		t.Errorf("after the failed statement: %s, want %s", got, want)
	}
}
