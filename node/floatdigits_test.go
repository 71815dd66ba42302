package node_test

import (
	"reflect"
	"strings"
	"testing"

	"petrel/node"
)

// FLOAT(M,D) and DOUBLE(M,D) columns keep M and D as MySQL does: values
// are stored rounded to D places (half to even, as rint), within
// 10^(M-D) - 10^-D (1264 in strict mode, the bound with a warning
// otherwise), shown with D digits and D decimals in the column
// definition, printed back by SHOW CREATE TABLE, SHOW COLUMNS and
// information_schema, copied by CREATE TABLE ... LIKE, re-rounded by an
// ALTER that narrows them, and kept across a restart. Before, FLOAT(5,2)
// stored 1.236 and SHOW CREATE TABLE printed `float`.
func TestFloatDigits(t *testing.T) {
	opts := restartableOptions(t)
	n, err := node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	db := rootConn(t, n)
	mustExec(t, db, "CREATE DATABASE fd", "USE fd",
		"CREATE TABLE ff (id INT PRIMARY KEY, f FLOAT(5,2), d DOUBLE(8,3), g FLOAT(30,10), r REAL(6,1))")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "INSERT INTO ff VALUES (1, 1.236, 2.00049, 1.5, 2.25)", "INSERT INTO ff VALUES (2, 999.994, -1, '1.23456789012', -2.25)")
	// A prepared INSERT (binary protocol, the fast write path) rounds too.
	mustExec(t, db, "INSERT INTO ff VALUES (3, 0, 0, 0, 0)")
	if _, err := db.Exec("UPDATE ff SET f = ?, d = ? WHERE id = 3", 3.14159, 12.34567); err != nil {
		t.Fatal(err)
	}
	// (go-sql-driver parses the text protocol's numbers, so the D digits
	// printed are e2e TestValueSemanticsMatchMariaDB's to compare.)
	want := [][]string{
		{"1", "1.24", "2", "1.5", "2.2"},
		{"2", "999.99", "-1", "1.2345679", "-2.2"},
		{"3", "3.14", "12.346", "0", "0"},
	}
	if got := queryRows(t, db, "SELECT id, f, d, g, r FROM ff ORDER BY id"); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	// Stored rounded, not only printed so: f*100 is 124 (1.236 would be 123.6).
	if got := queryRows(t, db, "SELECT ROUND(f*100, 3), d*1000 FROM ff WHERE id = 1"); got[0][0] != "124" || got[0][1] != "2000" {
		t.Fatalf("stored values %v, want 124 and 2000", got)
	}
	// Out of range: 1264 in strict mode; the bound with warning 1264 otherwise.
	if _, err := db.Exec("INSERT INTO ff VALUES (4, 999.995, 0, 0, 0)"); err == nil || !strings.Contains(err.Error(), "1264") {
		t.Fatalf("999.995 into FLOAT(5,2): %v, want 1264", err)
	}
	mustExec(t, db, "SET sql_mode = ''", "INSERT INTO ff VALUES (4, -12345, 1e9, 0, 0)")
	if got := queryRows(t, db, "SHOW WARNINGS"); len(got) != 2 || got[0][1] != "1264" || got[1][1] != "1264" {
		t.Fatalf("warnings %v, want two 1264", got)
	}
	if got := queryRows(t, db, "SELECT f, d FROM ff WHERE id = 4"); got[0][0] != "-999.99" || got[0][1] != "99999.999" {
		t.Fatalf("clipped %v, want -999.99 99999.999", got)
	}
	mustExec(t, db, "SET sql_mode = DEFAULT")
	// The column definitions MySQL sends: decimals D (31 for FLOAT).
	rows, err := db.Query("SELECT f, d, g FROM ff LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	cts, _ := rows.ColumnTypes()
	rows.Close()
	for i, w := range []int64{2, 3, 10} {
		// (go-sql-driver reports a FLOAT's length as unknown.)
		if _, s, ok := cts[i].DecimalSize(); !ok || s != w {
			t.Fatalf("column %d decimals %d,%v, want %d", i, s, ok, w)
		}
	}
	wantCreate := "`f` float(5,2) DEFAULT NULL,\n  `d` double(8,3) DEFAULT NULL,\n  `g` float(30,10) DEFAULT NULL,\n  `r` double(6,1) DEFAULT NULL"
	if got := queryRows(t, db, "SHOW CREATE TABLE ff"); !strings.Contains(got[0][1], wantCreate) {
		t.Fatalf("SHOW CREATE TABLE %q, want %q", got[0][1], wantCreate)
	}
	if got := queryRows(t, db, "SELECT column_type, numeric_precision, numeric_scale FROM information_schema.columns WHERE table_name = 'ff' AND column_name = 'g'"); !reflect.DeepEqual(got, [][]string{{"float(30,10)", "30", "10"}}) {
		t.Fatalf("information_schema.COLUMNS %v", got)
	}
	if got := queryRows(t, db, "SHOW COLUMNS FROM ff LIKE 'd'"); got[0][1] != "double(8,3)" {
		t.Fatalf("SHOW COLUMNS type %q", got[0][1])
	}
	mustExec(t, db, "CREATE TABLE fl LIKE ff")
	if got := queryRows(t, db, "SHOW CREATE TABLE fl"); !strings.Contains(got[0][1], wantCreate) {
		t.Fatalf("CREATE TABLE LIKE: %q", got[0][1])
	}
	// MySQL's errors for impossible digits, in its order.
	for q, num := range map[string]string{
		"CREATE TABLE e (f FLOAT(5,6))":    "1427",
		"CREATE TABLE e (f FLOAT(256,31))": "1425",
		"CREATE TABLE e (f FLOAT(256,2))":  "1439",
	} {
		if _, err := db.Exec(q); err == nil || !strings.Contains(err.Error(), "Error "+num) {
			t.Fatalf("%s: %v, want %s", q, err, num)
		}
	}
	// An ALTER that narrows the digits rounds the stored values again.
	mustExec(t, db, "ALTER TABLE ff MODIFY d DOUBLE(8,1)", "ALTER TABLE ff MODIFY d DOUBLE")
	if got := queryRows(t, db, "SELECT d FROM ff WHERE id = 3"); got[0][0] != "12.3" {
		t.Fatalf("after narrowing to DOUBLE(8,1) and back: %v, want 12.3", got)
	}
	n.Close()
	n, err = node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	db = rootConn(t, n)
	if got := queryRows(t, db, "SELECT f FROM fd.ff WHERE id = 1"); got[0][0] != "1.24" {
		t.Fatalf("after restart %v", got)
	}
	if got := queryRows(t, db, "SHOW CREATE TABLE fd.ff"); !strings.Contains(got[0][1], "`f` float(5,2)") {
		t.Fatalf("after restart SHOW CREATE TABLE %q", got[0][1])
	}
}

