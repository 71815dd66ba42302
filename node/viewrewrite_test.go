package node_test

import (
	"fmt"
	"strings"
	"testing"
)

// A CREATE VIEW whose text a rewrite before parsing changed (the
// function INTERVAL(N, N1, ...) quoted for vitess) keeps its SELECT as
// the client wrote it; GMS cut it out of the client's text at the
// rewritten text's offsets (1105 "unable to get sub statement", mtr's
// view_alias).
func TestCreateViewAfterTextRewrite(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test")
	db := open("test")
	mustExec(t, db,
		"CREATE VIEW v1 AS SELECT INTERVAL(55,10) AS my_col",
		"CREATE TABLE t1 (a INT)", "INSERT INTO t1 VALUES (5), (20)",
		"CREATE VIEW v2 AS SELECT a, INTERVAL(a, 1, 10) AS i FROM t1 WHERE a > 1")
	if got := fmt.Sprint(queryRows(t, db, "SELECT * FROM v1")); got != "[[1]]" {
		t.Errorf("v1: %s, want [[1]]", got)
	}
	if got := fmt.Sprint(queryRows(t, db, "SELECT * FROM v2 ORDER BY a")); got != "[[5 1] [20 2]]" {
		t.Errorf("v2: %s, want [[5 1] [20 2]]", got)
	}
	def := queryRows(t, db, "SHOW CREATE VIEW v2")
	if len(def) != 1 || !strings.HasSuffix(def[0][1], "INTERVAL(a, 1, 10) AS i FROM t1 WHERE a > 1") {
		t.Errorf("v2's definition: %v", def)
	}
}
