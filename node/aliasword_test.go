package node_test

import (
	"fmt"
	"testing"
)

// MySQL 8 takes a non-reserved function name (BIT_OR, STD, VARIANCE,
// ...) as an alias; vitess's grammar refused it with 1064 (mtr's
// win_bit).
func TestFunctionNameAsAlias(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test")
	db := open("test")
	mustExec(t, db, "CREATE TABLE t1 (pk INT PRIMARY KEY, b INT)", "INSERT INTO t1 VALUES (1, 3), (2, 5), (3, 6)")
	rows, err := db.Query("SELECT pk, bit_or(b) OVER (ORDER BY pk) AS bit_or, bit_and(b) OVER (ORDER BY pk) AS bit_and, bit_xor(b) OVER (ORDER BY pk) AS bit_xor, variance(b) OVER (ORDER BY pk ROWS BETWEEN CURRENT ROW AND CURRENT ROW) AS variance FROM t1 ORDER BY pk")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	got := scanRows(t, rows)
	rows.Close()
	if fmt.Sprint(cols) != "[pk bit_or bit_and bit_xor variance]" {
		t.Errorf("columns %v", cols)
	}
	if want := "[[1 3 3 3 0] [2 7 1 6 0] [3 7 0 0 0]]"; fmt.Sprint(got) != want {
		t.Errorf("rows %v, want %s", got, want)
	}
}
