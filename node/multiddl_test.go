package node_test

import (
	"database/sql"
	"testing"
)

// TestMultiStatementDDL: a CREATE VIEW followed by other statements in
// one multi-statement query (go-tpc sends TPC-H Q15 so) creates the view
// with its SELECT as written, and runs the rest; so does a CREATE
// PROCEDURE so sent, and the connection keeps serving.
func TestMultiStatementDDL(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE md", "CREATE TABLE md.t (a INT PRIMARY KEY, b INT)", "INSERT INTO md.t VALUES (1, 10), (2, 20), (3, 5)")
	multi, err := sql.Open("mysql", mysqlConfig(t, n.Addr(), "md")+"&multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer multi.Close()
	multi.SetMaxOpenConns(1)
	sets := resultSets(t, multi, "CREATE VIEW v AS SELECT a, SUM(b) AS s FROM t GROUP BY a; SELECT a, s FROM v WHERE s = (SELECT MAX(s) FROM v); DROP VIEW v")
	if len(sets) != 1 || len(sets[0]) != 1 || sets[0][0][0] != "2" || sets[0][0][1] != "20" {
		t.Fatalf("view's query: %v", sets)
	}
	if got := queryRows(t, root, "SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'md'"); got[0][0] != "0" {
		t.Fatalf("the DROP VIEW after the query did not run: %v views", got[0][0])
	}
	mustExec(t, multi, "CREATE VIEW w AS SELECT a FROM t WHERE b > 6; SET @x = 1")
	if got := queryRows(t, multi, "SHOW CREATE VIEW w"); len(got) != 1 || got[0][1] != "CREATE VIEW `w` AS SELECT a FROM t WHERE b > 6" {
		t.Fatalf("view definition: %v", got)
	}
	if got := queryRows(t, multi, "SELECT COUNT(*) FROM w"); got[0][0] != "2" {
		t.Fatalf("SELECT from the view: %v", got)
	}
	// A CREATE PROCEDURE ends at the first ';' outside BEGIN ... END, as
	// in MySQL: the procedure is made and the next statement runs.
	sets = resultSets(t, multi, "CREATE PROCEDURE p() SELECT 1 AS one; SELECT 2")
	if len(sets) != 1 || len(sets[0]) != 1 || sets[0][0][0] != "2" {
		t.Fatalf("after CREATE PROCEDURE in a multi-statement query: %v", sets)
	}
	if got := queryRows(t, multi, "CALL p()"); len(got) != 1 || got[0][0] != "1" {
		t.Fatalf("CALL p(): %v", got)
	}
	if got := queryRows(t, multi, "SELECT 42"); got[0][0] != "42" {
		t.Fatalf("after the refused CREATE PROCEDURE: %v", got)
	}
}
