package node_test

import (
	"fmt"
	"reflect"
	"strings"
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

// An index added to a table with rows holds each row's entry: text in a
// case- and accent-insensitive collation, prefix columns, NULLs, wide
// and multibyte values, a keyless table's hidden key (CHECK TABLE
// recomputes every entry from its row), and lookups through it find the
// rows a scan finds.
func TestAddIndexEntries(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ai",
		"CREATE TABLE ai.t (id INT PRIMARY KEY, s VARCHAR(40) COLLATE utf8mb4_0900_ai_ci, n INT, b TEXT, d DECIMAL(8,2))",
		"CREATE TABLE ai.k (s VARCHAR(10), n INT)")
	for i := 0; i < 300; i++ {
		s := []string{"abc", "ABC", "Ábc", "ßtraße", "x", "", "日本語テキスト"}[i%7]
		n := "NULL"
		if i%5 != 0 {
			n = itoa(i % 10)
		}
		mustExec(t, db, "INSERT INTO ai.t VALUES ("+itoa(i)+", '"+s+itoa(i%3)+"', "+n+", REPEAT('w', "+itoa(i%50)+"), "+itoa(i)+".25)",
			"INSERT INTO ai.k VALUES ('"+s+"', "+n+")")
	}
	mustExec(t, db, "ALTER TABLE ai.t ADD INDEX sn (s(4), n), ADD INDEX bd (b(10), d)", "CREATE INDEX ns ON ai.t (n, s)", "ALTER TABLE ai.k ADD INDEX s (s)")
	got := queryRows(t, db, "CHECK TABLE ai.t, ai.k EXTENDED")
	want := [][]string{{"ai.t", "check", "status", "OK"}, {"ai.k", "check", "status", "OK"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CHECK TABLE after ADD INDEX: %v, want %v", got, want)
	}
	for _, q := range []string{
		"SELECT COUNT(*) FROM ai.t %s WHERE s = 'abc1' AND n = 1",
		"SELECT COUNT(*) FROM ai.t %s WHERE n IS NULL AND s LIKE 'ab%%'",
		"SELECT COUNT(*) FROM ai.k %s WHERE s = 'ABC'",
	} {
		idx := map[bool]string{true: "FORCE INDEX (sn)", false: "IGNORE INDEX (sn)"}
		if strings.Contains(q, "ai.k") {
			idx = map[bool]string{true: "FORCE INDEX (s)", false: "IGNORE INDEX (s)"}
		}
		by, scan := queryRows(t, db, fmt.Sprintf(q, idx[true])), queryRows(t, db, fmt.Sprintf(q, idx[false]))
		if !reflect.DeepEqual(by, scan) || by[0][0] == "0" {
			t.Errorf("%s: %v through the index, %v by a scan", q, by, scan)
		}
	}
}
