package node_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Issue 29: index access uses every key column an equality, an IN list or
// a range gives it, for composite primary and secondary keys, before
// statistics exist and after ANALYZE TABLE made them.

// compositeTables creates ck.t2 (two-column primary key), ck.t3 (three
// columns) and ck.s (a composite secondary key), each with a keyless copy
// (ck.t3_plain) to compare with, and fills them deterministically.
func compositeTables(t *testing.T, db *sql.DB) {
	t.Helper()
	mustExec(t, db, "CREATE DATABASE ck",
		"CREATE TABLE ck.t2 (b INT NOT NULL, a INT NOT NULL, v INT NOT NULL, PRIMARY KEY (a, b))",
		"CREATE TABLE ck.t3 (a INT NOT NULL, b INT NOT NULL, c INT NOT NULL, x INT, y VARCHAR(8), v INT NOT NULL, PRIMARY KEY (a, b, c), KEY kxy (x, y))",
		"CREATE TABLE ck.t3_plain (a INT NOT NULL, b INT NOT NULL, c INT NOT NULL, x INT, y VARCHAR(8), v INT NOT NULL)")
	var t2, t3 []string
	for a := 1; a <= 4; a++ {
		for b := 1; b <= 50; b++ {
			t2 = append(t2, fmt.Sprintf("(%d, %d, %d)", b, a, a*1000+b))
		}
	}
	for a := 1; a <= 5; a++ {
		for b := 1; b <= 8; b++ {
			for c := 1; c <= 12; c++ {
				x, y := fmt.Sprint((a*7+b*3+c)%9), fmt.Sprintf("'%c'", 'p'+rune((a+b*c)%4))
				if (a+b+c)%11 == 0 {
					x = "NULL"
				}
				if (a*b+c)%13 == 0 {
					y = "NULL"
				}
				t3 = append(t3, fmt.Sprintf("(%d, %d, %d, %s, %s, %d)", a, b, c, x, y, a*10000+b*100+c))
			}
		}
	}
	// ck.o is TPC-C's orders: a customer's orders are found through a
	// longer prefix of idx_order than of the primary key.
	var o []string
	for w := 1; w <= 2; w++ {
		for d := 1; d <= 10; d++ {
			for id := 1; id <= 300; id++ {
				o = append(o, fmt.Sprintf("(%d, %d, %d, %d)", id, d, w, (id*7+d)%100))
			}
		}
	}
	mustExec(t, db, "CREATE TABLE ck.o (o_id INT NOT NULL, o_d_id INT NOT NULL, o_w_id INT NOT NULL, o_c_id INT NOT NULL, PRIMARY KEY (o_w_id, o_d_id, o_id), KEY idx_order (o_w_id, o_d_id, o_c_id, o_id))",
		"INSERT INTO ck.o VALUES "+strings.Join(o, ","))
	mustExec(t, db, "INSERT INTO ck.t2 VALUES "+strings.Join(t2, ","),
		"INSERT INTO ck.t3 VALUES "+strings.Join(t3, ","),
		"INSERT INTO ck.t3_plain SELECT * FROM ck.t3")
}

// explain returns EXPLAIN FORMAT=TREE's lines for q, joined.
func explain(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	var lines []string
	for _, r := range queryRows(t, db, "EXPLAIN FORMAT=TREE "+q) {
		lines = append(lines, r[0])
	}
	return strings.Join(lines, "\n")
}

