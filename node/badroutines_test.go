package node_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// Issue 31's bad input: a procedure that recurses past
// max_sp_recursion_depth (1456; 0 by default, so any recursion; raised,
// the limit holds), a trigger that writes its own table (1442, the statement
// leaves nothing behind), and foreign keys in a cycle, loaded with
// foreign_key_checks=0 and enforced afterwards, a delete cascading round
// the cycle.
func TestRoutineAndConstraintBadInput(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE d", "USE d", "CREATE TABLE log (n INT)",
		"CREATE PROCEDURE rec(IN n INT) BEGIN INSERT INTO log VALUES (n); IF n > 0 THEN CALL rec(n - 1); END IF; END",
		"CREATE PROCEDURE once(IN n INT) BEGIN INSERT INTO log VALUES (n); END")
	var me *mysql.MySQLError
	if _, err := db.Exec("CALL rec(2)"); !errors.As(err, &me) || me.Number != 1456 {
		t.Fatalf("a recursive CALL: %v, want 1456", err)
	}
	if _, err := db.Exec("CALL rec(0)"); err != nil {
		t.Fatalf("a CALL that does not recurse: %v", err)
	}
	if _, err := db.Exec("CALL once(7)"); err != nil {
		t.Fatalf("a second procedure after a refused recursion: %v", err)
	}
	// Raised, the depth is the limit: rec(2) recurses twice, rec(3)
	// three times.
	mustExec(t, db, "DELETE FROM log", "SET SESSION max_sp_recursion_depth = 2", "CALL rec(2)")
	var logged int
	if err := db.QueryRow("SELECT COUNT(*) FROM log").Scan(&logged); err != nil || logged != 3 {
		t.Fatalf("rows of CALL rec(2) at depth 2: %d (%v), want 3", logged, err)
	}
	if _, err := db.Exec("CALL rec(3)"); !errors.As(err, &me) || me.Number != 1456 || !strings.Contains(me.Message, "Recursive limit 2") {
		t.Fatalf("CALL rec(3) at depth 2: %v, want 1456 naming the limit 2", err)
	}
	mustExec(t, db, "SET SESSION max_sp_recursion_depth = 0")

	mustExec(t, db, "CREATE TABLE tw (id INT PRIMARY KEY, v INT)",
		"CREATE TRIGGER tw_ai AFTER INSERT ON tw FOR EACH ROW UPDATE tw SET v = v + 1 WHERE id = NEW.id")
	if _, err := db.Exec("INSERT INTO tw VALUES (1, 1), (2, 2)"); !errors.As(err, &me) || me.Number != 1442 {
		t.Fatalf("a trigger writing its own table: %v, want 1442", err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM tw").Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after the refused INSERT: %d (%v), want 0", n, err)
	}

	mustExec(t, db, "SET foreign_key_checks = 0",
		"CREATE TABLE a (id INT PRIMARY KEY, b_id INT, CONSTRAINT fk_ab FOREIGN KEY (b_id) REFERENCES b (id) ON DELETE CASCADE)",
		"CREATE TABLE b (id INT PRIMARY KEY, a_id INT, CONSTRAINT fk_ba FOREIGN KEY (a_id) REFERENCES a (id) ON DELETE CASCADE)",
		"INSERT INTO a VALUES (1, 10), (2, 20)",
		"INSERT INTO b VALUES (10, 2), (20, 1)",
		"SET foreign_key_checks = 1")
	if _, err := db.Exec("INSERT INTO a VALUES (3, 99)"); !errors.As(err, &me) || me.Number != 1452 {
		t.Fatalf("a row of the cycle without its parent: %v, want 1452", err)
	}
	// a1 -> b10 -> a2 -> b20 -> a1: deleting a1 cascades round the cycle.
	if _, err := db.Exec("DELETE FROM a WHERE id = 1"); err != nil {
		t.Fatalf("a delete cascading round a cycle: %v", err)
	}
	var left int
	if err := db.QueryRow("SELECT (SELECT COUNT(*) FROM a) + (SELECT COUNT(*) FROM b)").Scan(&left); err != nil || left != 0 {
		t.Fatalf("rows left after the cycle's cascade: %d (%v), want 0", left, err)
	}
}
