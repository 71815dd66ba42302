package node_test

import (
	"database/sql"
	"fmt"
	"testing"

	"petrel/node"
)

// tpccAggSetup makes TPC-C's order_line and stock shapes in database ta:
// order lines of warehouses 1-2, districts 1-3, orders 1-8 (line amounts
// with NULLs, one order's all NULL, repeated items), stock rows for most
// items (a NULL quantity among them, some items with none).
func tpccAggSetup(t *testing.T) (*node.Node, *sql.DB) {
	t.Helper()
	n, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE ta")
	db := open("ta")
	db.SetMaxOpenConns(1)
	mustExec(t, db,
		`CREATE TABLE order_line (ol_o_id INT NOT NULL, ol_d_id INT NOT NULL, ol_w_id INT NOT NULL, ol_number INT NOT NULL,
			ol_i_id INT NOT NULL, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))`,
		`CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT, s_data VARCHAR(50),
			PRIMARY KEY (s_w_id, s_i_id))`)
	for w := 1; w <= 2; w++ {
		for d := 1; d <= 3; d++ {
			for o := 1; o <= 8; o++ {
				for l := 1; l <= 1+(o+d)%4; l++ {
					amount := itoa((o*l*37+d*11+w)%9999) + "." + itoa(10+(o*l)%90)
					if (o+l)%5 == 0 || (w == 2 && d == 3 && o == 4) {
						amount = "NULL"
					}
					item := (o*7 + l*3 + d) % 23
					mustExec(t, db, "INSERT INTO order_line VALUES ("+itoa(o)+", "+itoa(d)+", "+itoa(w)+", "+itoa(l)+", "+
						itoa(item)+", "+amount+", 'x')")
				}
			}
		}
		for i := 0; i < 23; i++ {
			if i%7 == 3 {
				continue // no stock row
			}
			q := itoa((i*13 + w*5) % 30)
			if i == 11 {
				q = "NULL"
			}
			mustExec(t, db, "INSERT INTO stock VALUES ("+itoa(i)+", "+itoa(w)+", "+q+", 'Data"+itoa(i%4)+"')")
		}
	}
	return n, db
}

// queryTyped is queryRows with a first row of the result's column names,
// types, precisions and scales, so that the fields are compared too.
func queryTyped(t *testing.T, db *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var head []string
	for _, c := range cts {
		p, s, _ := c.DecimalSize()
		n, _ := c.Nullable()
		head = append(head, fmt.Sprint(c.Name(), " ", c.DatabaseTypeName(), " ", p, " ", s, " ", n))
	}
	return append([][]string{head}, scanRows(t, rows)...)
}