// TestCompositeKeyRanges asserts the index ranges of lookups by composite
// keys: every column an equality or IN list fixes and a range on the
// last one used, for SELECT, SELECT ... FOR UPDATE, UPDATE and DELETE,
// with no filter left above the index (the ranges are exact). It runs on
// a fresh table (no statistics: EXPLAIN of a one-row lookup failed there
// with 1105 "max1Row iterator returned more than one row") and again
// after ANALYZE TABLE (statistics of the first column only made every
// range stop at it: issue 29's stock lookup read a whole warehouse). Row
// constructors' IN lists (TPC-C's delivery) become one range per row, and
// ORDER BY the key columns after an equality prefix reads the index in
// order (forwards or backwards) with no sort. Of two indexes the one whose
// longer prefix the WHERE fixes is read (TPC-C's orders by customer).
func TestCompositeKeyRanges(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	compositeTables(t, db)
	cases := []struct{ q, index, ranges string }{
		{"SELECT v FROM ck.t2 WHERE a = 1 AND b = 5", "[t2.a,t2.b]", "{[1, 1], [5, 5]}"},
		{"SELECT v FROM ck.t2 WHERE b = 5 AND a = 1 FOR UPDATE", "[t2.a,t2.b]", "{[1, 1], [5, 5]}"},
		{"SELECT v FROM ck.t2 WHERE a = 2 AND b IN (7, 3)", "[t2.a,t2.b]", "{[2, 2], [3, 3]}, {[2, 2], [7, 7]}"},
		{"SELECT v FROM ck.t2 WHERE a IN (1, 3) AND b IN (4, 9)", "[t2.a,t2.b]", "{[1, 1], [4, 4]}, {[1, 1], [9, 9]}, {[3, 3], [4, 4]}, {[3, 3], [9, 9]}"},
		{"SELECT v FROM ck.t2 WHERE a = 3 AND b > 10 AND b <= 20", "[t2.a,t2.b]", "{[3, 3], (10, 20]}"},
		{"SELECT v FROM ck.t2 WHERE a = 3 AND b BETWEEN 10 AND 20", "[t2.a,t2.b]", "{[3, 3], [10, 20]}"},
		{"UPDATE ck.t2 SET v = v + 1 WHERE a = 4 AND b = 50", "[t2.a,t2.b]", "{[4, 4], [50, 50]}"},
		{"DELETE FROM ck.t2 WHERE a = 4 AND b = 49", "[t2.a,t2.b]", "{[4, 4], [49, 49]}"},
		{"SELECT v FROM ck.t3 WHERE a = 1 AND b = 2 AND c = 3", "[t3.a,t3.b,t3.c]", "{[1, 1], [2, 2], [3, 3]}"},
		{"SELECT v FROM ck.t3 WHERE a = 1 AND b = 2", "[t3.a,t3.b,t3.c]", "{[1, 1], [2, 2], [NULL, ∞)}"},
		{"SELECT v FROM ck.t3 WHERE a = 5 AND b = 8 AND c >= 4 AND c < 9 FOR UPDATE", "[t3.a,t3.b,t3.c]", "{[5, 5], [8, 8], [4, 9)}"},
		{"SELECT v FROM ck.t3 WHERE a = 2 AND b IN (1, 2) AND c = 12", "[t3.a,t3.b,t3.c]", "{[2, 2], [1, 1], [12, 12]}, {[2, 2], [2, 2], [12, 12]}"},
		{"UPDATE ck.t3 SET v = 0 WHERE a = 3 AND b = 3 AND c = 3", "[t3.a,t3.b,t3.c]", "{[3, 3], [3, 3], [3, 3]}"},
		{"DELETE FROM ck.t3 WHERE a = 3 AND b = 4 AND c > 10", "[t3.a,t3.b,t3.c]", "{[3, 3], [4, 4], (10, ∞)}"},
		{"SELECT a, b, c FROM ck.t3 WHERE x = 4 AND y = 'q'", "[t3.x,t3.y]", "{[4, 4], [q, q]}"},
		{"SELECT a, b, c FROM ck.t3 WHERE x = 4 AND y IN ('p', 's')", "[t3.x,t3.y]", "{[4, 4], [p, p]}, {[4, 4], [s, s]}"},
		{"SELECT a, b, c FROM ck.t3 WHERE x = 4 AND y > 'q'", "[t3.x,t3.y]", "{[4, 4], (q, ∞)}"},
		// Row constructors' IN lists, in any column order.
		{"SELECT v FROM ck.t3 WHERE (a, b, c) IN ((1, 2, 3), (2, 3, 4))", "[t3.a,t3.b,t3.c]", "{[1, 1], [2, 2], [3, 3]}, {[2, 2], [3, 3], [4, 4]}"},
		{"SELECT v FROM ck.t3 WHERE (c, a, b) IN ((3, 1, 2)) FOR UPDATE", "[t3.a,t3.b,t3.c]", "{[1, 1], [2, 2], [3, 3]}"},
		{"SELECT v FROM ck.t2 WHERE (a, b) IN ((1, 2), (1, 3)) AND v > 0", "[t2.a,t2.b]", "{[1, 1], [2, 2]}, {[1, 1], [3, 3]}"},
		{"UPDATE ck.t3 SET v = v + 1 WHERE (a, b, c) IN ((4, 4, 4), (4, 5, 5))", "[t3.a,t3.b,t3.c]", "{[4, 4], [4, 4], [4, 4]}, {[4, 4], [5, 5], [5, 5]}"},
		{"DELETE FROM ck.t3 WHERE (a, b, c) IN ((5, 1, 1), (5, 1, 2))", "[t3.a,t3.b,t3.c]", "{[5, 5], [1, 1], [1, 1]}, {[5, 5], [1, 1], [2, 2]}"},
		// ORDER BY the columns after an equality prefix: index order, no sort.
		{"SELECT c FROM ck.t3 WHERE a = 1 AND b = 2 ORDER BY c LIMIT 1 FOR UPDATE", "[t3.a,t3.b,t3.c]", "{[1, 1], [2, 2], [NULL, ∞)}"},
		{"SELECT b, c FROM ck.t3 WHERE a = 1 ORDER BY b DESC, c DESC LIMIT 3", "[t3.a,t3.b,t3.c]", "{[1, 1], [NULL, ∞), [NULL, ∞)}"},
		{"SELECT a, b FROM ck.t3 WHERE x = 4 AND y = 'q' ORDER BY a, b", "[t3.x,t3.y]", "{[4, 4], [q, q]}"},
		// Of two indexes, the one whose longer prefix the WHERE fixes.
		{"SELECT o_id FROM ck.o WHERE o_w_id = 1 AND o_d_id = 2 AND o_c_id = 7 ORDER BY o_id DESC LIMIT 1", "[o.o_w_id,o.o_d_id,o.o_c_id,o.o_id]", "{[1, 1], [2, 2], [7, 7], [NULL, ∞)}"},
		{"SELECT o_id FROM ck.o WHERE o_w_id = 1 AND o_d_id IN (2, 3) AND o_c_id = 7", "[o.o_w_id,o.o_d_id,o.o_c_id,o.o_id]", "{[1, 1], [2, 2], [7, 7], [NULL, ∞)}, {[1, 1], [3, 3], [7, 7], [NULL, ∞)}"},
		{"SELECT o_c_id FROM ck.o WHERE o_w_id = 2 AND o_d_id = 5 AND o_id = 9 AND o_c_id = 7", "[o.o_w_id,o.o_d_id,o.o_id]", "{[2, 2], [5, 5], [9, 9]}"},
	}
	check := func(when string) {
		t.Helper()
		for _, c := range cases {
			plan := explain(t, db, c.q)
			want := "index: " + c.index
			if !strings.Contains(plan, want) || !strings.Contains(plan, "filters: ["+c.ranges+"]") {
				t.Errorf("%s: %s: plan\n%s\nwant %s and ranges [%s]", when, c.q, plan, want, c.ranges)
			}
			if strings.Contains(plan, "Filter") && !strings.Contains(c.q, "v > 0") && !strings.Contains(c.q, "o_id = 9") {
				t.Errorf("%s: %s: a filter above the index:\n%s", when, c.q, plan)
			}
			if strings.Contains(plan, "Sort") || strings.Contains(plan, "TopN") {
				t.Errorf("%s: %s: a sort above the index:\n%s", when, c.q, plan)
			}
			if desc := strings.Contains(c.q, "DESC"); desc != strings.Contains(plan, "reverse: true") {
				t.Errorf("%s: %s: the index is read backwards: %v, want %v:\n%s", when, c.q, !desc, desc, plan)
			}
		}
	}
	check("before ANALYZE TABLE")
	// Statements GMS marks as returning one row, explained: the plan's
	// lines all arrive.
	for _, q := range []string{
		"EXPLAIN FORMAT=TREE SELECT COUNT(*) FROM ck.t2",
		"/* a comment first */ EXPLAIN FORMAT=TREE SELECT v FROM ck.t2 WHERE a = 1 AND b = 5",
		"DESCRIBE FORMAT=TREE SELECT v FROM ck.t3 WHERE a = 1 AND b = 1 AND c = 1",
		"EXPLAIN ANALYZE SELECT v FROM ck.t2 WHERE a = 1 AND b = 5",
	} {
		if lines := queryRows(t, db, q); len(lines) < 2 {
			t.Errorf("%s: %v, want the plan's lines", q, lines)
		}
	}
	mustExec(t, db, "ANALYZE TABLE ck.t2, ck.t3")
	var card int64
	if err := db.QueryRow("SELECT CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'ck' AND TABLE_NAME = 't2' AND INDEX_NAME = 'PRIMARY' AND SEQ_IN_INDEX = 2").Scan(&card); err != nil || card != 200 {
		t.Fatalf("t2's analysed PRIMARY cardinality of (a, b): %d, %v; want 200", card, err)
	}
	check("after ANALYZE TABLE")
}

