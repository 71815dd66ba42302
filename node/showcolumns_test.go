package node_test

import (
	"reflect"
	"testing"
)

// SHOW COLUMNS shows a string column's type without its character set
// and collation, and SHOW FULL COLUMNS the column's own collation (NULL
// for binary and non-string columns), as MySQL does; GMS printed COLLATE
// for every utf8mb4_0900_ai_ci column and gave every text column
// utf8mb4_0900_bin (mtr's show_row_order-9226).
func TestShowColumnsCollations(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE sc", "CREATE TABLE sc.t (a ENUM('1','2') NOT NULL, b VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_bin, "+
		"c VARBINARY(3), d TEXT, e SET('x'), f INT, g CHAR(2) COLLATE utf8mb4_bin) DEFAULT CHARSET = utf8mb4",
		"CREATE VIEW sc.v AS SELECT a, b FROM sc.t")
	got := queryRows(t, db, "SHOW COLUMNS FROM sc.t")
	var types []string
	for _, r := range got {
		types = append(types, r[1])
	}
	if want := []string{"enum('1','2')", "varchar(10)", "varbinary(3)", "text", "set('x')", "int", "char(2)"}; !reflect.DeepEqual(types, want) {
		t.Fatalf("SHOW COLUMNS types: %v, want %v", types, want)
	}
	var colls [][]string
	for _, r := range queryRows(t, db, "SHOW FULL COLUMNS FROM sc.t") {
		colls = append(colls, []string{r[1], r[2]})
	}
	want := [][]string{{"enum('1','2')", "utf8mb4_0900_ai_ci"}, {"varchar(10)", "latin1_bin"}, {"varbinary(3)", "NULL"}, {"text", "utf8mb4_0900_ai_ci"},
		{"set('x')", "utf8mb4_0900_ai_ci"}, {"int", "NULL"}, {"char(2)", "utf8mb4_bin"}}
	if !reflect.DeepEqual(colls, want) {
		t.Fatalf("SHOW FULL COLUMNS types and collations: %v, want %v", colls, want)
	}
	mustExec(t, db, "USE sc")
	if got := queryRows(t, db, "SHOW FULL COLUMNS FROM v"); len(got) != 2 || got[1][1] != "varchar(10)" || got[1][2] != "latin1_bin" {
		t.Fatalf("a view's columns: %v", got)
	}
}
