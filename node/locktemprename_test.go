package node_test

import (
	"context"
	"testing"
)

// Under LOCK TABLES a temporary table needs no lock: ALTER TABLE ...
// RENAME and RENAME TABLE of one work (MySQL ignores LOCK TABLES for
// temporary tables; mtr's temp_table: 1100 before), a base table not
// locked stays 1100.
func TestLockTablesRenameTemporary(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test")
	ctx := context.Background()
	c, err := open("test").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{
		"CREATE TABLE b1 (i INT)", "CREATE TABLE b2 (i INT)",
		"CREATE TEMPORARY TABLE t1 (i INT PRIMARY KEY)", "INSERT INTO t1 VALUES (1)",
		"LOCK TABLES t1 WRITE, b1 WRITE",
		"ALTER TABLE t1 RENAME t2", "RENAME TABLE t2 TO t3",
	} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var n int
	if err := c.QueryRowContext(ctx, "SELECT COUNT(*) FROM t3").Scan(&n); err != nil || n != 1 {
		t.Fatalf("t3: %d %v, want 1 row", n, err)
	}
	_, err = c.ExecContext(ctx, "ALTER TABLE b2 RENAME b3")
	if n := errno(t, err); n != 1100 {
		t.Errorf("rename of an unlocked base table: errno %d (%v), want 1100", n, err)
	}
	// Nor does the global read lock refuse it.
	for _, q := range []string{"UNLOCK TABLES", "FLUSH TABLES WITH READ LOCK", "ALTER TABLE t3 RENAME t4", "ALTER TABLE t4 DISABLE KEYS", "ALTER TABLE t4 ENABLE KEYS"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := c.QueryRowContext(ctx, "SELECT COUNT(*) FROM t4").Scan(&n); err != nil || n != 1 {
		t.Fatalf("t4: %d %v, want 1 row", n, err)
	}
	_, err = c.ExecContext(ctx, "ALTER TABLE b1 RENAME b4")
	if n := errno(t, err); n != 1223 {
		t.Errorf("rename of a base table under the read lock: errno %d (%v), want 1223", n, err)
	}
	if _, err := c.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
		t.Fatal(err)
	}
}