// TestLockingReadByFullKeyLocksOneRow: SELECT ... FOR UPDATE by a whole
// composite primary key locks that row and no other, and so does ORDER BY
// ... LIMIT 1 FOR UPDATE after an equality prefix: another session
// updates and deletes the neighbours sharing their first column (by full
// keys and row IN lists, without waiting) while the rows themselves stay
// locked (1205 after a one-second innodb_lock_wait_timeout). Before issue 29 the lookup read,
// and locked, every row of its first column.
func TestLockingReadByFullKeyLocksOneRow(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	compositeTables(t, db)
	ctx := context.Background()
	for pass, when := range []string{"before ANALYZE TABLE", "after ANALYZE TABLE"} {
		if pass == 1 {
			mustExec(t, db, "ANALYZE TABLE ck.t2, ck.t3")
		}
		a := 2 + pass // each pass locks and changes rows of its own
		sub := func(q string) string {
			return strings.NewReplacer("a = 2", fmt.Sprintf("a = %d", a), "{a}", fmt.Sprint(a)).Replace(q)
		}
		holder, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		other, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mustConnExec(t, holder, "BEGIN")
		if got := connInt(t, holder, sub("SELECT v FROM ck.t2 WHERE a = 2 AND b = 25 FOR UPDATE")); got != int64(a*1000+25) {
			t.Fatalf("%s: locking read of (%d, 25): v=%d", when, a, got)
		}
		if got := connInt(t, holder, sub("SELECT v FROM ck.t3 WHERE a = 2 AND b = 4 AND c = 6 FOR UPDATE")); got != int64(a*10000+406) {
			t.Fatalf("%s: locking read of (%d, 4, 6): v=%d", when, a, got)
		}
		if got := connInt(t, holder, sub("SELECT b FROM ck.t2 WHERE a = 2 ORDER BY b DESC LIMIT 1 FOR UPDATE")); got != 50 {
			t.Fatalf("%s: the last b of a = %d: %d, want 50", when, a, got)
		}
		mustConnExec(t, other, "SET SESSION innodb_lock_wait_timeout = 1")
		for _, q := range []string{
			"UPDATE ck.t2 SET v = v + 1 WHERE a = 2 AND b = 24",
			"UPDATE ck.t2 SET v = v + 1 WHERE a = 2 AND b = 26",
			"UPDATE ck.t2 SET v = v + 1 WHERE a = 2 AND b IN (1, 48)",
			"UPDATE ck.t3 SET v = v + 1 WHERE a = 2 AND b = 4 AND c = 7",
			"UPDATE ck.t3 SET v = v + 1 WHERE a = 2 AND b = 3",
			"DELETE FROM ck.t3 WHERE a = 2 AND b = 4 AND c = 5",
			"UPDATE ck.t2 SET v = v + 1 WHERE a = 2 AND b = 49",
			"UPDATE ck.t3 SET v = v + 1 WHERE (a, b, c) IN (({a}, 4, 8), ({a}, 5, 6))",
			"DELETE FROM ck.t3 WHERE (a, b, c) IN (({a}, 4, 9), ({a}, 6, 6))",
		} {
			q = sub(q)
			start := time.Now()
			res, err := other.ExecContext(ctx, q)
			if err != nil {
				t.Fatalf("%s: %s while (%d, 25) and (%d, 4, 6) are locked: %v (after %v)", when, q, a, a, err, time.Since(start))
			}
			if n, _ := res.RowsAffected(); n == 0 {
				t.Errorf("%s: %s changed no row", when, q)
			}
			if d := time.Since(start); d > 500*time.Millisecond {
				t.Errorf("%s: %s took %v: it waited for a lock", when, q, d)
			}
		}
		for _, q := range []string{
			"UPDATE ck.t2 SET v = v + 1 WHERE a = 2 AND b = 25",
			"UPDATE ck.t3 SET v = v + 1 WHERE a = 2 AND b = 4 AND c = 6",
			"UPDATE ck.t2 SET v = v + 1 WHERE a = 2 AND b = 50",
		} {
			q = sub(q)
			var me *mysql.MySQLError
			if _, err := other.ExecContext(ctx, q); !errors.As(err, &me) || me.Number != 1205 {
				t.Errorf("%s: %s on the locked row: %v, want error 1205", when, q, err)
			}
		}
		mustConnExec(t, holder, "ROLLBACK")
		holder.Close()
		other.Close()
	}
}

