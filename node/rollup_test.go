package node_test

import (
	"reflect"
	"strings"
	"testing"
)

// GROUP BY ... WITH ROLLUP as MySQL 8 answers it where MariaDB 10.11 has
// no answer to compare with (the e2e corpus holds the rest): GROUPING()
// of one and of several columns, ORDER BY over the super-aggregate rows
// (MySQL 8.0.12 on; MariaDB refuses it), a prepared statement's
// parameter in every level, INSERT ... SELECT, a view, and a common
// table expression called rollup. Before, WITH ROLLUP was 1064 and
// GROUPING 1305.
func TestGroupByWithRollup(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE ru", "USE ru",
		"CREATE TABLE t (a INT, b VARCHAR(5), c INT)",
		"INSERT INTO t VALUES (1, 'x', 10), (1, 'y', 20), (2, 'x', 5), (2, NULL, 7)")
	got := queryRows(t, db, "SELECT a, b, SUM(c), GROUPING(a), GROUPING(b), GROUPING(a, b) FROM t GROUP BY a, b WITH ROLLUP")
	want := [][]string{
		{"1", "x", "10", "0", "0", "0"},
		{"1", "y", "20", "0", "0", "0"},
		{"1", "NULL", "30", "0", "1", "1"},
		{"2", "NULL", "7", "0", "0", "0"},
		{"2", "x", "5", "0", "0", "0"},
		{"2", "NULL", "12", "0", "1", "1"},
		{"NULL", "NULL", "42", "1", "1", "3"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("GROUPING:\n got %v\nwant %v", got, want)
	}
	// GROUPING tells the rolled-up NULL from a NULL group, in HAVING too.
	got = queryRows(t, db, "SELECT a, b, SUM(c) FROM t GROUP BY a, b WITH ROLLUP HAVING GROUPING(b) = 1 ORDER BY SUM(c) DESC")
	want = [][]string{{"NULL", "NULL", "42"}, {"1", "NULL", "30"}, {"2", "NULL", "12"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("HAVING GROUPING, ORDER BY SUM(c) DESC:\n got %v\nwant %v", got, want)
	}
	mustExec(t, db, "PREPARE st FROM 'SELECT a, SUM(c) AS s FROM t WHERE c > ? GROUP BY a WITH ROLLUP ORDER BY s'", "SET @x = 6")
	got = queryRows(t, db, "EXECUTE st USING @x")
	want = [][]string{{"2", "7"}, {"1", "30"}, {"NULL", "37"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("prepared, ORDER BY s:\n got %v\nwant %v", got, want)
	}
	// ROLLUP is not reserved in MySQL 8: a common table expression may
	// be called so.
	if got := queryRows(t, db, "WITH rollup AS (SELECT 1 AS x) SELECT x FROM rollup"); !reflect.DeepEqual(got, [][]string{{"1"}}) {
		t.Fatalf("CTE named rollup: %v", got)
	}
	mustExec(t, db, "CREATE TABLE sums (a INT, s INT)", "INSERT INTO sums SELECT a, SUM(c) FROM t GROUP BY a WITH ROLLUP",
		"CREATE VIEW v AS SELECT b, COUNT(*) AS n FROM t GROUP BY b WITH ROLLUP")
	if got := queryRows(t, db, "SELECT COUNT(*), SUM(s) FROM sums"); !reflect.DeepEqual(got, [][]string{{"3", "84"}}) {
		t.Fatalf("INSERT ... SELECT WITH ROLLUP: %v", got)
	}
	if got := queryRows(t, db, "SELECT b, n FROM v"); !reflect.DeepEqual(got, [][]string{{"NULL", "1"}, {"x", "2"}, {"y", "1"}, {"NULL", "4"}}) {
		t.Fatalf("view: %v", got)
	}
	if _, err := db.Exec("SELECT * FROM t GROUP BY a WITH ROLLUP"); err == nil || !strings.Contains(err.Error(), "1235") {
		t.Fatalf("SELECT * WITH ROLLUP: %v, want 1235", err)
	}
}
