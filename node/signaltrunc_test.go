package node_test

import (
	"context"
	"strings"
	"testing"
)

// A SIGNAL item longer than MySQL's limit (MESSAGE_TEXT 128 characters,
// the others 64) is cut with warning 1647 outside strict mode and the
// condition raised (1644); in strict mode it is 1648 (mtr's
// signal_sqlmode). Petrel gave 1648 in every mode.
func TestSignalItemTruncatedOutsideStrictMode(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test")
	ctx := context.Background()
	c, err := open("test").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustExecConn(t, c, "SET sql_mode = ''",
		"CREATE PROCEDURE p2() BEGIN DECLARE msg VARCHAR(200); SET msg = CONCAT(REPEAT('A', 128), 'X'); SIGNAL SQLSTATE '55555' SET MESSAGE_TEXT = msg; END",
		"CREATE PROCEDURE p3() BEGIN DECLARE name VARCHAR(65); SET name = REPEAT('B', 65); SIGNAL SQLSTATE '55555' SET MESSAGE_TEXT = 'Message', TABLE_NAME = name; END")
	_, err = c.ExecContext(ctx, "CALL p2()")
	if errno(t, err) != 1644 || !strings.HasSuffix(err.Error(), strings.Repeat("A", 128)) {
		t.Errorf("CALL p2 outside strict mode: %v, want 1644 with 128 characters of message", err)
	}
	if w := connRows(t, c, "SHOW WARNINGS"); len(w) == 0 || w[0][1] != "1647" {
		t.Errorf("warnings: %v, want 1647", w)
	}
	if _, err := c.ExecContext(ctx, "CALL p3()"); errno(t, err) != 1644 {
		t.Errorf("CALL p3 outside strict mode: %v, want 1644", err)
	}
	// A routine runs under the sql_mode it was created with.
	mustExecConn(t, c, "SET sql_mode = 'STRICT_ALL_TABLES'", "DROP PROCEDURE p2", "DROP PROCEDURE p3",
		"CREATE PROCEDURE p2() BEGIN DECLARE msg VARCHAR(200); SET msg = CONCAT(REPEAT('A', 128), 'X'); SIGNAL SQLSTATE '55555' SET MESSAGE_TEXT = msg; END",
		"CREATE PROCEDURE p3() BEGIN DECLARE name VARCHAR(65); SET name = REPEAT('B', 65); SIGNAL SQLSTATE '55555' SET MESSAGE_TEXT = 'Message', TABLE_NAME = name; END")
	for _, q := range []string{"CALL p2()", "CALL p3()"} {
		if _, err := c.ExecContext(ctx, q); errno(t, err) != 1648 {
			t.Errorf("%s in strict mode: %v, want 1648", q, err)
		}
	}
}
