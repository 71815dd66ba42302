package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
)

// connRows runs q on c and returns its rows as strings, NULL as "NULL".
func connRows(t *testing.T, c *sql.Conn, q string) [][]string {
	t.Helper()
	rows, err := c.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	return scanRows(t, rows)
}

// A user variable where a table name goes is MySQL's 1064: its grammar
// has no variable there (mtr's include/ps_query.inc); a table really
// named @v is written quoted and is a table (1146 when missing).
func TestUserVariableAsTableNameIsParseError(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test")
	db := open("test")
	mustExec(t, db, "CREATE TABLE t1 (a INT)", "INSERT INTO t1 VALUES (1)")
	for q, want := range map[string]uint16{
		"SELECT a FROM @arg00 WHERE a=1":                 1064,
		"SELECT a FROM t1 JOIN @arg00 WHERE a=1":         1064,
		"SELECT a FROM `@arg00` WHERE a=1":               1146,
		"SELECT a FROM t1 WHERE a IN (SELECT 1 FROM @v)": 1064,
	} {
		_, err := db.Exec(q)
		if n := errno(t, err); n != want {
			t.Errorf("%s: errno %d (%v), want %d", q, n, err, want)
		}
	}
	mustExec(t, db, "CREATE TABLE `@v` (a INT)", "INSERT INTO `@v` VALUES (7)")
	if got := fmt.Sprint(queryRows(t, db, "SELECT a FROM `@v`")); got != "[[7]]" {
		t.Fatalf("quoted table @v: %s", got)
	}
}

// HAVING reads user and system variables, as MySQL's does; GMS resolved
// every name there as a column (1054 "Unknown column '@arg00'").
func TestHavingReadsVariables(t *testing.T) {
	_, c := testDBConn(t)
	mustExecConn(t, c, "CREATE TABLE t1 (a INT, b VARCHAR(10))", "INSERT INTO t1 VALUES (1,'one'),(2,'two'),(3,'three')", "SET @arg00 = 'two'")
	for q, want := range map[string]string{
		"SELECT a, b FROM t1 WHERE a IS NOT NULL HAVING b <> @arg00 ORDER BY a":                             "[[1 one] [3 three]]",
		"SELECT a, COUNT(*) FROM t1 GROUP BY a HAVING a > LENGTH(@arg00) - 2 AND @@autocommit = 1":          "[[2 1] [3 1]]",
		"SELECT a FROM t1 HAVING a > @unset":                                                                "[]",
		"SELECT a FROM t1 HAVING a = (SELECT MAX(a) FROM t1 WHERE b <> @arg00) OR @@session.autocommit = 0": "[[3]]",
	} {
		if got := fmt.Sprint(connRows(t, c, q)); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
}
