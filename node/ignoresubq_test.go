package node_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestUpdateIgnoreSubqueryRows: a scalar subquery of more than one row
// in an UPDATE IGNORE's condition is warning 1242, the row not matched,
// as in MySQL (GMS failed the statement); without IGNORE it is error
// 1242 with MySQL's text.
func TestUpdateIgnoreSubqueryRows(t *testing.T) {
	_, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE ui")
	db := open("ui")
	mustExec(t, db,
		"CREATE TABLE t1 (a INT, b CHAR(3))",
		"CREATE TABLE t2 (c CHAR(3), d INT)",
		"INSERT INTO t1 VALUES (1, 'foo')",
		"INSERT INTO t2 VALUES ('foo', 1)")
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{
		"UPDATE IGNORE t1, t2 SET b = 'bar', c = 'bar' WHERE a != (SELECT 1 UNION SELECT 2)",
		"UPDATE IGNORE t1 SET b = 'baz' WHERE a != (SELECT 1 UNION SELECT 2)",
	} {
		if _, err := c.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		r, err := c.QueryContext(context.Background(), "SHOW WARNINGS")
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(scanRows(t, r))
		r.Close()
		if want := "[[Warning 1242 Subquery returns more than 1 row]]"; got != want {
			t.Errorf("%s: warnings %s, want %s", q, got, want)
		}
	}
	if got := fmt.Sprint(queryRows(t, db, "SELECT b, (SELECT c FROM t2) FROM t1")); got != "[[foo foo]]" {
		t.Errorf("rows after the updates: %s, want [[foo foo]]", got)
	}
	_, err = db.Exec("UPDATE t1 SET b = 'baz' WHERE a != (SELECT 1 UNION SELECT 2)")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1242 || me.Message != "Subquery returns more than 1 row" {
		t.Errorf("UPDATE without IGNORE: %v, want error 1242 Subquery returns more than 1 row", err)
	}
}
