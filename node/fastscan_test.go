package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// columnsOf describes a text query's result columns as a client sees
// them (go-sql-driver's view of the column definitions).
func columnsOf(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ct := range cts {
		l, _ := ct.Length()
		p, s, _ := ct.DecimalSize()
		nullable, _ := ct.Nullable()
		out = append(out, fmt.Sprintf("%s %s len=%d dec=%d,%d null=%v %v", ct.Name(), ct.DatabaseTypeName(), l, p, s, nullable, ct.ScanType()))
	}
	return out
}

// TestFastScanMatchesGMS: text-protocol scans of whole tables (SELECT *
// or a column list, keyless and keyed tables, NULLs, non-ASCII text,
// decimals, floats, dates, blobs, enums) answered by the scan fast path
// give the rows and column definitions GMS gives, and the fast path is
// the one that answered (Petrel_fast_path_reads). Statements of other
// shapes are left to GMS.
func TestFastScanMatchesGMS(t *testing.T) {
	n, open := startNode(t)
	db := open("fs")
	root := open("")
	mustExec(t, root, "CREATE DATABASE fs")
	db.SetMaxOpenConns(1)
	mustExec(t, db,
		`CREATE TABLE k (a INT, b VARCHAR(20) COLLATE utf8mb4_0900_ai_ci, c DECIMAL(10,2), d DOUBLE, e DATETIME(3),
			f BLOB, g ENUM('x','y'), h TIMESTAMP(6) NULL, i BIGINT UNSIGNED NOT NULL, j CHAR(3) CHARACTER SET latin1)`,
		"CREATE TABLE p (id INT PRIMARY KEY, v VARCHAR(10) NOT NULL, w FLOAT)",
		"CREATE TABLE vacant (x INT)")
	for i := 0; i < 300; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO k VALUES (%d, '%s', %d.25, %g, '2026-11-%02d 10:00:00.123', x'00ff%02x', '%s', '2026-01-01 00:00:00.000001', %d, 'é%d')",
			i%7-3, []string{"bob", "Bob", "ä", "日本", ""}[i%5], i-150, float64(i-150)/3, 1+i%28, i%256, []string{"x", "y"}[i%2], uint64(1)<<63+uint64(i), i%10))
		mustExec(t, db, fmt.Sprintf("INSERT INTO p VALUES (%d, 'v%d', %g)", 1000-i, i, float32(i)/7))
	}
	mustExec(t, db, "INSERT INTO k (i) VALUES (0), (0)") // a row of NULLs, twice
	queries := []string{
		"SELECT * FROM k",
		"SELECT * FROM fs.k",
		"select a, b, a FROM k",
		"SELECT `b`,c,d,e,f,g,h,i,j FROM `fs`.`k`",
		"SELECT k.a, fs.k.b FROM k",
		"SELECT * FROM p",
		"SELECT v, id FROM p",
		"SELECT * FROM vacant",
		"SELECT v FROM p\x00",                        // mysqlslap sends the C string's NUL
		"SELECT /*!40001 SQL_NO_CACHE */ * FROM `k`", // mysqldump's and mariadb-dump's
	}
	// Other shapes: GMS answers (they are not counted as fast reads).
	others := []string{
		"SELECT a FROM k WHERE a",
		"SELECT DISTINCT a FROM k",
		"SELECT a AS x FROM k",
		"SELECT x.a FROM k x",
		"SELECT a FROM k LIMIT 3",
		"SELECT * FROM k, p",
		"SELECT * FROM information_schema.schemata",
		"SELECT SQL_CALC_FOUND_ROWS a FROM k",
		"SELECT a/2 FROM k",
		"SELECT /*!40001 SQL_NO_CACHE */ a FROM k /* x */ WHERE a",
		"SELECT a FROM k UNION ALL SELECT id FROM p", // not a SELECT: a set operation
	}
	type answer struct {
		cols []string
		rows [][]string
	}
	run := func(qs []string) []answer {
		var out []answer
		for _, q := range qs {
			out = append(out, answer{columnsOf(t, db, q), queryRows(t, db, q)})
		}
		return out
	}
	n.SQL().SetFastWrites(true)
	run(queries) // GMS answers each text once; the fast path the next times
	before := statusInt(t, root, "Petrel_fast_path_reads")
	fast := run(queries)
	if used := statusInt(t, root, "Petrel_fast_path_reads") - before; used != int64(2*len(queries)) {
		t.Errorf("the scan fast path answered %d of %d scans", used, 2*len(queries))
	}
	before = statusInt(t, root, "Petrel_fast_path_reads")
	otherFast := run(others)
	run(others)
	if used := statusInt(t, root, "Petrel_fast_path_reads") - before; used != 0 {
		t.Errorf("the scan fast path answered %d statements that are not plain scans", used)
	}
	n.SQL().SetFastWrites(false)
	slow := run(queries)
	otherSlow := run(others)
	n.SQL().SetFastWrites(true)
	for i, q := range queries {
		if !reflect.DeepEqual(fast[i], slow[i]) {
			t.Errorf("%s:\nfast %v\n     %v\nGMS  %v\n     %v", q, fast[i].cols, fast[i].rows[:min(3, len(fast[i].rows))], slow[i].cols, slow[i].rows[:min(3, len(slow[i].rows))])
		}
	}
	if len(fast[0].rows) != 302 || len(fast[5].rows) != 300 || len(fast[7].rows) != 0 {
		t.Errorf("row counts %d, %d, %d; want 302, 300, 0", len(fast[0].rows), len(fast[5].rows), len(fast[7].rows))
	}
	if !reflect.DeepEqual(otherFast, otherSlow) {
		t.Errorf("other statements answered differently with the fast paths on")
	}
}

