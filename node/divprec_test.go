package node_test

import (
	"reflect"
	"testing"
)

// TestDivPrecisionIncrement: a session's div_precision_increment sets a
// quotient's scale (the dividend's plus the increment) and its digits,
// and comparisons read the quotient's longer value (whole 9-digit words)
// as MySQL 8 does: 1/3 = 0.333333 is false at increment 6, and
// 1/3 = 0.333333333 true. GMS's division had the increment 4 built in.
// The values beside MariaDB are in e2e TestValueSemanticsMatchMariaDB.
func TestDivPrecisionIncrement(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE dp", "CREATE TABLE dp.t (a INT, b DECIMAL(10,3))",
		"INSERT INTO dp.t VALUES (1, 2.5), (7, 0.125), (3, 0)")
	for _, c := range []struct {
		inc, q string
		want   [][]string
	}{
		{"6", "SELECT 1/3, 10/4, CONCAT(1/3), 1/2.0 + 1, ROUND(1/3, 8)", [][]string{{"0.333333", "2.500000", "0.333333", "1.500000", "0.33333333"}}},
		{"6", "SELECT 1/3 = 0.333333, 1/3 = 0.333333333, 1/3 > 0.333333, 1/3 BETWEEN 0 AND 0.333333", [][]string{{"0", "1", "1", "0"}}},
		{"6", "SELECT a FROM dp.t WHERE a/3 > 0.333333 ORDER BY a", [][]string{{"1"}, {"3"}, {"7"}}},
		{"0", "SELECT 7/2, 1.5/7, AVG(a) FROM dp.t", [][]string{{"3", "0.2", "3"}}},
		{"12", "SELECT (1/7)/7, AVG(b) FROM dp.t", [][]string{{"0.020408163265306122428571", "0.875000000000000"}}},
		{"4", "SELECT 1/3, AVG(b) FROM dp.t", [][]string{{"0.3333", "0.8750000"}}},
	} {
		mustExec(t, db, "SET SESSION div_precision_increment = "+c.inc)
		if got := queryRows(t, db, c.q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("increment %s, %s: got %v, want %v", c.inc, c.q, got, c.want)
		}
	}
}
