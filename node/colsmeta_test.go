package node_test

import (
	"reflect"
	"strings"
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
	// A DECIMAL's default at its scale, in SHOW CREATE TABLE and SHOW
	// COLUMNS (decdefault.go; GMS: '1.5', '2').
	mustExec(t, db, "CREATE TABLE cm.d (id INT PRIMARY KEY, a DECIMAL(5,2) DEFAULT 1.5, b DECIMAL(6,3) NOT NULL DEFAULT '2')")
	create := queryRows(t, db, "SHOW CREATE TABLE cm.d")[0][1]
	for _, w := range []string{"`a` decimal(5,2) DEFAULT '1.50'", "`b` decimal(6,3) NOT NULL DEFAULT '2.000'"} {
		if !strings.Contains(create, w) {
			t.Errorf("SHOW CREATE TABLE lacks %s:\n%s", w, create)
		}
	}
	if got := queryRows(t, db, "SHOW COLUMNS FROM cm.d"); len(got) != 3 || got[1][4] != "1.50" || got[2][4] != "2.000" {
		t.Errorf("SHOW COLUMNS of DECIMAL defaults: %v", got)
	}
}
