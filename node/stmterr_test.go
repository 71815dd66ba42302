package node_test

import (
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// Errors MySQL numbers and words by the statement: DROP TABLE of a
// missing table is 1051 naming it with its database, any other
// statement's 1146 names it so too, a missing stored
// function 1305 naming its database, an empty query 1065 (text and
// PREPARE), and a generated AUTO_INCREMENT value beyond its column 167.
func TestStatementErrors(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE se", "USE se", "CREATE TABLE t (a TINYINT AUTO_INCREMENT PRIMARY KEY)", "INSERT INTO t VALUES (127)", "SET @e = ''")
	for _, c := range []struct {
		q   string
		num uint16
		msg string
	}{
		{"DROP TABLE nosuch", 1051, "Unknown table 'se.nosuch'"},
		{"DROP TABLE se.t, other", 1051, "Unknown table 'se.other'"},
		{"SELECT nosuchf(1)", 1305, "FUNCTION se.nosuchf does not exist"},
		{"SELECT * FROM nosuch", 1146, "Table 'se.nosuch' doesn't exist"},
		{"INSERT INTO mysql.nosuch VALUES (1)", 1146, "Table 'mysql.nosuch' doesn't exist"},
		{" \n ", 1065, "Query was empty"},
		{"PREPARE s FROM @e", 1065, "Query was empty"},
		{"INSERT INTO t VALUES (NULL)", 167, "Out of range value for column 'a' at row 1"},
	} {
		var me *mysql.MySQLError
		if _, err := db.Exec(c.q); !errors.As(err, &me) || me.Number != c.num || me.Message != c.msg {
			t.Errorf("%q: %v, want %d %s", c.q, err, c.num, c.msg)
		}
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM t"); got[0][0] != "1" {
		t.Fatalf("DROP TABLE of a missing table dropped the others: %v", got)
	}
	mustExec(t, db, "/* only a comment */")
	if got := queryRows(t, db, "SHOW WARNINGS"); len(got) != 0 {
		t.Fatalf("warnings of a statement of comments only: %v", got)
	}
}
