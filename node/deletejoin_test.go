package node_test

import (
	"fmt"
	"testing"
)

// TestDeleteJoinWithTriggers: a multiple-table DELETE whose one target
// has DELETE triggers (GMS refused it: 1105 "delete from with explicit
// target tables does not support triggers") deletes the target's rows a
// joined row matches, each once, firing its triggers once per row:
// comma and JOIN ... ON forms, an aliased target, a prepared statement
// run twice, and a procedure's. A target without triggers, and an outer
// join, keep GMS's multiple-table DELETE.
func TestDeleteJoinWithTriggers(t *testing.T) {
	_, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE dj")
	db := open("dj")
	mustExec(t, db,
		"CREATE TABLE t1 (id INT, data INT)",
		"CREATE TABLE t2 (id INT)",
		"CREATE TABLE t3 (data INT)",
		"CREATE TRIGGER t1_bd BEFORE DELETE ON t1 FOR EACH ROW INSERT INTO t3 VALUES (OLD.data)",
		"INSERT INTO t2 VALUES (1), (3), (3), (5)")
	exec := func(q string, args ...any) int64 {
		t.Helper()
		res, err := db.Exec(q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		n, _ := res.RowsAffected()
		return n
	}
	rows := func(q string) string {
		t.Helper()
		return fmt.Sprint(queryRows(t, db, q))
	}
	fill := func() {
		t.Helper()
		mustExec(t, db, "DELETE FROM t3", "INSERT INTO t1 VALUES (1, 10), (2, 20), (3, 30), (3, 31), (4, 40)")
	}
	for _, q := range []string{
		"DELETE t1 FROM t1, t2 WHERE t1.id = t2.id",
		"DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.id",
		"DELETE a FROM t1 AS a INNER JOIN t2 b ON a.id = b.id WHERE a.data > 0",
		"DELETE FROM t1 USING t1, t2 WHERE t1.id = t2.id",
		"CALL p()",
	} {
		if q == "CALL p()" {
			mustExec(t, db, "CREATE PROCEDURE p() DELETE t1 FROM t1, t2 WHERE t1.id = t2.id")
		}
		fill()
		if n := exec(q); n != 3 && q != "CALL p()" {
			t.Errorf("%s: %d rows affected, want 3", q, n)
		}
		if got, want := rows("SELECT id, data FROM t1 ORDER BY id"), "[[2 20] [4 40]]"; got != want {
			t.Errorf("%s: t1 %s, want %s", q, got, want)
		}
		if got, want := rows("SELECT data FROM t3 ORDER BY data"), "[[10] [30] [31]]"; got != want {
			t.Errorf("%s: the trigger's rows %s, want %s", q, got, want)
		}
		mustExec(t, db, "DELETE FROM t1")
	}
	// Prepared (go-sql-driver prepares a statement with a placeholder).
	fill()
	for i, want := range []int64{2, 0} {
		if n := exec("DELETE t1 FROM t1, t2 WHERE t1.id = t2.id AND t1.data > ?", 15); n != want {
			t.Errorf("prepared DELETE, run %d: %d rows affected, want %d", i+1, n, want)
		}
	}
	if got, want := rows("SELECT data FROM t3 ORDER BY data"), "[[30] [31]]"; got != want {
		t.Errorf("prepared: the trigger's rows %s, want %s", got, want)
	}
	// GMS's own: no trigger on the target; a LEFT JOIN.
	mustExec(t, db, "CREATE TABLE t4 (id INT)", "INSERT INTO t4 VALUES (1), (2), (3)",
		"DELETE t4 FROM t4, t2 WHERE t4.id = t2.id AND t2.id > 1")
	if got, want := rows("SELECT id FROM t4 ORDER BY id"), "[[1] [2]]"; got != want {
		t.Errorf("t4 after the join delete: %s, want %s", got, want)
	}
	mustExec(t, db, "DELETE t4 FROM t4 LEFT JOIN t2 ON t4.id = t2.id WHERE t2.id IS NULL")
	if got, want := rows("SELECT id FROM t4 ORDER BY id"), "[[1]]"; got != want {
		t.Errorf("t4 after the left join delete: %s, want %s", got, want)
	}
}
