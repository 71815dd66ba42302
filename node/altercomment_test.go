package node_test

import (
	"reflect"
	"testing"
)

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

// ALTER TABLE's table options separated by spaces, and DEFAULT CHARSET,
// as migrations write them (sqlmode/altertableopts.go): each was 1064.
func TestAlterTableOptionsSpaced(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ao", "CREATE TABLE ao.t (id INT PRIMARY KEY AUTO_INCREMENT, s VARCHAR(10))",
		"ALTER TABLE ao.t DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci",
		"ALTER TABLE ao.t ENGINE=InnoDB COMMENT='orders'",
		"ALTER TABLE ao.t AUTO_INCREMENT=50 ROW_FORMAT=DYNAMIC",
		"INSERT INTO ao.t (s) VALUES ('x')")
	got := queryRows(t, db, "SELECT TABLE_COLLATION, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'ao' AND TABLE_NAME = 't'")
	if want := [][]string{{"latin1_swedish_ci", "orders"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("collation and comment after the ALTERs: %v, want %v", got, want)
	}
	if got := queryRows(t, db, "SELECT id FROM ao.t"); len(got) != 1 || got[0][0] != "50" {
		t.Errorf("AUTO_INCREMENT=50: the row got id %v", got)
	}
}