// TestFastScanSessionState: a fast scan reads the transaction's snapshot
// (REPEATABLE READ), sets FOUND_ROWS(), honours sql_select_limit, follows
// a table's DDL, and never answers a session without the SELECT
// privilege, even for a text another session's scan made a plan of.
func TestFastScanSessionState(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE ss", "CREATE TABLE ss.t (id INT PRIMARY KEY, v INT)",
		"INSERT INTO ss.t VALUES (1, 1), (2, 2), (3, 3)",
		"CREATE USER 'noscan'@'%' IDENTIFIED BY 'x'", "GRANT INSERT ON ss.* TO 'noscan'@'%'")
	ctx := context.Background()
	a, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	const scan = "SELECT * FROM ss.t"
	connRowCount(t, a, scan) // GMS answers once; a plan is made
	before := statusInt(t, root, "Petrel_fast_path_reads")
	if _, err := a.ExecContext(ctx, "START TRANSACTION"); err != nil {
		t.Fatal(err)
	}
	if got := connRowCount(t, a, scan); got != 3 {
		t.Fatalf("first read in the transaction: %d rows, want 3", got)
	}
	mustExec(t, root, "INSERT INTO ss.t VALUES (4, 4)")
	if got := connRowCount(t, a, scan); got != 3 {
		t.Fatalf("second read in the transaction: %d rows, want the snapshot's 3", got)
	}
	if got := connInt(t, a, "SELECT FOUND_ROWS()"); got != 3 {
		t.Errorf("FOUND_ROWS() after a fast scan: %d, want 3", got)
	}
	if _, err := a.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if got := connRowCount(t, a, scan); got != 4 {
		t.Fatalf("after COMMIT: %d rows, want 4", got)
	}
	if used := statusInt(t, root, "Petrel_fast_path_reads") - before; used != 3 {
		t.Errorf("the fast path answered %d of the 3 scans", used)
	}
	if _, err := a.ExecContext(ctx, "SET SESSION sql_select_limit = 2"); err != nil {
		t.Fatal(err)
	}
	if got := connRowCount(t, a, scan); got != 2 {
		t.Errorf("sql_select_limit = 2: %d rows", got)
	}
	if _, err := a.ExecContext(ctx, "SET SESSION sql_select_limit = DEFAULT"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, root, "ALTER TABLE ss.t ADD COLUMN w INT DEFAULT 7")
	for range 2 {
		if cols := columnsOf(t, root, scan); len(cols) != 3 {
			t.Fatalf("after ADD COLUMN: columns %v", cols)
		}
	}
	// A text first run before its table exists takes the fast path once
	// the table is there.
	const later = "SELECT * FROM ss.later"
	if rows, err := root.Query(later); err == nil {
		rows.Close()
		t.Fatalf("%s before CREATE TABLE: no error", later)
	}
	mustExec(t, root, "CREATE TABLE ss.later (a INT)", "INSERT INTO ss.later VALUES (1)")
	before = statusInt(t, root, "Petrel_fast_path_reads")
	for range 2 {
		if rows := queryRows(t, root, later); len(rows) != 1 {
			t.Fatalf("%s: %v", later, rows)
		}
	}
	if used := statusInt(t, root, "Petrel_fast_path_reads") - before; used < 1 {
		t.Errorf("%s never took the fast path after its table was created", later)
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "noscan", "x", "tcp", n.Addr()
	u, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	rows, err := u.Query(scan)
	if err == nil {
		rows.Close()
	}
	var me *mysql.MySQLError
	if err == nil || !asMySQL(err, &me) || me.Number != 1142 {
		t.Fatalf("scan without the SELECT privilege: %v, want error 1142", err)
	}
}

