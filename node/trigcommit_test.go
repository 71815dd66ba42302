package node_test

import (
	"reflect"
	"testing"
)

// A trigger calling a procedure that commits implicitly (DDL) fails the
// firing statement with 1422 ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG and
// changes nothing; a procedure that does not commit still runs (mtr's
// tablelock: 1105 "unable to get sub statement" before).
func TestTriggerCallingCommittingProcedure(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test")
	db := open("test")
	mustExec(t, db,
		"CREATE TABLE t1 (a INT)",
		"CREATE TABLE t2 (a INT)",
		"CREATE PROCEDURE p1() CREATE VIEW v1 AS SELECT * FROM t1",
		"CREATE TRIGGER trg AFTER INSERT ON t1 FOR EACH ROW CALL p1()",
	)
	_, err := db.Exec("INSERT INTO t1 VALUES (1)")
	if n := errno(t, err); n != 1422 {
		t.Fatalf("insert: errno %d (%v), want 1422", n, err)
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM t1"); !reflect.DeepEqual(got, [][]string{{"0"}}) {
		t.Errorf("t1 rows %v, want 0", got)
	}
	mustExec(t, db,
		"DROP TRIGGER trg",
		"CREATE PROCEDURE p2(x INT) INSERT INTO t2 VALUES (x)",
		"CREATE TRIGGER trg AFTER INSERT ON t1 FOR EACH ROW CALL p2(new.a)",
		"INSERT INTO t1 VALUES (5)",
	)
	if got := queryRows(t, db, "SELECT a FROM t2"); !reflect.DeepEqual(got, [][]string{{"5"}}) {
		t.Errorf("t2 %v, want 5", got)
	}
	// A function calling a procedure that renames a table: 1422, the
	// table kept.
	mustExec(t, open(""), "SET GLOBAL log_bin_trust_function_creators = 1")
	mustExec(t, db,
		"CREATE PROCEDURE p3() RENAME TABLE t2 TO t3",
		"CREATE FUNCTION f1() RETURNS INT BEGIN CALL p3(); RETURN 1; END",
		"CREATE FUNCTION f2() RETURNS INT BEGIN CALL p2(7); RETURN 2; END",
	)
	_, err = db.Exec("SELECT f1()")
	if n := errno(t, err); n != 1422 {
		t.Fatalf("SELECT f1(): errno %d (%v), want 1422", n, err)
	}
	if got := queryRows(t, db, "SELECT f2()"); !reflect.DeepEqual(got, [][]string{{"2"}}) {
		t.Errorf("f2(): %v, want 2", got)
	}
	if got := queryRows(t, db, "SELECT a FROM t2 ORDER BY a"); !reflect.DeepEqual(got, [][]string{{"5"}, {"7"}}) {
		t.Errorf("t2 %v, want 5, 7", got)
	}
}
