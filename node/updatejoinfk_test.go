package node_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestUpdateJoinForeignKeys: a multiple-table UPDATE keeps foreign keys
// as a single-table one does (GMS's wrote through no foreign-key
// handler: a child row left pointing at no parent, a parent's key
// changed under its children): a child's new value without a parent is
// 1452, a referenced parent's key 1451, nothing written; IGNORE skips
// the row with its warning (a child without a primary key too); ON
// UPDATE CASCADE follows a parent matched by several joined rows once;
// a valid change is written.
func TestUpdateJoinForeignKeys(t *testing.T) {
	_, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE uf")
	db := open("uf")
	mustExec(t, db,
		"CREATE TABLE p (id INT PRIMARY KEY)",
		"CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
		"CREATE TABLE k (pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
		"CREATE TABLE q (id INT PRIMARY KEY)",
		"CREATE TABLE cq (id INT PRIMARY KEY, qid INT, FOREIGN KEY (qid) REFERENCES q (id) ON UPDATE CASCADE)",
		"CREATE TABLE x (v INT)",
		"INSERT INTO p VALUES (1), (2), (9)",
		"INSERT INTO c VALUES (10, 1), (20, 2)",
		"INSERT INTO k VALUES (1), (1)",
		"INSERT INTO q VALUES (1), (2)",
		"INSERT INTO cq VALUES (1, 1), (2, 2)",
		"INSERT INTO x VALUES (1), (1), (7)")
	rows := func(q string) string {
		t.Helper()
		return fmt.Sprint(queryRows(t, db, q))
	}
	for q, want := range map[string]uint16{
		"UPDATE p, c SET c.pid = c.pid + 5 WHERE p.id = c.pid": 1452,
		"UPDATE p JOIN c ON p.id = c.pid SET p.id = p.id + 10": 1451,
		"UPDATE x, k SET k.pid = 5 WHERE x.v = k.pid":          1452,
		// The first row's change is valid, the second's not: neither.
		"UPDATE c JOIN p ON c.pid = p.id SET c.pid = c.pid * 9": 1452,
	} {
		_, err := db.Exec(q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != want {
			t.Errorf("%s: %v, want error %d", q, err, want)
		}
	}
	mustExec(t, db, "UPDATE IGNORE x, k SET k.pid = k.pid + 3 WHERE x.v = k.pid")
	if got, want := rows("SELECT (SELECT GROUP_CONCAT(pid ORDER BY id) FROM c), (SELECT GROUP_CONCAT(pid) FROM k), (SELECT GROUP_CONCAT(id ORDER BY id) FROM p)"), "[[1,2 1,1 1,2,9]]"; got != want {
		t.Errorf("after the refused updates: %s, want %s", got, want)
	}
	// Valid: c's rows to parent 9, k's to 2; q's key 1 (matched by x's
	// two 1s) cascades to cq once.
	mustExec(t, db,
		"UPDATE c JOIN x ON c.pid = x.v SET c.pid = 9",
		"UPDATE k, x SET k.pid = 2 WHERE k.pid = x.v",
		"UPDATE q JOIN x ON q.id = x.v SET q.id = q.id + 100")
	if got, want := rows("SELECT (SELECT GROUP_CONCAT(pid ORDER BY id) FROM c), (SELECT GROUP_CONCAT(pid) FROM k), (SELECT GROUP_CONCAT(id ORDER BY id) FROM q), (SELECT GROUP_CONCAT(qid ORDER BY id) FROM cq)"), "[[9,2 2,2 2,101 101,2]]"; got != want {
		t.Errorf("after the valid updates: %s, want %s", got, want)
	}
}
