package node_test

import (
	"reflect"
	"testing"
)

// UPDATE through an updatable view of one table updates the base table's
// rows the view shows, view columns named as the view names them, at
// top level, in a procedure and in a function whose base table has a
// trigger (mtr's sp-prelocking: 1142 "table doesn't support UPDATE").
func TestUpdateThroughView(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test", "SET GLOBAL log_bin_trust_function_creators = 1")
	db := open("test")
	mustExec(t, db,
		"CREATE TABLE t1 (a INT, b CHAR(1))",
		"INSERT INTO t1 VALUES (1,'A'),(2,'A'),(3,'A')",
		"CREATE TABLE t2 (a INT, b CHAR(1))",
		"CREATE VIEW v1 AS SELECT a AS x, b AS y FROM t1 WHERE t1.a < 3",
		"CREATE VIEW v2 AS SELECT x, y AS z FROM v1",
		"UPDATE v1 SET y = 'B' WHERE x >= 2",
		"UPDATE v2 AS w SET w.z = 'C' WHERE w.x = 1 OR x = 3",
		"CREATE TRIGGER t1_au AFTER UPDATE ON t1 FOR EACH ROW INSERT INTO t2 VALUES (new.a, new.b)",
		"CREATE PROCEDURE p1() UPDATE v1 SET y = 'D' WHERE x = 2",
		"CALL p1()",
		"CREATE FUNCTION f1() RETURNS INT BEGIN UPDATE v1 SET y = 'E' WHERE x = 1; RETURN ROW_COUNT(); END",
	)
	if got := queryRows(t, db, "SELECT f1()"); !reflect.DeepEqual(got, [][]string{{"1"}}) {
		t.Errorf("f1(): %v, want 1", got)
	}
	want := [][]string{{"1", "E"}, {"2", "D"}, {"3", "A"}}
	if got := queryRows(t, db, "SELECT * FROM t1 ORDER BY a"); !reflect.DeepEqual(got, want) {
		t.Errorf("t1: %v, want %v", got, want)
	}
	want = [][]string{{"1", "E"}, {"2", "D"}}
	if got := queryRows(t, db, "SELECT * FROM t2 ORDER BY a"); !reflect.DeepEqual(got, want) {
		t.Errorf("t2 (trigger): %v, want %v", got, want)
	}
}
