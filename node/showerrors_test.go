package node_test

import (
	"context"
	"fmt"
	"testing"
)

// TestShowErrors: SHOW ERRORS lists the previous statement's errors (a
// failed statement's own; none after a statement with warnings only),
// LIMIT applies, and SHOW COUNT(*) ERRORS / WARNINGS count them (GMS
// refused all three with 1105); SHOW ERRORS leaves the conditions for
// the SHOW WARNINGS after it.
func TestShowErrors(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows := func(q string) string {
		t.Helper()
		r, err := c.QueryContext(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer r.Close()
		return fmt.Sprint(scanRows(t, r))
	}
	if _, err := c.ExecContext(context.Background(), "SELECT * FROM mysql.nope"); err == nil {
		t.Fatal("SELECT from a missing table succeeded")
	}
	want := "[[Error 1146 Table 'mysql.nope' doesn't exist]]"
	if got := rows("SHOW ERRORS"); got != want {
		t.Errorf("SHOW ERRORS: %s, want %s", got, want)
	}
	if got := rows("SHOW COUNT(*) ERRORS"); got != "[[1]]" {
		t.Errorf("SHOW COUNT(*) ERRORS: %s, want [[1]]", got)
	}
	if got := rows("SHOW ERRORS LIMIT 1, 1"); got != "[]" {
		t.Errorf("SHOW ERRORS LIMIT 1, 1: %s, want []", got)
	}
	if got := rows("SHOW WARNINGS"); got != want {
		t.Errorf("SHOW WARNINGS after SHOW ERRORS: %s, want %s", got, want)
	}
	rows("SELECT 1/0")
	if got := rows("SHOW ERRORS"); got != "[]" {
		t.Errorf("SHOW ERRORS after a warning: %s, want []", got)
	}
	rows("SELECT 1/0")
	if got := rows("SHOW COUNT(*) WARNINGS"); got != "[[1]]" {
		t.Errorf("SHOW COUNT(*) WARNINGS: %s, want [[1]]", got)
	}
}