// TestFastScanLargeResult: a scan result of about 1.2 MB, which the fast
// path sends in gathered writes of up to 128 KiB (sqlengine/gather.go),
// reaches the client whole and equal to GMS's answer, twice on one
// connection (nothing left over between statements), and a statement
// after it on the same connection answers normally. (Compressed
// connections: e2e TestGoSQLDriverCompress.)
func TestFastScanLargeResult(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE big", "CREATE TABLE big.t (id INT PRIMARY KEY, s VARCHAR(300), u BIGINT UNSIGNED, k INT)")
	const rows = 4000
	for b := 0; b < rows; b += 500 {
		var vals []string
		for i := b; i < b+500; i++ {
			k := "NULL"
			if i%9 != 0 {
				k = fmt.Sprint(i*7919%100003 - 50000)
			}
			vals = append(vals, fmt.Sprintf("(%d, '%s', %d, %s)", i, strings.Repeat(string(rune('a'+i%26)), 250+i%40), uint64(1)<<63+uint64(i), k))
		}
		mustExec(t, root, "INSERT INTO big.t VALUES "+strings.Join(vals, ","))
	}
	db := open("big")
	db.SetMaxOpenConns(1)
	q := "SELECT * FROM t"
	n.SQL().SetFastWrites(false)
	want := queryRows(t, db, q)
	n.SQL().SetFastWrites(true)
	if len(want) != rows {
		t.Fatalf("GMS: %d rows, want %d", len(want), rows)
	}
	queryRows(t, db, q) // GMS answers the text once
	before := statusInt(t, root, "Petrel_fast_path_reads")
	for round := 0; round < 2; round++ {
		if got := queryRows(t, db, q); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: %d rows, differing from GMS's %d", round, len(got), len(want))
		}
	}
	if used := statusInt(t, root, "Petrel_fast_path_reads") - before; used != 2 {
		t.Fatalf("the fast path answered %d of 2 scans", used)
	}
	if got := queryRows(t, db, "SELECT COUNT(*), SUM(k) FROM t"); got[0][0] != fmt.Sprint(rows) {
		t.Fatalf("the statement after the scans: %v", got)
	}
	// Multi-statement texts ending with a scan (the fast path answers the
	// last statement): every result set whole, the next command in step.
	multi, err := sql.Open("mysql", mysqlConfig(t, n.Addr(), "big")+"&multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer multi.Close()
	multi.SetMaxOpenConns(1)
	before = statusInt(t, root, "Petrel_fast_path_reads")
	for _, mq := range []string{"SET @x = 1; SELECT * FROM t", "SELECT * FROM t; SELECT * FROM t", "SELECT 7; SELECT * FROM t"} {
		sets := resultSets(t, multi, mq)
		last := sets[len(sets)-1]
		if !reflect.DeepEqual(last, want) {
			t.Fatalf("%s: the last result set has %d rows, differing from GMS's %d", mq, len(last), len(want))
		}
		if strings.HasPrefix(mq, "SELECT * FROM t;") && !reflect.DeepEqual(sets[0], want) {
			t.Fatalf("%s: the first result set differs", mq)
		}
		if got := queryRows(t, multi, "SELECT 42"); got[0][0] != "42" {
			t.Fatalf("after %s: %v", mq, got)
		}
	}
	if used := statusInt(t, root, "Petrel_fast_path_reads") - before; used < 2 {
		t.Fatalf("the fast path answered %d of the multi-statement scans", used)
	}
}