// TestFullKeyLookupReadsOneRow counts the rows storage returns
// (Innodb_rows_read) for lookups by composite keys: one for a whole key,
// the prefix's rows for a prefix, not the first column's range; one per
// row of a row IN list; LIMIT's rows for ORDER BY in index order.
func TestFullKeyLookupReadsOneRow(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	compositeTables(t, db)
	mustExec(t, db, "ANALYZE TABLE ck.t2, ck.t3")
	cases := []struct {
		q    string
		rows int64
	}{
		{"SELECT v FROM ck.t2 WHERE a = 1 AND b = 5", 1},
		{"SELECT v FROM ck.t2 WHERE a = 1 AND b IN (5, 6, 99)", 2},
		{"SELECT v FROM ck.t2 WHERE a = 1 AND b BETWEEN 5 AND 9", 5},
		{"SELECT v FROM ck.t2 WHERE a = 1", 50},
		{"SELECT v FROM ck.t3 WHERE a = 4 AND b = 2 AND c = 9", 1},
		{"SELECT v FROM ck.t3 WHERE a = 4 AND b = 2", 12},
		{"SELECT a FROM ck.t3 WHERE x = 0 AND y = 'p'", int64(len(queryRows(t, db, "SELECT a FROM ck.t3_plain WHERE x = 0 AND y = 'p'")))},
		{"SELECT v FROM ck.t3 WHERE (a, b, c) IN ((1, 2, 3), (2, 3, 4), (9, 9, 9))", 2},
		{"SELECT c FROM ck.t3 WHERE a = 3 AND b = 3 ORDER BY c DESC LIMIT 1", 1},
		{"SELECT b FROM ck.t2 WHERE a = 3 ORDER BY b LIMIT 2", 2},
		{"SELECT o_id FROM ck.o WHERE o_w_id = 1 AND o_d_id = 2 AND o_c_id = 7 ORDER BY o_id DESC LIMIT 1", 1},
		{"SELECT o_id FROM ck.o WHERE o_w_id = 2 AND o_d_id = 3 AND o_c_id = 24", 3},
	}
	for _, c := range cases {
		before := statusInt(t, db, "Innodb_rows_read")
		queryRows(t, db, c.q)
		if got := statusInt(t, db, "Innodb_rows_read") - before; got != c.rows {
			t.Errorf("%s read %d rows, want %d", c.q, got, c.rows)
		}
	}
	// Prepared statements (go-sql-driver prepares a query with arguments
	// on the server; TPC-C's clients do) are planned with their values.
	prepared := []struct {
		q    string
		args []any
		rows int64
	}{
		{"SELECT v FROM ck.t2 WHERE a = ? AND b = ?", []any{2, 7}, 1},
		{"SELECT v FROM ck.t3 WHERE a = ? AND b = ? AND c = ?", []any{3, 4, 5}, 1},
		{"SELECT v FROM ck.t3 WHERE (a, b, c) IN ((?, ?, ?), (?, ?, ?))", []any{1, 1, 1, 2, 2, 2}, 2},
		{"SELECT o_id FROM ck.o WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1", []any{1, 2, 7}, 1},
		{"SELECT c FROM ck.t3 WHERE a = ? AND b = ? ORDER BY c LIMIT 1", []any{2, 2}, 1},
	}
	for _, c := range prepared {
		before := statusInt(t, db, "Innodb_rows_read")
		if got := len(queryRows(t, db, c.q, c.args...)); int64(got) != c.rows {
			t.Errorf("prepared %s %v returned %d rows, want %d", c.q, c.args, got, c.rows)
		}
		if got := statusInt(t, db, "Innodb_rows_read") - before; got != c.rows {
			t.Errorf("prepared %s %v read %d rows, want %d", c.q, c.args, got, c.rows)
		}
	}
	for _, c := range []struct {
		q    string
		args []any
	}{
		{"UPDATE ck.t3 SET v = v + 1 WHERE a = ? AND b = ? AND c = ?", []any{4, 4, 4}},
		{"UPDATE ck.t3 SET v = v + 1 WHERE (a, b, c) IN ((?, ?, ?))", []any{4, 4, 5}},
		{"DELETE FROM ck.t3 WHERE (a, b, c) IN ((?, ?, ?))", []any{4, 4, 6}},
	} {
		before := statusInt(t, db, "Innodb_rows_read")
		if _, err := db.Exec(c.q, c.args...); err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if got := statusInt(t, db, "Innodb_rows_read") - before; got != 1 {
			t.Errorf("prepared %s %v read %d rows, want 1", c.q, c.args, got)
		}
	}
	// A locking read and an UPDATE by a full key read one row too.
	before := statusInt(t, db, "Innodb_rows_read")
	mustExec(t, db, "BEGIN")
	queryRows(t, db, "SELECT v FROM ck.t3 WHERE a = 1 AND b = 1 AND c = 1 FOR UPDATE")
	mustExec(t, db, "UPDATE ck.t3 SET v = v + 1 WHERE a = 1 AND b = 1 AND c = 1", "COMMIT")
	if got := statusInt(t, db, "Innodb_rows_read") - before; got != 2 {
		t.Errorf("a locking read and an UPDATE by a full key read %d rows, want 2", got)
	}
}

