package node_test

import "testing"

// ALTER TABLE ... COMMENT sets the table's comment, alone or beside other
// clauses, and a column's COMMENT in a clause is the column's (GMS
// answered OK and kept the old table comment: vitess drops an ALTER's
// table options).
func TestAlterTableComment(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ac", "CREATE TABLE ac.t (a INT) COMMENT 'orig'")
	comment := func() string {
		return queryRows(t, db, "SELECT table_comment FROM information_schema.tables WHERE table_schema = 'ac' AND table_name = 't'")[0][0]
	}
	for _, c := range []struct{ q, want string }{
		{"ALTER TABLE ac.t COMMENT 'new one'", "new one"},
		{"ALTER TABLE ac.t ADD COLUMN b INT COMMENT 'col c', COMMENT = 'it''s second'", "it's second"},
		{"ALTER TABLE ac.t MODIFY b INT COMMENT 'only the column'", "it's second"},
		{"ALTER TABLE `ac`.`t` COMMENT = \"dq \\\"x\\\"\"", `dq "x"`},
		{"ALTER TABLE ac.t COMMENT ''", ""},
	} {
		mustExec(t, db, c.q)
		if got := comment(); got != c.want {
			t.Errorf("after %s: table comment %q, want %q", c.q, got, c.want)
		}
	}
	if got := queryRows(t, db, "SELECT column_comment FROM information_schema.columns WHERE table_schema = 'ac' AND table_name = 't' AND column_name = 'b'")[0][0]; got != "only the column" {
		t.Errorf("column b's comment %q, want %q", got, "only the column")
	}
}
