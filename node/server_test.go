package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// startNode runs an in-process server on a fresh datadir.
func startNode(t *testing.T) (*node.Node, func(db string) *sql.DB) {
	t.Helper()
	return startNodeWith(t, nil)
}

// startNodeWith is startNode with global variables from an option file.
func startNodeWith(t *testing.T, vars map[string]string) (*node.Node, func(db string) *sql.DB) {
	t.Helper()
	n, err := node.Open(node.Options{
		Datadir: t.TempDir() + "/d", Port: 0, RootPassword: "pw",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard, Variables: vars,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	open := func(db string) *sql.DB {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "root", "pw", "tcp", n.Addr(), db
		cfg.ParseTime = true
		d, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	return n, open
}

// restartableOptions are a node's options on a fresh datadir, for a test
// that closes the node and opens it again.
func restartableOptions(t *testing.T) node.Options {
	return node.Options{Datadir: t.TempDir() + "/d", Port: 0, RootPassword: "pw", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard}
}

// rootConn is a pool of root connections to n, closed at the test's end.
func rootConn(t *testing.T, n *node.Node) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
	d, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func mustExec(t *testing.T, db *sql.DB, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// connRowCount runs q on c and counts the rows it returns.
func connRowCount(t *testing.T, c *sql.Conn, q string) int {
	t.Helper()
	rows, err := c.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n
}

// connInt runs q on c and returns its one integer.
func connInt(t *testing.T, c *sql.Conn, q string) int64 {
	t.Helper()
	var v int64
	if err := c.QueryRowContext(context.Background(), q).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

func queryRows(t *testing.T, db *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out := scanRows(t, rows)
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// scanRows reads the rest of rows' current result set as strings, NULL
// as "NULL".
func scanRows(t *testing.T, rows *sql.Rows) [][]string {
	t.Helper()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		r := make([]string, len(cols))
		for i, v := range vals {
			r[i] = "NULL"
			if v.Valid {
				r[i] = v.String
			}
		}
		out = append(out, r)
	}
	return out
}

// The point-select fast path must answer exactly as the GMS planner does.
func TestPointSelectFastPathMatchesPlanner(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE fp",
		`CREATE TABLE fp.t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(20), d DECIMAL(10,3), f DOUBLE, ts DATETIME(6), j JSON, e ENUM('a','b'), u BIGINT UNSIGNED, b BLOB)`,
		`INSERT INTO fp.t VALUES (1, 10, 'one', 1.5, 2.25, '2024-01-02 03:04:05.123456', '{"a":1}', 'b', 18446744073709551615, x'00ff'),
		                         (2, 20, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), (-3, -30, 'neg', -0.001, -1e10, '1999-12-31 23:59:59', '[1,2]', 'a', 0, '')`)
	fdb := open("fp")
	// Prepared (server-side) statements take the fast path; interpolated
	// text queries go through the planner.
	cfgText := open("fp")
	if _, err := cfgText.Exec("SET @x = 1"); err != nil {
		t.Fatal(err)
	}
	queries := []string{
		"SELECT * FROM t WHERE id = ?",
		"SELECT c, k, id FROM t WHERE id = ?",
		"SELECT t.d, t.f, t.ts, t.j, t.e, t.u, t.b FROM fp.t WHERE t.id = ?",
		"SELECT c FROM t WHERE id = ?",
	}
	for _, q := range queries {
		st, err := fdb.Prepare(q)
		if err != nil {
			t.Fatalf("prepare %s: %v", q, err)
		}
		for _, id := range []int64{1, 2, -3, 4, 1 << 40} {
			rows, err := st.Query(id)
			if err != nil {
				t.Fatalf("%s (%d): %v", q, id, err)
			}
			fast := scanRows(t, rows)
			rows.Close()
			slow := queryRows(t, fdb, strings.Replace(q, "?", fmt.Sprint(id), 1))
			if !reflect.DeepEqual(fast, slow) {
				t.Errorf("%s with %d:\n fast %q\n planner %q", q, id, fast, slow)
			}
		}
		st.Close()
	}
	// Schema change after prepare: the fast path must notice and fall back.
	st, err := fdb.Prepare("SELECT * FROM t WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mustExec(t, db, "ALTER TABLE fp.t ADD COLUMN extra INT DEFAULT 7")
	var got []any
	rows, err := st.Query(1)
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	rows.Close()
	got = append(got, len(cols))
	if len(cols) != 11 {
		t.Errorf("after ADD COLUMN the prepared SELECT * returned %d columns, want 11", len(cols))
	}
	// Own writes inside an explicit transaction are visible to the fast path.
	tx, err := fdb.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("UPDATE t SET k = 99 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	var k int
	if err := tx.QueryRow("SELECT k FROM t WHERE id = ?", 1).Scan(&k); err != nil || k != 99 {
		t.Errorf("in-transaction fast read: k=%d err=%v, want 99", k, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := fdb.QueryRow("SELECT k FROM t WHERE id = ?", 1).Scan(&k); err != nil || k != 10 {
		t.Errorf("after rollback: k=%d err=%v, want 10", k, err)
	}
}

// A user without SELECT on the table must be refused on the fast path too.
func TestPointSelectFastPathChecksPrivileges(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE priv", "CREATE TABLE priv.t (id INT PRIMARY KEY, v INT)", "INSERT INTO priv.t VALUES (1, 1)",
		"CREATE USER 'nosel'@'%' IDENTIFIED BY 'x'", "GRANT INSERT ON priv.* TO 'nosel'@'%'")
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "nosel", "x", "tcp", n.Addr(), "priv"
	u, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	var v int
	err = u.QueryRow("SELECT v FROM t WHERE id = ?", 1).Scan(&v)
	var me *mysql.MySQLError
	if err == nil || !asMySQL(err, &me) || me.Number != 1142 {
		t.Fatalf("SELECT without privilege: err=%v (v=%d), want error 1142", err, v)
	}
}

// REVOKE applies to the next execution of a statement prepared before it,
// on the open connection, fast paths included (MySQL's behaviour).
func TestFastPathsApplyRevokeToNextExecution(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE rv", "CREATE TABLE rv.t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO rv.t VALUES (1, 1), (2, 2)",
		"CREATE USER 'u'@'%' IDENTIFIED BY 'x'", "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON rv.* TO 'u'@'%'")
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "u", "x", "tcp", n.Addr(), "rv"
	u, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	u.SetMaxOpenConns(1)
	stmts := map[string]string{
		"point select": "SELECT v FROM t WHERE id = ?",
		"range select": "SELECT v FROM t WHERE id BETWEEN ? AND ?",
		"index select": "SELECT COUNT(v) FROM t WHERE id BETWEEN ? AND ? OR id = ?",
		"update":       "UPDATE t SET v = ? WHERE id = ?",
		"insert":       "INSERT INTO t (id, v) VALUES (?, ?)",
		"delete":       "DELETE FROM t WHERE id = ?",
	}
	args := map[string][]any{
		"point select": {1}, "range select": {1, 2}, "index select": {1, 1, 2}, "update": {5, 1}, "insert": {10, 10}, "delete": {10},
	}
	order := []string{"point select", "range select", "index select", "update", "insert", "delete"}
	prepared := map[string]*sql.Stmt{}
	for _, name := range order {
		st, err := u.Prepare(stmts[name])
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		prepared[name] = st
	}
	exec := func(name string) error {
		if strings.HasSuffix(name, "select") {
			rows, err := prepared[name].Query(args[name]...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
			}
			return rows.Err()
		}
		_, err := prepared[name].Exec(args[name]...)
		return err
	}
	fast := func() int64 {
		var r, w int64
		for _, v := range []struct {
			name string
			p    *int64
		}{{"Petrel_fast_path_reads", &r}, {"Petrel_fast_path_writes", &w}} {
			var k string
			if err := root.QueryRow("SHOW GLOBAL STATUS LIKE '"+v.name+"'").Scan(&k, v.p); err != nil {
				t.Fatal(err)
			}
		}
		return r + w
	}
	f0 := fast()
	for _, name := range order {
		if err := exec(name); err != nil {
			t.Fatalf("%s with the privileges: %v", name, err)
		}
	}
	if got := fast() - f0; got != int64(len(order)) {
		t.Fatalf("%d of %d executions took a fast path; the test would not cover them", got, len(order))
	}
	mustExec(t, root, "REVOKE SELECT, INSERT, UPDATE, DELETE ON rv.* FROM 'u'@'%'")
	for _, name := range order {
		err := exec(name)
		var me *mysql.MySQLError
		if err == nil || !asMySQL(err, &me) || me.Number != 1142 {
			t.Errorf("%s prepared before REVOKE, executed after: err=%v, want error 1142", name, err)
		} else if !strings.Contains(me.Message, "'u'@'%'") || strings.Contains(me.Message, "%%") {
			t.Errorf("%s: error text %q does not name the account as 'u'@'%%'", name, me.Message)
		}
	}
	if got := queryRows(t, root, "SELECT id, v FROM rv.t ORDER BY id"); fmt.Sprint(got) != "[[1 5] [2 2]]" {
		t.Errorf("rows after the refused writes: %v", got)
	}
}

func asMySQL(err error, target **mysql.MySQLError) bool {
	e, ok := err.(*mysql.MySQLError)
	if ok {
		*target = e
	}
	return ok
}

// An UPDATE must not meet again the rows it moved (Halloween problem):
// through a secondary index split in two ranges, and through the primary
// key.
func TestUpdateDoesNotRevisitMovedRows(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE h", "CREATE TABLE h.b (id INT PRIMARY KEY, x INT, KEY(x))",
		"INSERT INTO h.b VALUES (1,1),(2,2),(3,3),(4,4)",
		"UPDATE h.b SET x = x + 10 WHERE x <> 2",
		"CREATE TABLE h.p (id INT PRIMARY KEY, v INT)", "INSERT INTO h.p VALUES (1,1),(2,2),(3,3)",
		"UPDATE h.p SET id = id + 1 ORDER BY id DESC", "UPDATE h.p SET id = id + 10 WHERE id > 0")
	if got := queryRows(t, db, "SELECT id, x FROM h.b ORDER BY id"); fmt.Sprint(got) != "[[1 11] [2 2] [3 13] [4 14]]" {
		t.Errorf("index update: %v", got)
	}
	if got := queryRows(t, db, "SELECT id, v FROM h.p ORDER BY id"); fmt.Sprint(got) != "[[12 1] [13 2] [14 3]]" {
		t.Errorf("primary key update: %v", got)
	}
}

// A failed DDL statement leaves no catalog change and no lock behind.
func TestFailedDDLLeavesNothing(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE f", "CREATE TABLE f.k (id INT PRIMARY KEY, val INT)", "INSERT INTO f.k VALUES (1, 5), (2, 5)")
	if _, err := db.Exec("ALTER TABLE f.k ADD CONSTRAINT c UNIQUE (val)"); err == nil {
		t.Fatal("unique index over duplicate values was created")
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema='f' AND index_name='c'"); got[0][0] != "0" {
		t.Errorf("index c is in the catalog after the failed ALTER: %v", got)
	}
	// No lock left: another connection inserts the duplicate value at once.
	other := open("f")
	if _, err := other.Exec("SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec("INSERT INTO k VALUES (3, 5)"); err != nil {
		t.Errorf("insert after failed ALTER: %v", err)
	}
}

// Garbage on the wire, before and after the handshake, never takes the
// server down: each bad connection is dropped or answered with an error
// and the server keeps serving others.
func TestMalformedPacketsDoNotHurtTheServer(t *testing.T) {
	n, open := startNode(t)
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 60; i++ {
		c, err := net.DialTimeout("tcp", n.Addr(), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(2 * time.Second))
		buf := make([]byte, 4096)
		_, _ = c.Read(buf) // server greeting
		var junk []byte
		switch i % 4 {
		case 0: // random bytes
			junk = make([]byte, 1+rng.IntN(300))
			for j := range junk {
				junk[j] = byte(rng.IntN(256))
			}
		case 1: // a header announcing 16 MB followed by a few bytes
			junk = []byte{0xff, 0xff, 0xff, 1, 1, 2, 3}
		case 2: // a handshake response cut short
			junk = []byte{10, 0, 0, 1, 0x8d, 0xa6, 0x0f, 0, 0, 0, 0, 1, 0x21}
		case 3: // zero-length packet
			junk = []byte{0, 0, 0, 1}
		}
		_, _ = c.Write(junk)
		_, _ = c.Read(buf)
		c.Close()
	}
	db := open("")
	var one int
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("server after garbage: %v %v", one, err)
	}
}

// testDBConn starts a node with a database called test and returns a
// connection to it (one session), closed at the test's end.
func testDBConn(t *testing.T) (context.Context, *sql.Conn) {
	t.Helper()
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test")
	ctx := context.Background()
	c, err := open("test").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return ctx, c
}