// resultSets reads every result set of a multi-statement text (those
// with columns).
func resultSets(t *testing.T, db *sql.DB, q string) [][][]string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var sets [][][]string
	for {
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		if set := scanRows(t, rows); len(cols) > 0 {
			sets = append(sets, set)
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return sets
}

// mysqlConfig is a DSN for root on addr with database db.
func mysqlConfig(t *testing.T, addr, db string) string {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "root", "pw", "tcp", addr, db
	return cfg.FormatDSN() + "?parseTime=true"
}

// TestFastScanSlowClient: a scan result larger than the sockets' buffers,
// read by a client slower than net_write_timeout (2 s) in total but never
// stalling a write that long, arrives whole: the gathered writes keep the
// write deadline moving as Write does.
func TestFastScanSlowClient(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE slowscan", "CREATE TABLE slowscan.t (id INT PRIMARY KEY, s VARCHAR(300))")
	const rows = 40000
	for b := 0; b < rows; b += 1000 {
		var vals []string
		for i := b; i < b+1000; i++ {
			vals = append(vals, fmt.Sprintf("(%d, '%s')", i, strings.Repeat("s", 300)))
		}
		mustExec(t, root, "INSERT INTO slowscan.t VALUES "+strings.Join(vals, ","))
	}
	db := open("slowscan")
	db.SetMaxOpenConns(1)
	n.SQL().SetFastWrites(true)
	queryRows(t, db, "SELECT * FROM t") // GMS answers the text once
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "SET SESSION net_write_timeout = 2"); err != nil {
		t.Fatal(err)
	}
	before := statusInt(t, root, "Petrel_fast_path_reads")
	start := time.Now()
	r, err := conn.QueryContext(t.Context(), "SELECT * FROM t")
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for r.Next() {
		var id int
		var s string
		if err := r.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		if id != got || len(s) != 300 {
			t.Fatalf("row %d: id %d, %d bytes", got, id, len(s))
		}
		got++
		if got%100 == 0 {
			time.Sleep(10 * time.Millisecond) // 4 s over the whole result
		}
	}
	if err := r.Err(); err != nil {
		t.Fatalf("after %d rows in %s: %v", got, time.Since(start), err)
	}
	r.Close()
	if got != rows || time.Since(start) < 3*time.Second {
		t.Fatalf("%d rows in %s; want %d over more than 3 s", got, time.Since(start), rows)
	}
	if used := statusInt(t, root, "Petrel_fast_path_reads") - before; used != 1 {
		t.Fatalf("the fast path answered %d scans, want 1", used)
	}
}

// TestFastScanUnconvertibleFirstRow: a latin1 client's scan whose first
// row holds text latin1 cannot encode gets GMS's answer (the same as
// with the fast paths off), and the connection stays usable.
func TestFastScanUnconvertibleFirstRow(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE uc", "CREATE TABLE uc.t (id INT PRIMARY KEY, v VARCHAR(10) COLLATE utf8mb4_0900_ai_ci)",
		"INSERT INTO uc.t VALUES (1, 'abc')")
	db := open("uc")
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	answer := func() string {
		r, err := conn.QueryContext(t.Context(), "SELECT * FROM t")
		if err != nil {
			return "error: " + err.Error()
		}
		defer r.Close()
		var out []string
		for r.Next() {
			var id int
			var v []byte
			if err := r.Scan(&id, &v); err != nil {
				return "error: " + err.Error()
			}
			out = append(out, fmt.Sprintf("%d=%x", id, v))
		}
		if err := r.Err(); err != nil {
			return "error: " + err.Error()
		}
		return strings.Join(out, ",")
	}
	if _, err := conn.ExecContext(t.Context(), "SET NAMES latin1"); err != nil {
		t.Fatal(err)
	}
	n.SQL().SetFastWrites(true)
	answer() // GMS answers the text once: the plan is made
	if got := answer(); got != "1=616263" {
		t.Fatalf("ASCII row: %s", got)
	}
	mustExec(t, root, "UPDATE uc.t SET v = '日本' WHERE id = 1")
	fast := answer()
	var one int
	if err := conn.QueryRowContext(t.Context(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after the scan (%s): %v", fast, err)
	}
	n.SQL().SetFastWrites(false)
	slow := answer()
	n.SQL().SetFastWrites(true)
	if fast != slow {
		t.Fatalf("fast path %q, GMS %q", fast, slow)
	}
	t.Logf("answer: %s", fast)
}
