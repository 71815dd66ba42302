package node_test

import (
	"database/sql"
	"testing"
)

// Under read_only, START TRANSACTION READ WRITE is MySQL's 1290 for an
// account without SUPER (it started the transaction), as it was for its
// writes; a plain START TRANSACTION and READ ONLY start (mtr's
// read_only), and root's READ WRITE too.
func TestReadWriteStartUnderReadOnly(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE test", "CREATE USER user1@'%'", "GRANT ALL ON test.* TO user1@'%'")
	db, err := sql.Open("mysql", "user1@tcp("+n.Addr()+")/test")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	mustExec(t, root, "SET GLOBAL read_only = 1")
	defer mustExec(t, root, "SET GLOBAL read_only = 0")
	mustExec(t, db, "START TRANSACTION", "COMMIT", "START TRANSACTION READ ONLY", "COMMIT")
	_, err = db.Exec("START TRANSACTION READ WRITE")
	if e := errno(t, err); e != 1290 {
		t.Errorf("user1 START TRANSACTION READ WRITE: %d (%v), want 1290", e, err)
	}
	mustExec(t, root, "START TRANSACTION READ WRITE", "COMMIT")
}
