package node_test

import (
	"testing"
)

// TestFailedPrepareDropsTheName: a PREPARE that fails (a missing table,
// a syntax error) leaves no statement of its name, as in MySQL: the one
// prepared before under it is gone, so EXECUTE is 1243 (GMS kept it; mtr's
// ps_1general). Another statement's failure does not drop it.
func TestFailedPrepareDropsTheName(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE pf", "USE pf", "CREATE TABLE t (a INT)", "INSERT INTO t VALUES (1)")
	for _, bad := range []string{"PREPARE s FROM 'SELECT * FROM nosuch'", "PREPARE s FROM 'SELECT * FROM t WHERE'"} {
		mustExec(t, db, "PREPARE s FROM 'SELECT a FROM t'", "EXECUTE s")
		if _, err := db.Exec(bad); err == nil {
			t.Fatalf("%s succeeded", bad)
		}
		if _, err := db.Exec("EXECUTE s"); errno(t, err) != 1243 {
			t.Errorf("EXECUTE after %s: %v, want error 1243", bad, err)
		}
	}
	mustExec(t, db, "PREPARE s FROM 'SELECT a FROM t'")
	if _, err := db.Exec("SELECT * FROM nosuch"); errno(t, err) != 1146 {
		t.Fatalf("SELECT of a missing table: %v", err)
	}
	if got := queryRows(t, db, "EXECUTE s"); len(got) != 1 || got[0][0] != "1" {
		t.Errorf("EXECUTE after another statement failed: %v", got)
	}
}