// TestCompositeKeyLookupsMatchScan compares many random lookups by
// composite keys (equalities on key prefixes, IN lists, ranges on the
// last column used, IS NULL, and disjunctions and conjunctions of
// disjunctions of them, on primary keys and on secondary keys with NULLs)
// with the same WHERE over a keyless copy of the rows, which can only be
// scanned; before and after ANALYZE TABLE. ck.w's first key column has
// more values than a histogram has buckets, so the planner's costing of
// OR filters runs over many buckets (GMS's histogram union and
// intersection, see sqlengine's statistic).
func TestCompositeKeyLookupsMatchScan(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 29))
	_, open := startNode(t)
	db := open("")
	compositeTables(t, db)
	mustExec(t, db, "CREATE TABLE ck.w (a INT NOT NULL, b INT NOT NULL, c INT, v INT NOT NULL, PRIMARY KEY (a, b), KEY kcb (c, b))",
		"CREATE TABLE ck.w_plain (a INT NOT NULL, b INT NOT NULL, c INT, v INT NOT NULL)")
	var w []string
	for a := 0; a < 300; a++ {
		for b := 0; b < 5; b++ {
			c := fmt.Sprint((a*b + a/7) % 40)
			if (a+b)%17 == 0 {
				c = "NULL"
			}
			w = append(w, fmt.Sprintf("(%d, %d, %s, %d)", a, b, c, a*10+b))
		}
	}
	mustExec(t, db, "INSERT INTO ck.w VALUES "+strings.Join(w, ","), "INSERT INTO ck.w_plain SELECT * FROM ck.w")
	type table struct {
		name, cols, order string
		keys              [][]string
		span              map[string]int // values are drawn from [-1, span]
	}
	tables := []table{
		{"t3", "a, b, c, x, y, v", "a, b, c", [][]string{{"a", "b", "c"}, {"x", "y"}}, map[string]int{"a": 6, "b": 9, "c": 13, "x": 9, "v": 60000}},
		{"w", "a, b, c, v", "a, b", [][]string{{"a", "b"}, {"c", "b"}}, map[string]int{"a": 300, "b": 5, "c": 40, "v": 3000}},
	}
	var tb table
	val := func(col string) string {
		if col == "y" {
			// Upper case too: the column's collation (utf8mb4_0900_ai_ci)
			// ignores case, in the index as in the scan.
			return fmt.Sprintf("'%c'", []rune("opqrstOPQRST")[rng.IntN(12)])
		}
		return fmt.Sprint(rng.IntN(tb.span[col]+2) - 1)
	}
	// term is one condition on col: =, IN, a range, BETWEEN or IS NULL;
	// only the last key column used gets a range.
	term := func(col string, last bool) string {
		k := rng.IntN(2)
		if last {
			k = rng.IntN(5)
		}
		switch k {
		case 0:
			return col + " = " + val(col)
		case 1:
			return fmt.Sprintf("%s IN (%s, %s, %s)", col, val(col), val(col), val(col))
		case 2:
			ops := []string{">", ">=", "<", "<="}
			s := col + " " + ops[rng.IntN(4)] + " " + val(col)
			if rng.IntN(2) == 0 {
				s += " AND " + col + " " + ops[rng.IntN(4)] + " " + val(col)
			}
			return s
		case 3:
			return fmt.Sprintf("%s BETWEEN %s AND %s", col, val(col), val(col))
		default:
			return col + " IS NULL"
		}
	}
	either := func(col string, last bool) string { return "(" + term(col, last) + " OR " + term(col, last) + ")" }
	where := func() string {
		keys := tb.keys[rng.IntN(len(tb.keys))]
		n := 1 + rng.IntN(len(keys))
		var terms []string
		for i := 0; i < n; i++ {
			if rng.IntN(6) == 0 {
				terms = append(terms, either(keys[i], i == n-1))
			} else {
				terms = append(terms, term(keys[i], i == n-1))
			}
		}
		if rng.IntN(4) == 0 {
			terms = append(terms, "v "+[]string{">", "<"}[rng.IntN(2)]+" "+val("v"))
		}
		if rng.IntN(3) == 0 {
			// A condition on another index's columns: two indexes compete.
			other := tb.keys[rng.IntN(len(tb.keys))]
			for i := 0; i < 1+rng.IntN(len(other)); i++ {
				terms = append(terms, term(other[i], false))
			}
		}
		w := strings.Join(terms, " AND ")
		if rng.IntN(5) == 0 {
			w = "(" + w + ") OR (" + term(keys[0], false) + " AND " + term(keys[1], true) + ")"
		}
		return w
	}
	// rowIn is a row constructor's IN list over a random order of some of
	// a key's columns (three rows, some absent).
	rowIn := func(keys []string) string {
		cols := append([]string(nil), keys...)
		rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
		cols = cols[:2+rng.IntN(len(cols)-1)]
		var rows []string
		for r := 0; r < 1+rng.IntN(3); r++ {
			var vs []string
			for _, c := range cols {
				vs = append(vs, val(c))
			}
			rows = append(rows, "("+strings.Join(vs, ", ")+")")
		}
		return "(" + strings.Join(cols, ", ") + ") IN (" + strings.Join(rows, ", ") + ")"
	}
	// ordered is a query whose ORDER BY follows an equality prefix of a
	// key (or the key's own order), ascending or descending, with a LIMIT:
	// deterministic, since the sort columns complete the key.
	ordered := func() string {
		keys := tb.keys[rng.IntN(len(tb.keys))]
		if tb.name == "w" && keys[0] == "c" {
			keys = []string{"c", "b", "a"} // kcb (c, b) extended by the primary key
		}
		if tb.name == "t3" && keys[0] == "x" {
			keys = []string{"x", "y", "a", "b", "c"}
		}
		k := rng.IntN(len(keys) - 1)
		var terms []string
		for _, c := range keys[:k] {
			terms = append(terms, c+" = "+val(c))
		}
		if rng.IntN(2) == 0 {
			terms = append(terms, term(keys[k], true))
		}
		w := "TRUE"
		if len(terms) > 0 {
			w = strings.Join(terms, " AND ")
		}
		dir := []string{"", " DESC"}[rng.IntN(2)]
		var order []string
		for _, c := range keys[k:] {
			order = append(order, c+dir)
		}
		if k > 0 && rng.IntN(3) == 0 {
			// The prefix is not one value (an IN list): the index order is
			// not the ORDER BY's, which then ends with the prefix columns
			// to stay deterministic.
			terms[0] = fmt.Sprintf("%s IN (%s, %s)", keys[0], val(keys[0]), val(keys[0]))
			w = strings.Join(terms, " AND ")
			for _, c := range keys[:k] {
				order = append(order, c+dir)
			}
		}
		return w + " ORDER BY " + strings.Join(order, ", ") + fmt.Sprintf(" LIMIT %d", 1+rng.IntN(4))
	}
	for _, when := range []string{"before ANALYZE TABLE", "after ANALYZE TABLE"} {
		if when == "after ANALYZE TABLE" {
			mustExec(t, db, "ANALYZE TABLE ck.t3, ck.t3_plain, ck.w, ck.w_plain")
		}
		for i := 0; i < 400; i++ {
			tb = tables[i%len(tables)]
			var w string
			switch rng.IntN(6) {
			case 0:
				w = rowIn(tb.keys[rng.IntN(len(tb.keys))])
				if rng.IntN(3) == 0 {
					w += " AND " + term("v", true)
				}
			case 1:
				w = ordered()
			default:
				w = where()
			}
			q := "SELECT " + tb.cols + " FROM ck." + tb.name + " WHERE " + w
			plain := "SELECT " + tb.cols + " FROM ck." + tb.name + "_plain WHERE " + w
			if !strings.Contains(w, "ORDER BY") {
				q, plain = q+" ORDER BY "+tb.order, plain+" ORDER BY "+tb.order
			}
			indexed := queryRows(t, db, q)
			scanned := queryRows(t, db, plain)
			if !reflect.DeepEqual(indexed, scanned) {
				t.Fatalf("%s, seed %d: %s:\nindexed %v\nscanned %v\nplan:\n%s", when, seed, q, indexed, scanned, explain(t, db, q))
			}
		}
	}
}
