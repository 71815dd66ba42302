package node_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestUpdateJoinSameTableTwice: a multiple-table UPDATE of one table
// under two names writes both names' columns to the row (GMS wrote each
// name's whole row, the second undoing the first's change: (0,1,0) for
// MySQL's (0,1,2)); setting a primary-key column through one of them is
// 1706, nothing written.
func TestUpdateJoinSameTableTwice(t *testing.T) {
	_, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE us")
	db := open("us")
	mustExec(t, db,
		"CREATE TABLE t1 (pk INT PRIMARY KEY, a INT, b INT)",
		"INSERT INTO t1 VALUES (0, 0, 0), (5, 0, 0)")
	_, err := db.Exec("UPDATE t1 AS A, t1 AS B SET A.pk = 1, B.a = 2")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1706 {
		t.Errorf("UPDATE setting the key under two names: %v, want error 1706", err)
	}
	mustExec(t, db, "UPDATE t1 AS A JOIN t1 AS B ON A.pk = B.pk SET A.a = 1, B.b = 2 WHERE A.pk = 0")
	if got, want := fmt.Sprint(queryRows(t, db, "SELECT * FROM t1 ORDER BY pk")), "[[0 1 2] [5 0 0]]"; got != want {
		t.Errorf("t1: %s, want %s", got, want)
	}
}
