package node_test

import (
	"fmt"
	"testing"
)

// TestUpdateDeleteWithExists: single-table UPDATE and DELETE whose WHERE
// holds a correlated [NOT] EXISTS (GMS failed each with 1105 "attempted
// to evaluate uninitialized subquery") write the rows MySQL writes, on a
// table with a primary key and one without, with a DELETE trigger, and
// as a prepared statement run twice.
func TestUpdateDeleteWithExists(t *testing.T) {
	_, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE dx")
	db := open("dx")
	mustExec(t, db,
		"CREATE TABLE t (id INT PRIMARY KEY, v INT)",
		"CREATE TABLE k (id INT, v INT)",
		"CREATE TABLE u (id INT)",
		"CREATE TABLE gone (v INT)",
		"CREATE TRIGGER k_bd BEFORE DELETE ON k FOR EACH ROW INSERT INTO gone VALUES (OLD.v)",
		"INSERT INTO t VALUES (1, 10), (2, 20), (3, 30), (4, 40)",
		"INSERT INTO k VALUES (1, 10), (2, 20), (3, 30), (3, 31)",
		"INSERT INTO u VALUES (1), (3), (3)")
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
	if n := exec("UPDATE t SET v = v + 1 WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id)"); n != 2 {
		t.Errorf("UPDATE ... EXISTS: %d rows affected, want 2", n)
	}
	if n := exec("DELETE FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.id = t.id) AND v > 30"); n != 1 {
		t.Errorf("DELETE ... NOT EXISTS: %d rows affected, want 1", n)
	}
	if got, want := rows("SELECT * FROM t ORDER BY id"), "[[1 11] [2 20] [3 31]]"; got != want {
		t.Errorf("t: %s, want %s", got, want)
	}
	if n := exec("DELETE FROM k WHERE EXISTS (SELECT 1 FROM u WHERE u.id = k.id)"); n != 3 {
		t.Errorf("DELETE ... EXISTS on the keyless table: %d rows affected, want 3", n)
	}
	if got, want := rows("SELECT * FROM k"), "[[2 20]]"; got != want {
		t.Errorf("k: %s, want %s", got, want)
	}
	if got, want := rows("SELECT v FROM gone ORDER BY v"), "[[10] [30] [31]]"; got != want {
		t.Errorf("the trigger's rows: %s, want %s", got, want)
	}
	// Prepared (placeholders make go-sql-driver prepare it), run twice.
	for i, want := range []int64{1, 1} {
		if n := exec("UPDATE t SET v = v + ? WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.id = t.id)", 100); n != want {
			t.Errorf("prepared UPDATE, run %d: %d rows affected, want %d", i+1, n, want)
		}
	}
	if got, want := rows("SELECT * FROM t ORDER BY id"), "[[1 11] [2 220] [3 31]]"; got != want {
		t.Errorf("t after the prepared UPDATE: %s, want %s", got, want)
	}
}
