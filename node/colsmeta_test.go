package node_test

import (
	"reflect"
	"testing"
)

// information_schema.COLUMNS and SHOW COLUMNS show generated columns,
// ON UPDATE and defaults as MySQL 8 does (sqlengine/colsmeta.go): GMS
// left EXTRA and GENERATION_EXPRESSION empty for generated columns,
// dropped "on update CURRENT_TIMESTAMP", and SHOW COLUMNS quoted string
// defaults and doubled expression defaults' parentheses.
func TestColumnMetadata(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE cm", "CREATE TABLE cm.t (id INT PRIMARY KEY, a INT, b INT, s VARCHAR(9) DEFAULT 'it''s', "+
		"total INT AS (a + b) STORED, up VARCHAR(9) AS (UPPER(s)) VIRTUAL, n INT DEFAULT (1 + 1), "+
		"ts DATETIME DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP)")
	got := queryRows(t, db, "SELECT COLUMN_NAME, EXTRA, GENERATION_EXPRESSION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'cm' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION")
	want := [][]string{
		{"id", "", ""}, {"a", "", ""}, {"b", "", ""}, {"s", "", ""},
		{"total", "STORED GENERATED", "(`a` + `b`)"},
		{"up", "VIRTUAL GENERATED", "upper(`s`)"},
		{"n", "DEFAULT_GENERATED", ""},
		{"ts", "DEFAULT_GENERATED on update CURRENT_TIMESTAMP", ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("COLUMNS:\n got %v\nwant %v", got, want)
	}
	rows := queryRows(t, db, "SHOW COLUMNS FROM cm.t")
	var defs, extras []string
	for _, r := range rows {
		defs, extras = append(defs, r[4]), append(extras, r[5])
	}
	if want := []string{"NULL", "NULL", "NULL", "it's", "NULL", "NULL", "(1 + 1)", "CURRENT_TIMESTAMP"}; !reflect.DeepEqual(defs, want) {
		t.Errorf("SHOW COLUMNS Default: %q, want %q", defs, want)
	}
	if want := []string{"", "", "", "", "STORED GENERATED", "VIRTUAL GENERATED", "DEFAULT_GENERATED", "DEFAULT_GENERATED on update CURRENT_TIMESTAMP"}; !reflect.DeepEqual(extras, want) {
		t.Errorf("SHOW COLUMNS Extra: %q, want %q", extras, want)
	}
}