// The same rounding and range with the fast paths on and off: a
// prepared INSERT and UPDATE store FLOAT(5,2)'s values rounded, and a
// value past its range is 1264, whichever path writes.
func TestFloatDigitsFastPathsOnAndOff(t *testing.T) {
	for _, fast := range []bool{true, false} {
		n, open := startNode(t)
		n.SQL().SetFastWrites(fast)
		db := open("")
		mustExec(t, db, "CREATE DATABASE fd", "CREATE TABLE fd.t (id INT PRIMARY KEY, f FLOAT(5,2), d DOUBLE(8,3))")
		for i, v := range []float64{1.236, 2.225, -3.14159} {
			if _, err := db.Exec("INSERT INTO fd.t VALUES (?, ?, ?)", i+1, v, v); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Exec("UPDATE fd.t SET d = ? WHERE id = ?", 12.34567, 3); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("INSERT INTO fd.t VALUES (?, ?, 0)", 9, 999.995); err == nil || !strings.Contains(err.Error(), "1264") {
			t.Fatalf("fast=%v: 999.995 into FLOAT(5,2): %v, want 1264", fast, err)
		}
		got := queryRows(t, db, "SELECT ROUND(f * 1000), ROUND(d * 10000) FROM fd.t ORDER BY id")
		want := [][]string{{"1240", "12360"}, {"2230", "22250"}, {"-3140", "123460"}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("fast=%v: stored %v, want %v", fast, got, want)
		}
	}
}
