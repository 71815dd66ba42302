package node_test

import (
	"fmt"
	"testing"
)

// A multiple-table DELETE deletes every row its join finds in the
// tables as they were before it (MySQL); GMS deleted as the join went
// and its later reads missed partners already deleted, so a row stayed
// (mtr's read_only_innodb: DELETE temp1, temp2 FROM temp1, temp2).
func TestMultiTableDeleteReadsJoinFirst(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test")
	db := open("test")
	mustExec(t, db,
		"CREATE TABLE t1 (a INT)", "CREATE TABLE t2 (a INT PRIMARY KEY)",
		"INSERT INTO t1 VALUES (10), (1), (10)", "INSERT INTO t2 VALUES (10), (2)",
		"DELETE t1, t2 FROM t1, t2",
		"CREATE TABLE t3 (a INT)", "INSERT INTO t3 VALUES (1), (2), (3), (4)",
		"DELETE x FROM t3 AS x, t3 AS y WHERE x.a = y.a + 1",
		"CREATE TABLE t4 (a INT)", "CREATE TABLE t5 (a INT)",
		"INSERT INTO t4 VALUES (10), (1), (10)", "INSERT INTO t5 VALUES (10), (2)",
		"DELETE t4, t5 FROM t4, t5 WHERE t4.a >= t5.a")
	for q, want := range map[string]string{
		"SELECT COUNT(*) FROM t1":     "[[0]]",
		"SELECT COUNT(*) FROM t2":     "[[0]]",
		"SELECT a FROM t3 ORDER BY a": "[[1]]",
		"SELECT a FROM t4":            "[[1]]",
		"SELECT COUNT(*) FROM t5":     "[[0]]",
	} {
		if got := fmt.Sprint(queryRows(t, db, q)); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
}
