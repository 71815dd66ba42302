package node_test

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// A CTE's definition may read an earlier CTE of its WITH without a
// privilege on a table of that name: MySQL checks the tables the CTEs
// read (mtr's cte_nonrecursive_not_embedded); GMS checked the CTE's
// name as a table (1142).
func TestCTEReferencesNeedNoTablePrivilege(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE db", "CREATE TABLE db.t1 (a INT)", "INSERT INTO db.t1 VALUES (3), (7), (1)",
		"CREATE TABLE db.t2 (a INT)", "INSERT INTO db.t2 VALUES (2)",
		"CREATE USER u1@'%'", "GRANT SELECT ON db.t1 TO u1@'%'")
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "u1", "tcp", n.Addr(), "db"
	u, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	q := "WITH cte1 AS (SELECT a FROM t1), cte2 AS (SELECT cte1.a FROM t1, cte1 WHERE cte1.a = t1.a), " +
		"cte3 AS (SELECT cte2.a FROM t1, cte1, cte2 WHERE cte1.a = t1.a AND t1.a = cte2.a), " +
		"cte4 AS (SELECT cte2.a FROM t1, cte2 WHERE cte2.a = t1.a) SELECT * FROM cte4 AS r ORDER BY a"
	if got := fmt.Sprint(queryRows(t, u, q)); got != "[[1] [3] [7]]" {
		t.Errorf("CTEs over t1: %s", got)
	}
	for _, q := range []string{
		"WITH cte1 AS (SELECT a FROM t2), cte2 AS (SELECT cte1.a FROM t2, cte1 WHERE cte1.a = t2.a) SELECT * FROM cte2",
		// A table named as a later CTE is a table where it is read.
		"WITH cte1 AS (SELECT a FROM t2), t2 AS (SELECT a FROM t1) SELECT * FROM t2",
	} {
		if _, err := u.Exec(q); errno(t, err) != 1142 {
			t.Errorf("%s: %v, want 1142", q, err)
		}
	}
	if got := fmt.Sprint(queryRows(t, u, "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r")); got != "[[1] [2] [3]]" {
		t.Errorf("recursive CTE: %s", got)
	}
}
