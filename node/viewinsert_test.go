package node_test

import (
	"fmt"
	"testing"
)

// TestInsertIntoView: INSERT, REPLACE and INSERT ... ON DUPLICATE KEY
// UPDATE into a view of one table's columns (aliased, with a column
// list, a view of such a view) write the base table, as MySQL's (GMS
// refused every view: 1105), a trigger's too; a view that is not
// insertable-into (an aggregate) is MySQL's 1471.
func TestInsertIntoView(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE vi", "USE vi",
		"CREATE TABLE t (pk INT AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(5))",
		"CREATE VIEW v1 AS SELECT * FROM t",
		"CREATE VIEW v2 AS SELECT a AS x, b FROM t",
		"CREATE VIEW v3 (p, q) AS SELECT pk, a FROM t",
		"CREATE VIEW v4 AS SELECT x FROM v2",
		"CREATE VIEW v5 AS SELECT a, COUNT(*) AS c FROM t GROUP BY a",
		"INSERT INTO v1 (pk) VALUES (NULL)",
		"INSERT INTO v1 VALUES (10, 1, 'a')",
		"INSERT INTO v2 (x, b) VALUES (5, 'b')",
		"INSERT INTO v2 VALUES (6, 'c')",
		"INSERT INTO v3 VALUES (20, 7)",
		"INSERT INTO vi.v4 VALUES (8)",
		"REPLACE INTO v1 VALUES (10, 2, 'z')",
		"INSERT INTO v1 VALUES (10, 3, 'y') ON DUPLICATE KEY UPDATE b = 'dup'",
		"INSERT INTO v2 (x) SELECT a FROM t WHERE pk = 20")
	got := fmt.Sprint(queryRows(t, db, "SELECT * FROM t ORDER BY pk"))
	want := "[[1 NULL NULL] [10 2 dup] [11 5 b] [12 6 c] [20 7 NULL] [21 8 NULL] [22 7 NULL]]"
	if got != want {
		t.Errorf("rows %s,\nwant %s", got, want)
	}
	// A trigger's INSERT into a view (mtr's sp-group).
	mustExec(t, db, "CREATE TABLE src (x INT)",
		"CREATE TRIGGER tsrc BEFORE INSERT ON src FOR EACH ROW INSERT INTO v2 (x, b) VALUES (NEW.x, 'trg')",
		"INSERT INTO src VALUES (9)")
	if got := fmt.Sprint(queryRows(t, db, "SELECT a, b FROM t WHERE b = 'trg'")); got != "[[9 trg]]" {
		t.Errorf("the trigger's row: %s", got)
	}
	if _, err := db.Exec("INSERT INTO v5 VALUES (1, 2)"); errno(t, err) != 1471 {
		t.Errorf("INSERT into an aggregate view: %v, want error 1471", err)
	}
}
