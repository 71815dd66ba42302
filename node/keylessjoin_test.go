package node_test

import (
	"fmt"
	"testing"
)

// TestUpdateJoinKeyless: a multiple-table UPDATE of tables without a
// primary key, with and without WHERE (GMS refused both with 1105
// "keyless tables unsupported for UPDATE JOIN"), writes each row once
// as MySQL does: rows of equal content each (t1's two (1, 0) rows), a
// row matched by several joined rows once (t2's rows matched by every
// t1 row), a row made equal to a later row's old content not again
// (t3's 1 -> 2 beside 2 -> 3). The affected-row counts are MySQL's.
func TestUpdateJoinKeyless(t *testing.T) {
	_, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE kj")
	db := open("kj")
	mustExec(t, db,
		"CREATE TABLE t1 (a INT, b INT)",
		"CREATE TABLE t2 (c INT)",
		"CREATE TABLE t3 (a INT)",
		"CREATE TABLE t4 (x INT PRIMARY KEY)",
		"INSERT INTO t1 VALUES (1, 0), (1, 0), (2, 0), (3, 0)",
		"INSERT INTO t2 VALUES (1), (1), (2)",
		"INSERT INTO t3 VALUES (1), (2)",
		"INSERT INTO t4 VALUES (1), (2)")
	exec := func(q string) int64 {
		t.Helper()
		res, err := db.Exec(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	rows := func(q string) string {
		t.Helper()
		return fmt.Sprint(queryRows(t, db, q))
	}
	if n := exec("UPDATE t1, t2 SET t1.b = t1.b + 1 WHERE t1.a = t2.c"); n != 3 {
		t.Errorf("UPDATE t1, t2 ... WHERE: %d rows affected, want 3", n)
	}
	if got, want := rows("SELECT a, b FROM t1 ORDER BY a, b"), "[[1 1] [1 1] [2 1] [3 0]]"; got != want {
		t.Errorf("t1 after UPDATE t1, t2 ... WHERE: %s, want %s", got, want)
	}
	if n := exec("UPDATE t1, t2 SET t2.c = t2.c + 10"); n != 3 {
		t.Errorf("UPDATE t1, t2 without WHERE: %d rows affected, want 3", n)
	}
	if got, want := rows("SELECT c FROM t2 ORDER BY c"), "[[11] [11] [12]]"; got != want {
		t.Errorf("t2 after UPDATE t1, t2 without WHERE: %s, want %s", got, want)
	}
	if n := exec("UPDATE t3 JOIN t4 ON t3.a = t4.x SET t3.a = t3.a + 1"); n != 2 {
		t.Errorf("UPDATE t3 JOIN t4: %d rows affected, want 2", n)
	}
	if got, want := rows("SELECT a FROM t3 ORDER BY a"), "[[2] [3]]"; got != want {
		t.Errorf("t3 after UPDATE t3 JOIN t4: %s, want %s", got, want)
	}
	// Both tables of the join written, one keyless, one with a key.
	if n := exec("UPDATE t3 AS k JOIN t4 ON k.a = t4.x + 1 SET k.a = k.a * 10, t4.x = t4.x + 100"); n != 4 {
		t.Errorf("UPDATE of both tables: %d rows affected, want 4", n)
	}
	if got, want := rows("SELECT (SELECT GROUP_CONCAT(a ORDER BY a) FROM t3), (SELECT GROUP_CONCAT(x ORDER BY x) FROM t4)"), "[[20,30 101,102]]"; got != want {
		t.Errorf("after the update of both tables: %s, want %s", got, want)
	}
	// A keyless target read by its index.
	mustExec(t, db, "CREATE TABLE t5 (a INT, b INT, KEY (a))", "INSERT INTO t5 VALUES (101, 0), (101, 0), (7, 0)")
	if n := exec("UPDATE t5 JOIN t4 ON t5.a = t4.x SET t5.b = t5.b + 1"); n != 2 {
		t.Errorf("UPDATE t5 JOIN t4: %d rows affected, want 2", n)
	}
	if got, want := rows("SELECT a, b FROM t5 ORDER BY a, b"), "[[7 0] [101 1] [101 1]]"; got != want {
		t.Errorf("t5 after UPDATE t5 JOIN t4: %s, want %s", got, want)
	}
}

// TestUpdateJoinKeylessInProcedure: the WHERE-less multiple-table UPDATE
// of a table without a primary key run by a procedure (its body parsed
// apart from the statement that created it).
func TestUpdateJoinKeylessInProcedure(t *testing.T) {
	_, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE kjp")
	db := open("kjp")
	mustExec(t, db,
		"CREATE TABLE t1 (a INT)",
		"CREATE TABLE t2 (b INT)",
		"INSERT INTO t1 VALUES (1), (1), (5)",
		"INSERT INTO t2 VALUES (7), (8)",
		"CREATE PROCEDURE p() UPDATE t1, t2 SET t1.a = t1.a + 1",
		"CALL p()")
	if got, want := fmt.Sprint(queryRows(t, db, "SELECT a FROM t1 ORDER BY a")), "[[2] [2] [6]]"; got != want {
		t.Errorf("t1 after CALL p(): %s, want %s", got, want)
	}
}
