package node_test

import (
	"reflect"
	"strings"
	"testing"
)

// TestFastIndexSelectMatchesGMS compares selects over disjunctions of
// ranges and points on an index's leading integer column (sysbench's
// select_random_ranges and select_random_points, and variants: counts,
// sums, rows, the primary key, a secondary index with NULLs, unsigned
// bounds out of range, a keyless table) answered by the index fast path
// (covering scans included) with GMS's answers, in autocommit mode and
// inside a transaction over its own uncommitted writes.
func TestFastIndexSelectMatchesGMS(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE fi",
		`CREATE TABLE fi.t (id INT PRIMARY KEY, k INT NOT NULL, u SMALLINT UNSIGNED, c CHAR(20) NOT NULL COLLATE utf8mb4_0900_ai_ci,
			m MEDIUMINT, KEY k_1 (k), KEY ku (u, k), KEY km (m))`,
		"CREATE TABLE fi.nk (a INT, b VARCHAR(10), KEY ka (a))")
	for i := 1; i <= 80; i++ {
		m := "NULL"
		if i%4 != 0 {
			m = itoa(i*37%200 - 100)
		}
		c := []string{"b", "a", "B", "ä", "a "}[i%5] + strings.Repeat("x", i%3)
		mustExec(t, db, "INSERT INTO fi.t VALUES ("+itoa(i)+", "+itoa(i*7%23-5)+", "+itoa(i*1000%65536)+", '"+c+"', "+m+")",
			"INSERT INTO fi.nk VALUES ("+itoa(i%9)+", '"+c+"')")
	}
	type q struct {
		sql  string
		args [][]any
	}
	r2 := func(a, b, c, d any) []any { return []any{a, b, c, d} }
	queries := []q{
		{"SELECT COUNT(k) FROM fi.t WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ?", [][]any{r2(1, 5, 3, 9), r2(-5, -1, 10, 20), r2(5, 1, 2, 2), r2(100, 200, -100, -50)}},
		{"SELECT count(*) FROM fi.t WHERE (k BETWEEN ? AND ?) OR (k BETWEEN ? AND ?)", [][]any{r2(1, 5, 3, 9), r2(-5, 17, 0, 0)}},
		{"SELECT SUM(k) FROM fi.t WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ?", [][]any{r2(1, 5, 3, 9), r2(30, 40, 50, 60)}},
		{"SELECT SUM(id) FROM fi.t WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ?", [][]any{r2(-5, 0, 0, 5)}},
		{"SELECT COUNT(c) FROM fi.t WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ?", [][]any{r2(1, 5, 3, 9)}},
		{"SELECT COUNT(m) FROM fi.t WHERE m BETWEEN ? AND ? OR m = ?", [][]any{{-100, 0, 50}, {-1000, 1000, 0}}},
		{"SELECT id, k, c, m FROM fi.t WHERE k IN (?, ?, ?, ?)", [][]any{{1, 2, 3, 1}, {-5, 17, 99, 0}}},
		{"SELECT * FROM fi.t WHERE k = ? OR k BETWEEN ? AND ?", [][]any{{4, 10, 12}, {11, 10, 12}}},
		{"SELECT c FROM fi.t WHERE id IN (?, ?, ?)", [][]any{{5, 1, 80}, {0, 81, 3}}},
		{"SELECT COUNT(*) FROM fi.t WHERE id BETWEEN ? AND ? OR id BETWEEN ? AND ?", [][]any{r2(1, 10, 5, 20), r2(70, 90, 1, 1)}},
		{"SELECT COUNT(k), SUM(u) FROM fi.t WHERE u BETWEEN ? AND ?", [][]any{{-5, 30000}, {1000, 2000}}},
		{"SELECT COUNT(u) FROM fi.t WHERE u BETWEEN ? AND ? OR u = ?", [][]any{{-5, 30000, 5000}, {1000, 2000, 70000}, {0, 65535, 8000}}},
		{"SELECT COUNT(*) FROM fi.nk WHERE a IN (?, ?)", [][]any{{1, 2}, {2, 2}, {9, 10}}},
		{"SELECT a, b FROM fi.nk WHERE a BETWEEN ? AND ?", [][]any{{3, 5}, {5, 3}}},
		{"SELECT COUNT(a) FROM fi.nk WHERE a BETWEEN ? AND ? OR a = ?", [][]any{{0, 2, 8}}},
		// String bounds are compared as numbers, not rounded to the column.
		{"SELECT COUNT(*) FROM fi.t WHERE k BETWEEN ? AND ? OR k = ?", [][]any{{"-2.5", "2.5", "7"}, {"1", "3", "-5"}}},
		{"SELECT SUM(k) FROM fi.t WHERE id BETWEEN ? AND ?", [][]any{{"1.5", "10.5"}, {"2", "9"}}},
	}
	run := func() [][][]string {
		var out [][][]string
		for _, q := range queries {
			for _, args := range q.args {
				out = append(out, queryRows(t, db, q.sql, args...))
			}
		}
		return out
	}
	both := func(what string) {
		t.Helper()
		n.SQL().SetFastWrites(true)
		before := statusInt(t, db, "Petrel_fast_path_reads")
		fast := run()
		used := statusInt(t, db, "Petrel_fast_path_reads") - before
		n.SQL().SetFastWrites(false)
		slow := run()
		n.SQL().SetFastWrites(true)
		i := 0
		for _, q := range queries {
			for _, args := range q.args {
				if !reflect.DeepEqual(fast[i], slow[i]) {
					t.Errorf("%s: %s %v:\nfast %v\nGMS  %v", what, q.sql, args, fast[i], slow[i])
				}
				i++
			}
		}
		if used < int64(i)/2 {
			t.Errorf("%s: %d of %d selects took a fast path", what, used, i)
		}
		t.Logf("%s: %d of %d selects took a fast path", what, used, i)
	}
	both("autocommit")
	mustExec(t, db, "BEGIN",
		"INSERT INTO fi.t VALUES (100, 3, 7, 'own', 1)",
		"UPDATE fi.t SET k = 4, m = NULL WHERE id = 10",
		"DELETE FROM fi.t WHERE id = 11",
		"INSERT INTO fi.nk VALUES (2, 'own')")
	both("own writes")
	mustExec(t, db, "ROLLBACK")
	if got := queryRows(t, db, "SELECT COUNT(*) FROM fi.t WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ?", -100, 0, 1, 100); !reflect.DeepEqual(got, [][]string{{"80"}}) {
		t.Errorf("count of every row: %v", got)
	}
}
