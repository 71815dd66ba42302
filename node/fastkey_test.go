package node_test

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"time"

	"petrel/node"

	"github.com/go-sql-driver/mysql"
)

// TestCompositeKeyFastPathsMatchGMS runs TPC-C's statement shapes on a
// table with a three-column primary key through the fast paths and
// through GMS (fast paths off) on twin tables: reads by the whole key
// (conjunctions in any order, IN lists of key tuples, FOR UPDATE in a
// transaction), UPDATEs with DECIMAL, DOUBLE and integer arithmetic,
// DELETE by a key list, multi-row prepared INSERTs leaving a nullable
// column out. What clients see (rows, rows affected, error numbers) and
// the tables' rows must be the same, and the fast paths must have taken
// the statements.
func TestCompositeKeyFastPathsMatchGMS(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE ck")
	for _, tb := range []string{"ck.a", "ck.b"} {
		mustExec(t, db, "CREATE TABLE "+tb+` (w INT NOT NULL, d TINYINT NOT NULL, id INT NOT NULL,
			bal DECIMAL(12,2), ytd DECIMAL(12,2) NOT NULL, cnt INT NOT NULL, f DOUBLE, c VARCHAR(20) NOT NULL,
			dt DATETIME, PRIMARY KEY (w, d, id))`)
	}
	ins2 := "INSERT INTO TBL (w, d, id, bal, ytd, cnt, f, c) VALUES (?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?)"
	steps := []fastStep{
		{ins2, []any{1, 1, 1, "10.00", "0.00", 0, 1.5, "one", 1, 1, 2, "-3.25", "1.10", 5, nil, "two"}},
		{ins2, []any{1, 2, 1, nil, "7.00", 1, 0.25, "three", 2, 1, 1, "99.99", "0.00", 2147483647, 2.0, "four"}},
		{"INSERT INTO TBL (w, d, id, ytd, cnt, c, dt) VALUES (?, ?, ?, ?, ?, ?, ?)", []any{2, 2, 2, "1.00", 0, "five", "2026-01-02 03:04:05"}},
		{ins2, []any{3, 1, 1, "1.00", "1.00", 0, nil, "six", 1, 1, 1, "1.00", "1.00", 0, nil, "dup"}}, // duplicate key: nothing
		{"UPDATE TBL SET bal = bal - ?, ytd = ytd + ?, cnt = cnt + 1 WHERE w = ? AND d = ? AND id = ?", []any{12.34, 12.34, 1, 1, 1}},
		{"UPDATE TBL SET bal = bal - ?, ytd = ytd + ?, cnt = cnt + 1 WHERE id = ? AND w = ? AND d = ?", []any{"0.5", 3, 2, 1, 1}},
		{"UPDATE TBL SET bal = bal + ? WHERE w = ? AND d = ? AND id = ?", []any{"1.005", 1, 1, 1}},    // rounds: a note
		{"UPDATE TBL SET bal = bal + ? WHERE w = ? AND d = ? AND id = ?", []any{5, 1, 2, 1}},          // NULL + 5
		{"UPDATE TBL SET cnt = cnt + 1 WHERE w = ? AND d = ? AND id = ?", []any{2, 1, 1}},             // overflow: 1690
		{"UPDATE TBL SET cnt = ? + 1, f = f * 1 WHERE w = ? AND d = ? AND id = ?", []any{7, 1, 1, 1}}, // f * 1: GMS's
		{"UPDATE TBL SET cnt = ? + 1 WHERE d = ? AND w = ? AND id = ?", []any{41, 1, 1, 2}},
		{"UPDATE TBL SET f = f - ? WHERE w = ? AND d = ? AND id = ?", []any{0.75, 1, 1, 1}},
		{"UPDATE TBL SET cnt = ? WHERE w = ? AND d = ? AND id = ?", []any{3, 9, 9, 9}}, // no such row
		{"UPDATE TBL SET c = ? WHERE (w, d, id) IN ((?, ?, ?), (?, ?, ?), (?, ?, ?))", []any{"listed", 1, 2, 1, 2, 2, 2, 9, 9, 9}},
		{"UPDATE TBL SET c = ? WHERE (w, d, id) IN ((?, ?, ?), (?, ?, ?))", []any{"listed", 1, 2, 1, 2, 2, 2}}, // no change
		{"BEGIN", nil},
		{"UPDATE TBL SET ytd = ytd + ? WHERE w = ? AND d = ? AND id = ?", []any{"100.00", 1, 1, 2}},
		{"DELETE FROM TBL WHERE (d, w, id) IN ((?, ?, ?), (?, ?, ?))", []any{2, 1, 1, 1, 2, 1}},
		{"COMMIT", nil},
		{"BEGIN", nil},
		{"DELETE FROM TBL WHERE w = ? AND d = ? AND id = ?", []any{2, 2, 2}},
		{"ROLLBACK", nil},
		// Leading columns of the key (TPC-C DELIVERY's order lines):
		// ranges of the key, each read and locked in key order.
		{ins2, []any{4, 1, 1, "1.00", "1.00", 0, nil, "p1", 4, 1, 2, "2.00", "1.00", 0, nil, "p2"}},
		{ins2, []any{4, 2, 1, "3.00", "1.00", 0, nil, "p3", 5, 1, 7, "4.00", "1.00", 0, nil, "p4"}},
		{"UPDATE TBL SET dt = ? WHERE (w, d) IN ((?, ?), (?, ?), (?, ?))", []any{"2026-11-29 10:00:00", 4, 1, 5, 1, 9, 9}},
		{"UPDATE TBL SET cnt = cnt + 1, bal = bal + ? WHERE w = ? AND d = ?", []any{"0.25", 4, 1}},
		{"UPDATE TBL SET cnt = cnt + 1 WHERE d = ? AND w = ?", []any{1, 4}},
		{"UPDATE TBL SET c = ? WHERE w IN (?, ?)", []any{"wide", 5, 4}},
		{"UPDATE TBL SET c = ? WHERE w = ?", []any{"wide", 4}}, // matched, no change
		{"BEGIN", nil},
		{"DELETE FROM TBL WHERE (d, w) IN ((?, ?))", []any{2, 4}},
		{"COMMIT", nil},
		{"DELETE FROM TBL WHERE w = ?", []any{5}},
	}
	writes, a := fastAgainstGMS(t, n, db, steps, "ck.a", "ck.b", "w, d, id")
	if len(a) != 5 {
		t.Errorf("%d rows left, want 5: %v", len(a), a)
	}
	// The fast path keeps every write but the duplicate key, the
	// overflow (1690) and f * 1 (GMS's), which GMS answers; the rounding
	// (a note) is the fast path's too (fastround_test.go); BEGIN, COMMIT
	// and ROLLBACK are not writes.
	if writes != 24 {
		t.Errorf("%d writes took the fast path, want 24", writes)
	}

	reads := []fastStep{
		{"SELECT c, bal, ytd, cnt, f, dt FROM TBL WHERE w = ? AND d = ? AND id = ?", []any{1, 1, 1}},
		{"SELECT * FROM TBL WHERE id = ? AND d = ? AND w = ?", []any{2, 2, 2}},
		{"SELECT c FROM TBL WHERE w = ? AND d = ? AND id = ?", []any{7, 7, 7}},
		{"SELECT id, c FROM TBL WHERE (w, id, d) IN ((?, ?, ?), (?, ?, ?), (?, ?, ?), (?, ?, ?))", []any{2, 2, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1}},
		{"SELECT TBL.c FROM TBL WHERE TBL.w = ? AND TBL.d = ? AND TBL.id = ?", []any{"1", 1, 1}}, // a string key: GMS's
	}
	runReads := func(tb string) [][][]string {
		var out [][][]string
		for _, r := range reads {
			out = append(out, queryRows(t, db, replaceTBL(r.q, tb), r.args...))
		}
		// FOR UPDATE inside a transaction.
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := tx.Query(replaceTBL("SELECT c, cnt FROM TBL WHERE w = ? AND d = ? AND id = ? FOR UPDATE", tb), 1, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, scanRows(t, rows))
		rows.Close()
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	n.SQL().SetFastWrites(true)
	before := statusInt(t, db, "Petrel_fast_path_reads")
	fastRows := runReads("ck.a")
	used := statusInt(t, db, "Petrel_fast_path_reads") - before
	n.SQL().SetFastWrites(false)
	slowRows := runReads("ck.a")
	n.SQL().SetFastWrites(true)
	for i := range fastRows {
		if !reflect.DeepEqual(fastRows[i], slowRows[i]) {
			t.Errorf("read %d: fast %v, GMS %v", i, fastRows[i], slowRows[i])
		}
	}
	if want := int64(len(reads)); used != want { // 4 reads + FOR UPDATE; the string key is GMS's
		t.Errorf("%d reads took the fast path, want %d", used, want)
	}
	if len(fastRows[3]) != 2 {
		t.Errorf("the key list read %v, want the 2 rows that exist", fastRows[3])
	}
}

func replaceTBL(q, tb string) string {
	out := []byte{}
	for i := 0; i < len(q); i++ {
		if i+3 <= len(q) && q[i:i+3] == "TBL" {
			out = append(out, tb...)
			i += 2
			continue
		}
		out = append(out, q[i])
	}
	return string(out)
}

// TestFastLockingReadLocksOnlyItsRow: SELECT ... FOR UPDATE by a whole
// composite key, answered by the fast path in a transaction, locks that
// row (another session's update of it waits and times out with 1205)
// and only that row (an update of the next key goes through at once).
func TestFastLockingReadLocksOnlyItsRow(t *testing.T) {
	db, ctx, a, b, tx, before := lockingSetup(t, "Petrel_fast_path_reads", "CREATE DATABASE lk",
		"CREATE TABLE lk.district (d_w_id INT NOT NULL, d_id INT NOT NULL, d_next_o_id INT NOT NULL, PRIMARY KEY (d_w_id, d_id))",
		"INSERT INTO lk.district VALUES (1, 1, 3001), (1, 2, 3001), (2, 1, 3001)")
	var next int
	if err := tx.QueryRowContext(ctx, "SELECT d_next_o_id FROM lk.district WHERE d_id = ? AND d_w_id = ? FOR UPDATE", 1, 1).Scan(&next); err != nil || next != 3001 {
		t.Fatalf("FOR UPDATE read %d, %v", next, err)
	}
	if used := statusInt(t, db, "Petrel_fast_path_reads") - before; used != 1 {
		t.Errorf("%d fast reads, want the FOR UPDATE's 1", used)
	}
	if _, err := b.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	if res, err := b.ExecContext(ctx, "UPDATE lk.district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?", 1, 2); err != nil {
		t.Fatalf("update of another key: %v", err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("update of another key changed %d rows", n)
	}
	_, err := b.ExecContext(ctx, "UPDATE lk.district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?", 1, 1)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1205 {
		t.Fatalf("update of the locked row: %v, want 1205", err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE lk.district SET d_next_o_id = ? + 1 WHERE d_id = ? AND d_w_id = ?", next, 1, 1); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// database/sql's Begin and Rollback are text START TRANSACTION and
	// ROLLBACK (answered without the planner): nothing of it stays.
	tx, err = a.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE lk.district SET d_next_o_id = 0 WHERE d_w_id = ? AND d_id = ?", 2, 1); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	got := queryRows(t, db, "SELECT d_w_id, d_id, d_next_o_id FROM lk.district ORDER BY d_w_id, d_id")
	want := [][]string{{"1", "1", "3002"}, {"1", "2", "3002"}, {"2", "1", "3001"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("district %v, want %v", got, want)
	}
}

// TestFastPrefixUpdateLocksOnlyItsRanges: an UPDATE by leading columns
// of a composite key (TPC-C DELIVERY's order lines), answered by the
// fast path in a transaction, locks the rows of its prefixes (another
// session's update of one waits and times out with 1205) and no other
// prefix's rows (an update of the neighbouring prefix goes through).
func TestFastPrefixUpdateLocksOnlyItsRanges(t *testing.T) {
	db, ctx, _, b, tx, before := lockingSetup(t, "Petrel_fast_path_writes", "CREATE DATABASE lp",
		"CREATE TABLE lp.ol (w INT NOT NULL, o INT NOT NULL, n INT NOT NULL, dt DATETIME, PRIMARY KEY (w, o, n))",
		"INSERT INTO lp.ol VALUES (1, 1, 1, NULL), (1, 1, 2, NULL), (1, 2, 1, NULL), (1, 3, 1, NULL), (2, 1, 1, NULL)")
	res, err := tx.ExecContext(ctx, "UPDATE lp.ol SET dt = ? WHERE (w, o) IN ((?, ?), (?, ?))", "2026-11-29 10:00:00", 1, 1, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Errorf("prefix update changed %d rows, want 3", n)
	}
	if used := statusInt(t, db, "Petrel_fast_path_writes") - before; used != 1 {
		t.Errorf("%d fast writes, want the UPDATE's 1", used)
	}
	if _, err := b.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	for _, k := range [][3]int{{1, 2, 1}, {2, 1, 1}} {
		if _, err := b.ExecContext(ctx, "UPDATE lp.ol SET dt = NULL WHERE w = ? AND o = ? AND n = ?", k[0], k[1], k[2]); err != nil {
			t.Fatalf("update of unlocked row %v: %v", k, err)
		}
	}
	for _, k := range [][3]int{{1, 1, 2}, {1, 3, 1}} {
		_, err = b.ExecContext(ctx, "UPDATE lp.ol SET dt = NULL WHERE w = ? AND o = ? AND n = ?", k[0], k[1], k[2])
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1205 {
			t.Fatalf("update of locked row %v: %v, want 1205", k, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got := queryRows(t, db, "SELECT w, o, n, COALESCE(dt, '-') FROM lp.ol ORDER BY w, o, n")
	want := [][]string{{"1", "1", "1", "2026-11-29 10:00:00"}, {"1", "1", "2", "2026-11-29 10:00:00"}, {"1", "2", "1", "-"}, {"1", "3", "1", "2026-11-29 10:00:00"}, {"2", "1", "1", "-"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}

// TestPrefixFastPathMatchesGMS compares the index-prefix fast path with
// GMS on TPC-C's shapes: customers by last name (a string column of a
// secondary index, under a case-insensitive collation, ORDER BY the next
// index column), their count, a customer's latest order (ORDER BY DESC
// LIMIT 1 on a secondary index), an order's lines (a primary-key prefix),
// the oldest new order FOR UPDATE in a transaction; every read must be
// the fast path's, with GMS's rows.
func TestPrefixFastPathMatchesGMS(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE px",
		`CREATE TABLE px.customer (w INT NOT NULL, d INT NOT NULL, id INT NOT NULL, last VARCHAR(16) COLLATE utf8mb4_general_ci NOT NULL,
			first VARCHAR(16) COLLATE utf8mb4_general_ci NOT NULL, bal DECIMAL(12,2), PRIMARY KEY (w, d, id), KEY idx_customer (w, d, last, first))`,
		`CREATE TABLE px.orders (w INT NOT NULL, d INT NOT NULL, id INT NOT NULL, c INT NOT NULL, carrier INT,
			PRIMARY KEY (w, d, id), KEY idx_order (w, d, c, id))`,
		"CREATE TABLE px.new_order (w INT NOT NULL, d INT NOT NULL, o INT NOT NULL, PRIMARY KEY (w, d, o))")
	lasts := []string{"BARBAR", "ought", "OUGHT", "ableable", "Ought "}
	firsts := []string{"zed", "Amy", "bob", "Émile", "carl", "amz"}
	for w := 1; w <= 2; w++ {
		for d := 1; d <= 3; d++ {
			for id := 1; id <= 12; id++ {
				mustExec(t, db, "INSERT INTO px.customer VALUES ("+itoa(w)+", "+itoa(d)+", "+itoa(id)+", '"+lasts[(id+d)%len(lasts)]+"', '"+firsts[(id*7+w)%len(firsts)]+itoa(id)+"', "+itoa(id*3)+".25)")
				mustExec(t, db, "INSERT INTO px.orders VALUES ("+itoa(w)+", "+itoa(d)+", "+itoa(id)+", "+itoa(id%4)+", NULL)")
				if id > 8 {
					mustExec(t, db, "INSERT INTO px.new_order VALUES ("+itoa(w)+", "+itoa(d)+", "+itoa(id)+")")
				}
			}
		}
	}
	reads := []fastStep{
		{"SELECT id, bal, first FROM px.customer WHERE w = ? AND d = ? AND last = ? ORDER BY first", []any{1, 2, "OUGHT"}},
		{"SELECT id FROM px.customer WHERE last = ? AND d = ? AND w = ? ORDER BY first DESC", []any{"ought", 3, 2}},
		{"SELECT count(id) namecnt FROM px.customer WHERE w = ? AND d = ? AND last = ?", []any{2, 1, "ought"}},
		{"SELECT COUNT(*) FROM px.customer WHERE w = ? AND d = ? AND last = ?", []any{2, 1, "nobody"}},
		{"SELECT id, carrier FROM px.orders WHERE w = ? AND d = ? AND c = ? ORDER BY id DESC LIMIT 1", []any{1, 3, 2}},
		{"SELECT id, c FROM px.orders WHERE w = ? AND d = ?", []any{2, 2}},
		{"SELECT * FROM px.orders o WHERE o.w = ? AND o.d = ? ORDER BY o.id LIMIT 3", []any{1, 1}},
		{"SELECT o FROM px.new_order WHERE w = ? AND d = ? ORDER BY o ASC LIMIT 1", []any{2, 3}},
	}
	run := func() [][][]string {
		var out [][][]string
		for _, r := range reads {
			out = append(out, queryRows(t, db, r.q, r.args...))
		}
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := tx.Query("SELECT o FROM px.new_order WHERE w = ? AND d = ? ORDER BY o ASC LIMIT 1 FOR UPDATE", 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, scanRows(t, rows))
		rows.Close()
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	fast, used := fastReadsAgainstGMS(t, n, db, run)
	if want := int64(len(reads) + 1); used != want {
		t.Errorf("%d reads took the fast path, want %d", used, want)
	}
	if len(fast[0]) != 7 || len(fast[5]) != 12 || len(fast[6]) != 3 {
		t.Errorf("row counts %d, %d, %d; want 7 (PAD SPACE: 'Ought ' is 'OUGHT'), 12, 3", len(fast[0]), len(fast[5]), len(fast[6]))
	}
}

// TestKeylessInsertFastPathMatchesGMS: prepared INSERTs into a table
// without a primary key (TPC-C's history) take the write fast path and
// store what GMS stores.
func TestKeylessInsertFastPathMatchesGMS(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE kl")
	for _, tb := range []string{"kl.a", "kl.b"} {
		mustExec(t, db, "CREATE TABLE "+tb+" (c INT NOT NULL, w INT NOT NULL, dt DATETIME, amount DECIMAL(6,2), data VARCHAR(24), KEY (w))")
	}
	ins := "INSERT INTO TBL (c, w, dt, amount, data) VALUES (?, ?, ?, ?, ?)"
	steps := []fastStep{
		{ins, []any{1, 1, "2026-11-29 10:00:00", 10.5, "first"}},
		{ins, []any{1, 1, "2026-11-29 10:00:00", 10.5, "first"}}, // the same row twice: no key refuses it
		{ins, []any{2, 3, nil, "99.99", "second"}},
		{ins, []any{3, 3, nil, 12345.5, "out of range"}}, // 1264
	}
	writes, a := fastAgainstGMS(t, n, db, steps, "kl.a", "kl.b", "c, data")
	if len(a) != 3 {
		t.Errorf("rows %v, want 3", a)
	}
	if writes != 3 {
		t.Errorf("%d inserts took the fast path, want 3", writes)
	}
}

// TestPointJoinFastPathMatchesGMS compares the point-join fast path
// (every table read by its whole key, given directly or through an
// equality with another table's key) with GMS: TPC-C NEW_ORDER's
// customer-warehouse join in both forms (commas, JOIN ... ON), aliases,
// a missing row on either side, and joins the fast path must leave to
// GMS (a non-key column in the condition, a key column left open).
func TestPointJoinFastPathMatchesGMS(t *testing.T) {
	n, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE pj")
	db := open("pj")
	db.SetMaxOpenConns(1)
	mustExec(t, db,
		"CREATE TABLE warehouse (w_id SMALLINT NOT NULL PRIMARY KEY, w_tax DECIMAL(4,4), w_name VARCHAR(10))",
		`CREATE TABLE customer (c_id INT NOT NULL, c_d_id TINYINT NOT NULL, c_w_id INT NOT NULL, c_discount DECIMAL(4,4),
			c_last VARCHAR(16), c_credit CHAR(2), PRIMARY KEY (c_w_id, c_d_id, c_id))`,
		"INSERT INTO warehouse VALUES (1, 0.1250, 'one'), (2, 0.0500, 'two')",
		"INSERT INTO customer VALUES (1, 1, 1, 0.0100, 'BARBAR', 'GC'), (2, 1, 1, NULL, 'OUGHT', 'BC'), (1, 2, 2, 0.3000, 'ABLE', 'GC'), (5, 1, 3, 0.2000, 'NOWH', 'GC')")
	reads := []fastStep{
		{"SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?", []any{1, 1, 2}},
		{"SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?", []any{2, 2, 1}},
		{"SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?", []any{3, 1, 5}}, // no warehouse 3
		{"SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?", []any{1, 9, 9}}, // no customer
		{"SELECT w.w_name, c.c_last AS who FROM warehouse w JOIN customer c ON c.c_w_id = w.w_id WHERE c.c_id = ? AND c.c_d_id = ? AND w.w_id = ?", []any{1, 1, 1}},
		{"SELECT pj.customer.c_credit, w_name FROM pj.customer INNER JOIN pj.warehouse ON (w_id = c_w_id AND c_d_id = ?) WHERE c_id = ? AND w_id = ?", []any{2, 1, 2}},
		// Left to GMS: a non-key column in a condition, a key column open.
		{"SELECT c_last, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ? AND c_credit = ?", []any{1, 1, 1, "GC"}},
		{"SELECT c_last, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ?", []any{1, 1}},
	}
	run := func() [][][]string {
		var out [][][]string
		for _, r := range reads {
			out = append(out, queryRows(t, db, r.q, r.args...))
		}
		return out
	}
	fast, used := fastReadsAgainstGMS(t, n, db, run)
	if used != 6 {
		t.Errorf("%d reads took the fast path, want 6", used)
	}
	if len(fast[0]) != 1 || fast[0][0][1] != "OUGHT" || len(fast[2]) != 0 || len(fast[3]) != 0 || len(fast[7]) != 2 {
		t.Errorf("rows %v", fast)
	}
}

// lockingSetup starts a node, runs setup, opens two connections and a
// transaction on the first (for 30 s at most), and reads the counter
// before the test's statements: the start of the locking tests.
func lockingSetup(t *testing.T, counter string, setup ...string) (*sql.DB, context.Context, *sql.Conn, *sql.Conn, *sql.Tx, int64) {
	t.Helper()
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, setup...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	a, b := twoConns(t, ctx, db)
	before := statusInt(t, db, counter)
	tx, err := a.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db, ctx, a, b, tx, before
}

// fastReadsAgainstGMS runs run with the fast paths on and then off,
// requires the same rows from both, and returns the fast run's rows and
// the fast reads it used.
func fastReadsAgainstGMS(t *testing.T, n *node.Node, db *sql.DB, run func() [][][]string) ([][][]string, int64) {
	t.Helper()
	n.SQL().SetFastWrites(true)
	before := statusInt(t, db, "Petrel_fast_path_reads")
	fast := run()
	used := statusInt(t, db, "Petrel_fast_path_reads") - before
	n.SQL().SetFastWrites(false)
	slow := run()
	n.SQL().SetFastWrites(true)
	for i := range fast {
		if !reflect.DeepEqual(fast[i], slow[i]) {
			t.Errorf("read %d: fast %v, GMS %v", i, fast[i], slow[i])
		}
	}
	return fast, used
}