// TestCountJoinFastPathMatchesGMS: TPC-C's STOCK_LEVEL count (COUNT
// (DISTINCT) over an order-line key range joined to stock by key) and
// its variations give GMS's answers through the distinct-count join fast
// path; the shapes it does not take (a filter on a non-key outer
// column, a text column counted, BETWEEN, a string parameter, bounds no
// key satisfies) are GMS's.
func TestCountJoinFastPathMatchesGMS(t *testing.T) {
	n, db := tpccAggSetup(t)
	const stockLevel = `SELECT /*+ TIDB_INLJ(order_line,stock) */ COUNT(DISTINCT (s_i_id)) stock_count FROM order_line, stock 
WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? - 20 AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?`
	fast := []fastStep{
		{stockLevel, []any{1, 1, 9, 9, 1, 15}},
		{stockLevel, []any{2, 3, 6, 6, 2, 20}},
		{stockLevel, []any{1, 2, 9, 9, 2, 10}}, // stock of the other warehouse
		{stockLevel, []any{1, 2, 3, 3, 1, 30}},
		{stockLevel, []any{1, 2, 1, 1, 1, 30}},   // no order below 1
		{stockLevel, []any{9, 9, 9, 9, 1, 30}},   // no such district
		{stockLevel, []any{1, 1, 30, 22, 1, 30}}, // orders 2 to 29
		{stockLevel, []any{1, 1, 9, 9, 1, -5}},   // no quantity below -5
		{`SELECT COUNT(DISTINCT s.s_i_id) FROM stock s, order_line ol WHERE ? > ol.ol_o_id AND ol.ol_o_id > ? + 1
			AND ol.ol_d_id = ? AND ol.ol_w_id = ? AND ol.ol_i_id = s.s_i_id AND s.s_w_id = ? AND ? <= s.s_quantity`, []any{7, 1, 2, 1, 1, 8}},
		{"SELECT COUNT(DISTINCT ol_o_id) n FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id <= ? AND s_w_id = ol_w_id AND s_i_id = ol_i_id AND s_quantity = ?", []any{2, 1, 8, 14}},
		{"SELECT COUNT(DISTINCT ol_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND s_w_id = ? AND s_i_id = ol_i_id", []any{1, 3, 1}},
	}
	gms := []fastStep{
		{"SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_number = ? AND s_w_id = ? AND s_i_id = ol_i_id", []any{1, 1, 2, 1}},
		{"SELECT COUNT(DISTINCT s_data) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND s_w_id = ? AND s_i_id = ol_i_id", []any{1, 1, 1}},
		{"SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id BETWEEN ? AND ? AND s_w_id = ? AND s_i_id = ol_i_id", []any{1, 1, 2, 6, 1}},
		{stockLevel, []any{1, 1, 9, 9, 1, "15"}},
		{"SELECT COUNT(DISTINCT s_quantity) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id >= ? AND ol_o_id < ? AND s_w_id = ? AND s_i_id = ol_i_id", []any{1, 1, 5, 2, 1}}, // no key in the bounds
	}
	run := func() [][][]string {
		var out [][][]string
		for _, r := range append(append([]fastStep{}, fast...), gms...) {
			out = append(out, queryTyped(t, db, r.q, r.args...))
		}
		// In a transaction: its own uncommitted change is seen.
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("UPDATE stock SET s_quantity = 0 WHERE s_w_id = 1"); err != nil {
			t.Fatal(err)
		}
		rows, err := tx.Query(stockLevel, 1, 1, 9, 9, 1, 15)
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
	got, used := fastReadsAgainstGMS(t, n, db, run)
	if want := int64(len(fast) + 1); used != want {
		t.Errorf("%d reads took the fast path, want %d", used, want)
	}
	nonzero := 0
	for _, r := range got[:len(fast)] {
		if len(r) != 2 || len(r[1]) != 1 {
			t.Fatalf("rows %v", got)
		}
		if r[1][0] != "0" {
			nonzero++
		}
	}
	if nonzero < 6 || got[len(got)-1][0][0] == got[0][1][0] {
		t.Errorf("too few counts to compare, or the transaction's own write unseen: %v", got)
	}
}

// TestGroupSumFastPathMatchesGMS: TPC-C DELIVERY's sum of order-line
// amounts per district over a list of key prefixes, and its variations,
// give GMS's answers (groups in first-read order, exact DECIMAL sums,
// NULL for a group of NULLs, no row for no match) through the grouped-sum
// fast path; HAVING, ORDER BY, an integer sum and a string parameter are
// GMS's.
func TestGroupSumFastPathMatchesGMS(t *testing.T) {
	n, db := tpccAggSetup(t)
	const delivery = `SELECT ol_d_id, SUM(ol_amount) FROM order_line WHERE (ol_w_id, ol_d_id, ol_o_id) IN (
	(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?)
) GROUP BY ol_d_id`
	list := func(w int, os ...int) []any {
		var args []any
		for i, o := range os {
			args = append(args, w, i%3+1, o)
		}
		return args
	}
	fast := []fastStep{
		{delivery, list(1, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2)},
		{delivery, list(2, 8, 7, 9, 4, 4, 4, 9, 9, 9, 3)}, // district 3: order 4 alone, all NULL
		{delivery, list(2, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29)},
		{"SELECT SUM(ol_amount) total, ol.ol_d_id FROM order_line ol WHERE ol.ol_w_id = ? AND ol_d_id = ? GROUP BY ol_d_id", []any{1, 2}},
		{"SELECT ol_o_id, SUM(ol_amount) FROM order_line WHERE (ol_d_id, ol_w_id) IN ((?, ?), (?, ?)) GROUP BY ol_o_id", []any{3, 2, 1, 2}},
	}
	gms := []fastStep{
		{"SELECT ol_d_id, SUM(ol_amount) FROM order_line WHERE ol_w_id = ? GROUP BY ol_d_id HAVING SUM(ol_amount) > 0", []any{1}},
		{"SELECT ol_d_id, SUM(ol_amount) FROM order_line WHERE ol_w_id = ? GROUP BY ol_d_id ORDER BY ol_d_id DESC", []any{1}},
		{"SELECT ol_d_id, SUM(ol_i_id) FROM order_line WHERE ol_w_id = ? GROUP BY ol_d_id", []any{2}},
		{delivery, []any{1, 1, "1", 1, 2, 2, 1, 3, 3, 1, 1, 4, 1, 2, 5, 1, 3, 6, 1, 1, 7, 1, 2, 8, 1, 3, 1, 1, 1, 2}},
	}
	run := func() [][][]string {
		var out [][][]string
		for _, r := range append(append([]fastStep{}, fast...), gms...) {
			out = append(out, queryTyped(t, db, r.q, r.args...))
		}
		return out
	}
	got, used := fastReadsAgainstGMS(t, n, db, run)
	if want := int64(len(fast)); used != want {
		t.Errorf("%d reads took the fast path, want %d", used, want)
	}
	if len(got[0]) != 4 || len(got[2]) != 1 || len(got[4]) != 9 || got[0][0][1] != "SUM(ol_amount) DECIMAL 28 2 false" {
		t.Errorf("rows %v", got)
	}
	null := false
	for _, r := range got[1][1:] {
		null = null || r[1] == "NULL"
	}
	if !null {
		t.Errorf("no NULL sum: %v", got[1])
	}
}
