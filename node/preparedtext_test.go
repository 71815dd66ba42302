package node_test

import (
	"reflect"
	"testing"
)

// Statements whose syntax Petrel rewrites before vitess parses it work
// when a driver prepares them over the binary protocol too: vitess
// parses a COM_STMT_PREPARE's text itself, before Petrel's handler, and
// refused them with 1064 (WITH ROLLUP, > ALL (subquery), SUBSTRING(s
// FROM n), INTERVAL ? SECOND_MICROSECOND, a function name as an alias).
// go-sql-driver prepares every query with arguments.
func TestBinaryPrepareOfRewrittenSyntax(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE pt", "CREATE TABLE pt.t (a INT, b VARCHAR(5), c INT)",
		"INSERT INTO pt.t VALUES (1, 'xy', 10), (1, 'y', 20), (2, 'zw', 5)")
	for _, c := range []struct {
		q    string
		args []any
		want [][]string
	}{
		{"SELECT a, SUM(c) FROM pt.t WHERE c > ? GROUP BY a WITH ROLLUP", []any{6}, [][]string{{"1", "30"}, {"NULL", "30"}}},
		{"SELECT a, c FROM pt.t WHERE c > ALL (SELECT c FROM pt.t WHERE c < ?) ORDER BY c", []any{15}, [][]string{{"1", "20"}}},
		{"SELECT SUBSTRING(b FROM ?) FROM pt.t ORDER BY c", []any{2}, [][]string{{"w"}, {"y"}, {""}}},
		{"SELECT DATE_ADD('2020-01-01 00:00:00', INTERVAL ? SECOND_MICROSECOND)", []any{"1.5"}, [][]string{{"2020-01-01 00:00:01.500000"}}},
		{"SELECT MAX(c) AS max FROM pt.t WHERE a = ?", []any{1}, [][]string{{"20"}}},
	} {
		if got := queryRows(t, db, c.q, c.args...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.q, got, c.want)
		}
	}
}
