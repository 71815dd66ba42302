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
}
