package node_test

import (
	"fmt"
	"testing"
)

// TestBeforeTriggerBranchWithoutNew: a BEFORE INSERT or UPDATE trigger
// whose IF or CASE sets NEW in one branch and runs another keeps the
// row's values for the other branch, as MySQL does (GMS took the empty
// row that branch left: a caught panic, 1105 "index out of range").
func TestBeforeTriggerBranchWithoutNew(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE tb", "USE tb", "CREATE TABLE t (a INT, b INT)", "CREATE TABLE c (a INT, b INT)",
		"CREATE TRIGGER bi BEFORE INSERT ON t FOR EACH ROW IF NEW.b = 1 THEN SET NEW.a = 100; ELSE SET @z = 1; END IF",
		"CREATE TRIGGER bu BEFORE UPDATE ON t FOR EACH ROW IF NEW.b = 1 THEN SET NEW.a = 200; END IF",
		"CREATE TRIGGER ci BEFORE INSERT ON c FOR EACH ROW CASE NEW.b WHEN 1 THEN SET NEW.a = NEW.a * 10; ELSE SET @z = 2; END CASE",
		"INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)",
		"UPDATE t SET b = 1 WHERE a = 2", "UPDATE t SET b = 5 WHERE a = 3",
		"INSERT INTO c VALUES (1, 1), (2, 2)")
	got := fmt.Sprint(queryRows(t, db, "SELECT a, b FROM t ORDER BY a"), queryRows(t, db, "SELECT a, b FROM c ORDER BY a"))
	if want := "[[3 5] [100 1] [200 1]] [[2 2] [10 1]]"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
}
