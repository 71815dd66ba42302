package e2e

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestPersistence checks that accounts, grants, tables, secondary indexes
// and the AUTO_INCREMENT counter survive a clean restart, and that SET
// GLOBAL does not (it is not SET PERSIST).
func TestPersistence(t *testing.T) {
	const rows = 100
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	root := rootDB(t, p, "")
	mustExec(t, ctx, root,
		"CREATE USER 'repl'@'%' IDENTIFIED BY 'x'",
		"GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'",
		"CREATE DATABASE shop",
		"CREATE TABLE shop.items (id INT AUTO_INCREMENT PRIMARY KEY, sku VARCHAR(20) NOT NULL, qty INT NOT NULL, KEY idx_sku (sku))",
		"SET GLOBAL innodb_lock_wait_timeout = 17")
	for i := 1; i <= rows; i++ {
		// sku-00 .. sku-09, ten rows each; qty = i.
		if _, err := root.ExecContext(ctx, "INSERT INTO shop.items (sku, qty) VALUES (?, ?)",
			"sku-0"+string(rune('0'+i%10)), i); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	if v := queryInt(t, ctx, root, "SELECT @@GLOBAL.innodb_lock_wait_timeout"); v != 17 {
		t.Fatalf("before restart: @@GLOBAL.innodb_lock_wait_timeout = %d, want 17", v)
	}
	root.Close()

	if err := p.Stop(ctx); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatalf("restart: %v", err)
	}
	db := rootDB(t, p, "shop")

	grants := queryStrings(t, ctx, db, "SHOW GRANTS FOR 'repl'@'%'")
	if !strings.Contains(strings.Join(grants, "\n"), "REPLICATION SLAVE") {
		t.Errorf("SHOW GRANTS FOR 'repl'@'%%' after restart: %q, want REPLICATION SLAVE", grants)
	}
	repl := openConfig(t, clientConfig(t, p, "repl", "x", ""))
	if u := queryString(t, ctx, repl, "SELECT CURRENT_USER()"); u != "repl@%" {
		t.Errorf("repl with password 'x': CURRENT_USER() = %q, want repl@%%", u)
	}
	bad := openConfig(t, clientConfig(t, p, "repl", "y", ""))
	wantErrNo(t, "repl with password 'y'", bad.PingContext(ctx), erAccessDenied)

	if n := queryInt(t, ctx, db, "SELECT COUNT(*) FROM items"); n != rows {
		t.Errorf("after restart: %d rows, want %d", n, rows)
	}
	if s := queryInt(t, ctx, db, "SELECT CAST(SUM(qty) AS SIGNED) FROM items"); s != rows*(rows+1)/2 {
		t.Errorf("after restart: SUM(qty) = %d, want %d", s, rows*(rows+1)/2)
	}
	// sku-03 holds qty 3, 13, ..., 93.
	var n, sum int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*), CAST(SUM(qty) AS SIGNED) FROM items WHERE sku = 'sku-03'").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 10 || sum != 480 {
		t.Errorf("index lookup sku = 'sku-03': %d rows, SUM(qty) %d; want 10 rows, 480", n, sum)
	}
	if got := queryStrings(t, ctx, db, "SELECT id FROM items WHERE sku = 'sku-00' ORDER BY id"); strings.Join(got, ",") != "10,20,30,40,50,60,70,80,90,100" {
		t.Errorf("index lookup sku = 'sku-00': ids %v, want 10,20,...,100", got)
	}
	plan := strings.Join(queryStrings(t, ctx, db, "EXPLAIN PLAN SELECT id, qty FROM items WHERE sku = 'sku-03'"), "\n")
	if !strings.Contains(plan, "IndexedTableAccess") || !(strings.Contains(plan, "idx_sku") || strings.Contains(plan, "items.sku")) {
		t.Errorf("EXPLAIN PLAN of a lookup on the indexed column does not use idx_sku:\n%s", plan)
	}
	idx := queryStrings(t, ctx, db, "SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = 'shop' AND table_name = 'items'")
	slices.Sort(idx)
	if strings.Join(idx, ",") != "PRIMARY,idx_sku" {
		t.Errorf("indexes after restart: %v, want [PRIMARY idx_sku]", idx)
	}

	res, err := db.ExecContext(ctx, "INSERT INTO items (sku, qty) VALUES ('sku-new', 0)")
	if err != nil {
		t.Fatal(err)
	}
	if id, err := res.LastInsertId(); err != nil || id != rows+1 {
		t.Errorf("first AUTO_INCREMENT id after restart: %d (%v), want %d", id, err, rows+1)
	}
	if id := queryInt(t, ctx, db, "SELECT id FROM items WHERE sku = 'sku-new'"); id != rows+1 {
		t.Errorf("row inserted after restart has id %d, want %d", id, rows+1)
	}

	// SET GLOBAL lasts until shutdown, as in MySQL.
	if v := queryInt(t, ctx, db, "SELECT @@GLOBAL.innodb_lock_wait_timeout"); v != 50 {
		t.Errorf("after restart: @@GLOBAL.innodb_lock_wait_timeout = %d, want the default 50 (SET GLOBAL is not persisted)", v)
	}
}

// queryStrings returns the first column of every row.
func queryStrings(t *testing.T, ctx context.Context, q querier, query string, args ...any) []string {
	t.Helper()
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		out = append(out, vals[0].String)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}
