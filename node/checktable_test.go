package node_test

import (
	"reflect"
	"testing"
)

// CHECK TABLE answers MySQL's rows: "status OK" for a sound table, and
// for a missing one its 1146 text and "Operation failed" (storage's
// damage findings are storage TestCheckTableFindsDamage's).
func TestCheckTable(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ck", "CREATE TABLE ck.t (a INT PRIMARY KEY, b INT, KEY (b))",
		"INSERT INTO ck.t VALUES (1, 10), (2, 20), (3, NULL)")
	got := queryRows(t, db, "CHECK TABLE ck.t, ck.nope EXTENDED")
	want := [][]string{
		{"ck.t", "check", "status", "OK"},
		{"ck.nope", "check", "Error", "Table 'nope' doesn't exist"},
		{"ck.nope", "check", "status", "Operation failed"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CHECK TABLE: %v, want %v", got, want)
	}
}

// REPAIR TABLE answers as MySQL does for InnoDB tables: a note that the
// engine does not repair (CHECK TABLE is how a table is checked), and a
// missing table's error then "Operation failed".
func TestRepairTable(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ck", "CREATE TABLE ck.t (a INT PRIMARY KEY)")
	got := queryRows(t, db, "REPAIR NO_WRITE_TO_BINLOG TABLE ck.t, ck.nope QUICK")
	if len(got) != 3 || !reflect.DeepEqual(got[0], []string{"ck.t", "repair", "note", "The storage engine for the table doesn't support repair"}) ||
		got[1][2] != "Error" || !reflect.DeepEqual(got[2], []string{"ck.nope", "repair", "status", "Operation failed"}) {
		t.Fatalf("REPAIR TABLE: %v", got)
	}
}
