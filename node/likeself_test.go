package node_test

import (
	"context"
	"testing"
)

// CREATE [TEMPORARY] TABLE t LIKE t is MySQL's 1066 ER_NONUNIQ_TABLE (the
// same name twice in the statement's table list), not a temporary t
// shadowing the base one (mtr's temp_table).
func TestCreateLikeSelfNonUnique(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test")
	db := open("test")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{"CREATE TABLE t1(i INT)", "INSERT INTO t1 VALUES (1)", "CREATE TEMPORARY TABLE temp_t1 LIKE t1"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range []string{"CREATE TEMPORARY TABLE t1 LIKE t1", "CREATE TABLE t1 LIKE t1", "CREATE TEMPORARY TABLE test.T1 LIKE test.t1", "CREATE TABLE t9 LIKE t9"} {
		_, err := c.ExecContext(ctx, q)
		if n := errno(t, err); n != 1066 {
			t.Errorf("%s: errno %d (%v), want 1066", q, n, err)
		}
	}
	var n int
	if err := c.QueryRowContext(ctx, "SELECT COUNT(*) FROM t1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("t1 rows: %d %v, want the base table's 1", n, err)
	}
}
