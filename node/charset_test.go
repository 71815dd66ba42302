package node_test

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// openWith opens a client of n with the driver config adjusted by fn
// (collation, charset, multi-statements, ...), one connection.
func openWith(t *testing.T, n *node.Node, db string, fn func(*mysql.Config)) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "root", "pw", "tcp", n.Addr(), db
	if fn != nil {
		fn(cfg)
	}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := sql.OpenDB(c)
	d.SetMaxOpenConns(1)
	t.Cleanup(func() { d.Close() })
	return d
}

// errno returns the MySQL error number of err (0 if none).
func errno(t *testing.T, err error) uint16 {
	t.Helper()
	if err == nil {
		return 0
	}
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("not a MySQL error: %v", err)
	}
	return me.Number
}

func one(t *testing.T, db *sql.DB, q string, args ...any) string {
	t.Helper()
	rows := queryRows(t, db, q, args...)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: want one value, got %v", q, rows)
	}
	return rows[0][0]
}

// TestDefaultCollationIsMySQLs checks MySQL 8.0's defaults: new databases
// take collation_server (utf8mb4_0900_ai_ci unless configured), new tables
// and columns their database's collation.
func TestDefaultCollationIsMySQLs(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	got := queryRows(t, db, "SELECT @@global.character_set_server, @@global.collation_server, @@global.collation_connection, @@global.character_set_client")
	if fmt.Sprint(got) != "[[utf8mb4 utf8mb4_0900_ai_ci utf8mb4_0900_ai_ci utf8mb4]]" {
		t.Errorf("global defaults: %v", got)
	}
	mustExec(t, db, "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, name VARCHAR(20), b VARBINARY(4))")
	if got := queryRows(t, db, "SHOW CREATE DATABASE d")[0][1]; !strings.Contains(got, "COLLATE utf8mb4_0900_ai_ci") {
		t.Errorf("SHOW CREATE DATABASE: %s", got)
	}
	if got := one(t, db, "SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='d' AND TABLE_NAME='t' AND COLUMN_NAME='name'"); got != "utf8mb4_0900_ai_ci" {
		t.Errorf("column collation: %s", got)
	}
	if got := one(t, openWith(t, n, "d", nil), "SELECT @@collation_database"); got != "utf8mb4_0900_ai_ci" {
		t.Errorf("collation_database: %s", got)
	}

	// SET GLOBAL collation_server also sets character_set_server, and new
	// databases take it.
	mustExec(t, db, "SET GLOBAL collation_server = 'latin1_swedish_ci'")
	t.Cleanup(func() { db.Exec("SET GLOBAL collation_server = 'utf8mb4_0900_ai_ci'") })
	c2 := openWith(t, n, "", nil)
	if got := queryRows(t, c2, "SELECT @@character_set_server, @@collation_server"); fmt.Sprint(got) != "[[latin1 latin1_swedish_ci]]" {
		t.Errorf("after SET GLOBAL: %v", got)
	}
	mustExec(t, c2, "CREATE DATABASE d2", "CREATE TABLE d2.t (s VARCHAR(5))")
	if got := one(t, c2, "SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='d2' AND TABLE_NAME='t'"); got != "latin1_swedish_ci" {
		t.Errorf("database created under collation_server latin1: column collation %s", got)
	}
	// A database keeps its collation; ALTER TABLE ... COLLATE changes what
	// columns added later take, not existing ones.
	mustExec(t, db, "ALTER TABLE d.t COLLATE utf8mb4_bin", "ALTER TABLE d.t ADD COLUMN extra VARCHAR(5)")
	got = queryRows(t, db, "SELECT COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='d' AND TABLE_NAME='t' AND COLLATION_NAME IS NOT NULL ORDER BY COLUMN_NAME")
	if fmt.Sprint(got) != "[[extra utf8mb4_bin] [name utf8mb4_0900_ai_ci]]" {
		t.Errorf("after ALTER TABLE COLLATE: %v", got)
	}
	// CONVERT TO CHARACTER SET converts the columns too
	// (TestConvertToCharacterSet).
	mustExec(t, db, "ALTER TABLE d.t CONVERT TO CHARACTER SET latin1")
	got = queryRows(t, db, "SELECT COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='d' AND TABLE_NAME='t' AND COLLATION_NAME IS NOT NULL ORDER BY COLUMN_NAME")
	if fmt.Sprint(got) != "[[extra latin1_swedish_ci] [name latin1_swedish_ci]]" {
		t.Errorf("after ALTER TABLE CONVERT TO CHARACTER SET latin1: %v", got)
	}
}

// collationCase is one column collation the key tests run under.
type collationCase struct {
	clause string // column clause ("" for the default)
	ci     bool   // case-insensitive
}

var collationCases = []collationCase{
	{"", true}, // utf8mb4_0900_ai_ci
	{"COLLATE utf8mb4_general_ci", true},
	{"CHARACTER SET latin1 COLLATE latin1_swedish_ci", true},
	{"COLLATE utf8mb4_bin", false},
	{"COLLATE utf8mb4_0900_bin", false},
}

// TestUniqueKeysFollowCollation checks that unique keys, primary keys,
// index lookups, index ranges and ORDER BY compare under the column's
// collation: 'Bob' is a duplicate of 'bob' under a case-insensitive
// collation (1062) and a different value under a binary one.
func TestUniqueKeysFollowCollation(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE k")
	for i, cc := range collationCases {
		t.Run(fmt.Sprint(cc.clause), func(t *testing.T) {
			u, p := fmt.Sprintf("k.u%d", i), fmt.Sprintf("k.p%d", i)
			mustExec(t, db,
				fmt.Sprintf("CREATE TABLE %s (id INT PRIMARY KEY, name VARCHAR(20) %s, UNIQUE KEY uname (name))", u, cc.clause),
				fmt.Sprintf("CREATE TABLE %s (name VARCHAR(20) %s PRIMARY KEY, n INT)", p, cc.clause),
				fmt.Sprintf("INSERT INTO %s VALUES (1, 'bob')", u),
				fmt.Sprintf("INSERT INTO %s VALUES ('bob', 1)", p))
			_, err1 := db.Exec(fmt.Sprintf("INSERT INTO %s VALUES (2, 'Bob')", u))
			_, err2 := db.Exec(fmt.Sprintf("INSERT INTO %s VALUES ('BOB', 2)", p))
			want := uint16(0)
			if cc.ci {
				want = 1062
			}
			if errno(t, err1) != want || errno(t, err2) != want {
				t.Fatalf("'Bob' after 'bob': unique key %v, primary key %v; want errno %d", err1, err2, want)
			}
			mustExec(t, db, fmt.Sprintf("INSERT INTO %s VALUES (3, 'alice'), (4, 'Carl'), (5, 'dave'), (6, 'Eve')", u))

			// Equality through the unique index, and through the primary key.
			if plan := fmt.Sprint(queryRows(t, db, fmt.Sprintf("EXPLAIN PLAN SELECT id FROM %s WHERE name = 'BOB'", u))); !strings.Contains(plan, "IndexedTableAccess") || !strings.Contains(plan, "name") {
				t.Errorf("WHERE name = 'BOB' does not use the index: %s", plan)
			}
			gotEq := fmt.Sprint(queryRows(t, db, fmt.Sprintf("SELECT id FROM %s WHERE name = 'BOB'", u)))
			gotPK := fmt.Sprint(queryRows(t, db, fmt.Sprintf("SELECT name FROM %s WHERE name = 'BOB'", p)))
			// ORDER BY and an index range.
			gotOrder := fmt.Sprint(queryRows(t, db, fmt.Sprintf("SELECT name FROM %s ORDER BY name", u)))
			gotRange := fmt.Sprint(queryRows(t, db, fmt.Sprintf("SELECT name FROM %s WHERE name BETWEEN 'b' AND 'd' ORDER BY name", u)))
			if plan := fmt.Sprint(queryRows(t, db, fmt.Sprintf("EXPLAIN PLAN SELECT name FROM %s WHERE name BETWEEN 'b' AND 'd'", u))); !strings.Contains(plan, "IndexedTableAccess") {
				t.Errorf("the range does not use the index: %s", plan)
			}
			var wantEq, wantPK, wantOrder, wantRange string
			if cc.ci {
				wantEq, wantPK = "[[1]]", "[[bob]]"
				wantOrder = "[[alice] [bob] [Carl] [dave] [Eve]]"
				wantRange = "[[bob] [Carl]]"
			} else {
				wantEq, wantPK = "[]", "[[BOB]]"
				wantOrder = "[[Bob] [Carl] [Eve] [alice] [bob] [dave]]"
				wantRange = "[[bob]]"
			}
			if gotEq != wantEq || gotPK != wantPK || gotOrder != wantOrder || gotRange != wantRange {
				t.Errorf("= 'BOB': %s (want %s); primary key = 'BOB': %s (want %s)\nORDER BY: %s (want %s)\nBETWEEN 'b' AND 'd': %s (want %s)",
					gotEq, wantEq, gotPK, wantPK, gotOrder, wantOrder, gotRange, wantRange)
			}
		})
	}
}

// TestCaseOnlyUpdateChangesTheRow: under a case-insensitive collation
// 'bob' and 'BOB' compare equal, yet UPDATE ... SET name = 'BOB' must
// store 'BOB' and count the row as changed, as MySQL does (it compares
// the stored bytes). Through GMS and through the prepared fast path.
func TestCaseOnlyUpdateChangesTheRow(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE cu", "CREATE TABLE cu.t (id INT PRIMARY KEY, name VARCHAR(20), UNIQUE KEY (name))",
		"INSERT INTO cu.t VALUES (1, 'bob'), (2, 'alice')")
	res, err := db.Exec("UPDATE cu.t SET name = 'BOB' WHERE id = 1")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("UPDATE to 'BOB': %d rows affected, want 1", n)
	}
	// Prepared: the fast write path.
	res, err = db.Exec("UPDATE cu.t SET name = ? WHERE id = ?", "Alice", 2)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("prepared UPDATE to 'Alice': %d rows affected, want 1", n)
	}
	// The same value again changes nothing.
	res, err = db.Exec("UPDATE cu.t SET name = 'BOB' WHERE id = 1")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 0 {
		t.Errorf("UPDATE to the same value: %d rows affected, want 0", n)
	}
	if got := fmt.Sprint(queryRows(t, db, "SELECT id, name, HEX(name) FROM cu.t ORDER BY id")); got != "[[1 BOB 424F42] [2 Alice 416C696365]]" {
		t.Errorf("rows: %s", got)
	}
	// The unique index follows the new value.
	if got := fmt.Sprint(queryRows(t, db, "SELECT id FROM cu.t WHERE name = 'bob'")); got != "[[1]]" {
		t.Errorf("lookup after the update: %s", got)
	}
}

// TestHandshakeCollation: the collation a client sends in its handshake
// sets character_set_client/connection/results and collation_connection.
func TestHandshakeCollation(t *testing.T) {
	n, _ := startNode(t)
	q := "SELECT @@character_set_client, @@character_set_connection, @@character_set_results, @@collation_connection, 'a' = 'A'"
	for _, tc := range []struct{ collation, want string }{
		{"", "[[utf8mb4 utf8mb4 utf8mb4 utf8mb4_general_ci 1]]"}, // go-sql-driver's default, id 45
		{"utf8mb4_0900_ai_ci", "[[utf8mb4 utf8mb4 utf8mb4 utf8mb4_0900_ai_ci 1]]"},
		{"utf8mb4_bin", "[[utf8mb4 utf8mb4 utf8mb4 utf8mb4_bin 0]]"},
		{"latin1_swedish_ci", "[[latin1 latin1 latin1 latin1_swedish_ci 1]]"},
		{"latin1_bin", "[[latin1 latin1 latin1 latin1_bin 0]]"},
	} {
		db := openWith(t, n, "", func(c *mysql.Config) {
			if tc.collation != "" {
				c.Collation = tc.collation
			}
		})
		if got := fmt.Sprint(queryRows(t, db, q)); got != tc.want {
			t.Errorf("handshake collation %q: %s, want %s", tc.collation, got, tc.want)
		}
	}
}

// TestSetNames checks SET NAMES and SET CHARACTER SET, and the errors MySQL
// gives for character sets and collations it does not know.
func TestSetNames(t *testing.T) {
	n, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE sn COLLATE utf8mb4_bin")
	db := openWith(t, n, "sn", nil)
	q := "SELECT @@character_set_client, @@character_set_connection, @@character_set_results, @@collation_connection"
	for _, tc := range []struct{ stmt, want string }{
		{"SET NAMES latin1", "[[latin1 latin1 latin1 latin1_swedish_ci]]"},
		{"SET NAMES utf8mb4 COLLATE utf8mb4_bin", "[[utf8mb4 utf8mb4 utf8mb4 utf8mb4_bin]]"},
		{"SET NAMES 'utf8'", "[[utf8mb3 utf8mb3 utf8mb3 utf8mb3_general_ci]]"},
		{"SET NAMES DEFAULT", "[[utf8mb4 utf8mb4 utf8mb4 utf8mb4_0900_ai_ci]]"},
		{"/*!40101 SET NAMES latin1 */", "[[latin1 latin1 latin1 latin1_swedish_ci]]"},
		{"SET CHARACTER SET latin1", "[[latin1 utf8mb4 latin1 utf8mb4_bin]]"}, // the database's
		{"SET collation_connection = 'utf8mb4_general_ci'", "[[latin1 utf8mb4 latin1 utf8mb4_general_ci]]"},
		{"SET character_set_connection = latin1", "[[latin1 latin1 latin1 latin1_swedish_ci]]"},
		{"SET NAMES utf8mb4", "[[utf8mb4 utf8mb4 utf8mb4 utf8mb4_0900_ai_ci]]"},
	} {
		mustExec(t, db, tc.stmt)
		if got := fmt.Sprint(queryRows(t, db, q)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.stmt, got, tc.want)
		}
	}
	for _, tc := range []struct {
		stmt  string
		errno uint16
	}{
		{"SET NAMES gbk", 1115},
		{"SET NAMES nonsense", 1115},
		{"SET NAMES latin1 COLLATE utf8mb4_bin", 1253},
		{"SET NAMES utf8mb4 COLLATE nonsense", 1273},
		{"SET collation_connection = 'nonsense'", 1273},
		{"SET character_set_client = 'utf16'", 1231},
		{"SET NAMES ucs2", 1231},
		{"SET character_set_client = NULL", 1231},
		{"SET GLOBAL collation_server = 'nonsense'", 1273},
	} {
		if _, err := db.Exec(tc.stmt); errno(t, err) != tc.errno {
			t.Errorf("%s: %v, want error %d", tc.stmt, err, tc.errno)
		}
	}
	// A refused SET changed nothing.
	if got := fmt.Sprint(queryRows(t, db, q)); got != "[[utf8mb4 utf8mb4 utf8mb4 utf8mb4_0900_ai_ci]]" {
		t.Errorf("after refused SETs: %s", got)
	}
}

// TestLatin1Client: a latin1 client's bytes are decoded as latin1 and
// stored correctly in utf8mb4 and latin1 columns, results come back in
// latin1, and a string a column cannot hold fails at the statement (1366),
// never at COMMIT.
func TestLatin1Client(t *testing.T) {
	n, open := startNode(t)
	utf := open("")
	utf.SetMaxOpenConns(1)
	mustExec(t, utf, "CREATE DATABASE l1",
		"CREATE TABLE l1.t (id INT PRIMARY KEY, s VARCHAR(10), l VARCHAR(10) CHARACTER SET latin1, b VARBINARY(10))")
	lat := openWith(t, n, "l1", func(c *mysql.Config) { c.Params = map[string]string{"charset": "latin1"} })
	if got := one(t, lat, "SELECT @@character_set_client"); got != "latin1" {
		t.Fatalf("charset=latin1 client: character_set_client %s", got)
	}
	// Text protocol: 'été' in latin1 bytes, a _binary literal kept as bytes.
	mustExec(t, lat, "INSERT INTO t VALUES (1, '\xe9t\xe9', '\xe9', _binary'\xe9\xff')")
	// Binary protocol: string parameters are decoded too.
	if _, err := lat.Exec("INSERT INTO t (id, s, l) VALUES (?, ?, ?)", 2, "na\xefve", "\xe0"); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(queryRows(t, utf, "SELECT id, s, HEX(s), l, HEX(b) FROM l1.t ORDER BY id"))
	if got != "[[1 été C3A974C3A9 é E9FF] [2 naïve 6E61C3AF7665 à NULL]]" {
		t.Errorf("stored (read by a utf8mb4 client): %s", got)
	}
	// Results in character_set_results (latin1).
	got = fmt.Sprint(queryRows(t, lat, "SELECT s, l FROM t ORDER BY id"))
	if got != fmt.Sprint([][]string{{"\xe9t\xe9", "\xe9"}, {"na\xefve", "\xe0"}}) {
		t.Errorf("read by the latin1 client: %q", got)
	}
	// Through the prepared point-select fast path too.
	var s string
	if err := lat.QueryRow("SELECT s FROM t WHERE id = ?", 1).Scan(&s); err != nil || s != "\xe9t\xe9" {
		t.Errorf("prepared point select: %q %v", s, err)
	}

	// A character latin1 cannot hold: error 1366 at the statement; the
	// transaction goes on and commits what it did before.
	tx, err := utf.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO l1.t (id, l) VALUES (3, 'ok')"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec("INSERT INTO l1.t (id, l) VALUES (4, 'Ā')")
	if errno(t, err) != 1366 || !strings.Contains(err.Error(), `Incorrect string value: '\xC4\x80' for column 'l' at row 1`) {
		t.Errorf("'Ā' into latin1: %v, want 1366", err)
	}
	_, err = tx.Exec("UPDATE l1.t SET l = 'x€Āy' WHERE id = 3")
	if errno(t, err) != 1366 {
		t.Errorf("UPDATE to 'x€Āy' in latin1: %v, want 1366", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("COMMIT after the refused statements: %v", err)
	}
	// Prepared (fast path) inserts fail the same way.
	if _, err := utf.Exec("INSERT INTO l1.t VALUES (?, ?, ?, ?)", 5, "a", "Ā", nil); errno(t, err) != 1366 {
		t.Errorf("prepared insert of 'Ā' into latin1: %v, want 1366", err)
	}
	// Invalid UTF-8 from a utf8mb4 client: 1366 too.
	if _, err := utf.Exec("INSERT INTO l1.t (id, s) VALUES (6, '\xe9')"); errno(t, err) != 1366 {
		t.Errorf("invalid UTF-8 into utf8mb4: %v, want 1366", err)
	}
	if _, err := utf.Exec("INSERT INTO l1.t (id, s) VALUES (?, ?)", 7, "\xe9"); errno(t, err) != 1366 {
		t.Errorf("prepared invalid UTF-8 into utf8mb4: %v, want 1366", err)
	}
	if got := fmt.Sprint(queryRows(t, utf, "SELECT id, l FROM l1.t WHERE id >= 3 ORDER BY id")); got != "[[3 ok]]" {
		t.Errorf("rows after the refused writes: %s", got)
	}
}

// TestMultiStatementCharset: in a multi-statement text each statement is
// decoded with the character set in force when it runs.
func TestMultiStatementCharset(t *testing.T) {
	n, open := startNode(t)
	utf := open("")
	mustExec(t, utf, "CREATE DATABASE ms", "CREATE TABLE ms.t (id INT PRIMARY KEY, s VARCHAR(10))")
	multi := func(c *mysql.Config) { c.MultiStatements = true }
	db := openWith(t, n, "ms", multi)
	mustExec(t, db, "SET NAMES latin1; INSERT INTO t VALUES (1, '\xe9'); INSERT INTO t VALUES (2, '\xe0\xe8'); SET NAMES utf8mb4; INSERT INTO t VALUES (3, 'é')")
	lat := openWith(t, n, "ms", func(c *mysql.Config) {
		multi(c)
		c.Params = map[string]string{"charset": "latin1"}
	})
	mustExec(t, lat, "INSERT INTO t VALUES (4, _utf8mb4'\xc3\xa9'); INSERT INTO t VALUES (5, '\xff'); /* \xe9 */ INSERT INTO t VALUES (6, 'x')")
	got := fmt.Sprint(queryRows(t, utf, "SELECT id, HEX(s) FROM ms.t ORDER BY id"))
	if got != "[[1 C3A9] [2 C3A0C3A8] [3 C3A9] [4 C3A9] [5 C3BF] [6 78]]" {
		t.Errorf("rows: %s", got)
	}
}

// TestGreetingAnnouncesDefaultCollation: the server's greeting names
// MySQL 8.0's default collation, utf8mb4_0900_ai_ci (255).
func TestGreetingAnnouncesDefaultCollation(t *testing.T) {
	n, _ := startNode(t)
	c, err := net.DialTimeout("tcp", n.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		t.Fatal(err)
	}
	p := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	if _, err := io.ReadFull(c, p); err != nil {
		t.Fatal(err)
	}
	end := bytes.IndexByte(p[1:], 0)
	if p[0] != 10 || end < 0 {
		t.Fatalf("not a HandshakeV10: % x", p)
	}
	pos := 1 + end + 1 + 4 + 8 + 1 + 2
	if version := string(p[1 : 1+end]); !strings.HasPrefix(version, "8.0.") || p[pos] != 255 {
		t.Errorf("greeting: version %q, character set %d, want 255", version, p[pos])
	}
}

// TestCollationLimits pins the differences from MySQL that
// docs/COMPATIBILITY.md lists, so the table stays true.
func TestCollationLimits(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE cl",
		"CREATE TABLE cl.p (id INT PRIMARY KEY, s VARCHAR(5) COLLATE utf8mb4_general_ci, UNIQUE KEY (s))",
		"INSERT INTO cl.p VALUES (1, 'a'), (3, 'b')",
		"CREATE TABLE cl.t (id INT PRIMARY KEY, name VARCHAR(20))", "CREATE TABLE cl.u (id INT PRIMARY KEY, v VARCHAR(20))",
		"INSERT INTO cl.t VALUES (1, 'bob')", "INSERT INTO cl.u VALUES (1, 'BOB')",
		"CREATE TABLE cl.l (id INT PRIMARY KEY, c VARCHAR(2) CHARACTER SET latin1)")
	// PAD SPACE (utf8mb4_general_ci): 'a ' is the unique key 'a' holds.
	if _, err := db.Exec("INSERT INTO cl.p VALUES (2, 'A ')"); errno(t, err) != 1062 {
		t.Errorf("'A ' beside 'a' in a PAD SPACE unique key: %v, want 1062", err)
	}
	// The driver's connection collation, utf8mb4_general_ci, pads too.
	if got := fmt.Sprint(queryRows(t, db, "SELECT 'ß' = 'ss', 'a' = 'a ', 'Å' = 'a', COUNT(*) FROM cl.p WHERE s = 'a  '")); got != "[[0 1 1 1]]" {
		t.Errorf("ß = ss, 'a' = 'a ', Å = a, rows equal to 'a  ': %s", got)
	}
	// A multi-table UPDATE changing only the case keeps the old value.
	if _, err := db.Exec("UPDATE cl.t JOIN cl.u ON cl.t.id = cl.u.id SET cl.t.name = cl.u.v"); err != nil {
		t.Fatal(err)
	}
	if got := one(t, db, "SELECT name FROM cl.t"); got != "bob" {
		t.Errorf("UPDATE ... JOIN to 'BOB': %s (the documented limit changed: update docs/COMPATIBILITY.md)", got)
	}
	// Single-byte columns count characters, as MySQL.
	if _, err := db.Exec("INSERT INTO cl.l VALUES (1, 'ab')"); err != nil {
		t.Errorf("'ab' into latin1 VARCHAR(2): %v", err)
	}
	if _, err := db.Exec("INSERT INTO cl.l VALUES (2, 'éé')"); err != nil {
		t.Errorf("'éé' into latin1 VARCHAR(2): %v", err)
	}
	if _, err := db.Exec("INSERT INTO cl.l VALUES (3, 'ééé')"); errno(t, err) != 1406 {
		t.Errorf("'ééé' into latin1 VARCHAR(2): %v, want 1406", err)
	}
	// Collations and character sets without weights are refused.
	for _, tc := range []struct {
		stmt  string
		errno uint16
	}{
		{"CREATE TABLE cl.x (s VARCHAR(5) COLLATE utf8mb4_nb_0900_ai_ci)", 1273},
		{"CREATE TABLE cl.x (s VARCHAR(5)) COLLATE utf8mb4_nb_0900_ai_ci", 1273},
		{"CREATE TABLE cl.x (s VARCHAR(5) CHARACTER SET gbk)", 1115},
		{"CREATE DATABASE nb COLLATE utf8mb4_nb_0900_ai_ci", 1273},
		{"ALTER DATABASE cl COLLATE utf8mb4_nb_0900_ai_ci", 1273},
		{"SET collation_connection = 'utf8mb4_nb_0900_ai_ci'", 1273},
	} {
		if _, err := db.Exec(tc.stmt); errno(t, err) != tc.errno {
			t.Errorf("%s: %v, want %d", tc.stmt, err, tc.errno)
		}
	}
	if got := queryRows(t, db, "SHOW DATABASES LIKE 'nb'"); len(got) != 0 {
		t.Errorf("the refused database exists: %v", got)
	}
	// character_set_results = NULL reads ''; results come in the column's
	// character set.
	lat := openWith(t, n, "cl", nil)
	mustExec(t, lat, "INSERT INTO l VALUES (3, 'é')", "SET character_set_results = NULL")
	if got := fmt.Sprint(queryRows(t, lat, "SELECT @@character_set_results, c FROM l WHERE id = 3")); got != fmt.Sprint([][]string{{"", "\xe9"}}) {
		t.Errorf("character_set_results NULL: %q", got)
	}
	if got := one(t, openWith(t, n, "", nil), "SELECT @@collation_database"); got != "utf8mb4_0900_bin" {
		t.Errorf("@@collation_database without a database: %s", got)
	}
}

// A client whose character set lacks a stored character reads '?' in its
// place, as from MySQL, on every read path (GMS's, the text scan and the
// prepared point read), and the connection goes on.
func TestResultCharsetReplacement(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE rc", "CREATE TABLE rc.t (id INT PRIMARY KEY, c VARCHAR(10))",
		"INSERT INTO rc.t VALUES (1, 'aĀb€'), (2, 'plain')")
	l1 := openWith(t, n, "rc", latin1)
	want := "a?b\x80" // € is 0x80 in MySQL's latin1 (cp1252)
	for _, q := range []struct {
		q    string
		args []any
	}{
		{"SELECT c FROM t WHERE id = 1", nil},
		{"SELECT c FROM t WHERE id = ?", []any{1}},
		{"SELECT UPPER(c) FROM t WHERE id = 1", nil},
		{"SELECT c FROM t ORDER BY id LIMIT 1", nil},
		{"SELECT * FROM t WHERE id = 1", nil},
		{"SELECT x.c FROM (SELECT id, c FROM t) x WHERE x.id = 1", nil},
		{"SELECT c FROM t WHERE c = (SELECT c FROM t WHERE id = 1)", nil},
	} {
		rows, err := l1.Query(q.q, q.args...)
		if err != nil {
			t.Fatalf("%s: %v", q.q, err)
		}
		cols, _ := rows.Columns()
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if !rows.Next() {
			t.Fatalf("%s: no row", q.q)
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		got := string(vals[len(vals)-1])
		rows.Close()
		if q.q == "SELECT UPPER(c) FROM t WHERE id = 1" {
			want = "A?B\x80"
		} else {
			want = "a?b\x80"
		}
		if got != want {
			t.Errorf("%s: %q, want %q", q.q, got, want)
		}
	}
}

// A client whose results are latin1 stores and compares what it reads
// from tables whole: character_set_results converts the rows sent to
// the client, nothing else. The replacement of characters latin1 lacks
// (TestResultCharsetReplacement) was applied to the SELECT of INSERT ...
// SELECT and CREATE TABLE ... SELECT, which stored '?' for them, and to
// subqueries and derived tables, whose rows were compared after it.
// Each statement runs on the latin1 connection; the stored bytes are
// read back as hex.
func TestResultCharsetOnlyForResults(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE rco", "CREATE TABLE rco.a (id INT PRIMARY KEY, s VARCHAR(20))",
		"INSERT INTO rco.a VALUES (1, '日本€'), (2, 'Ā')", "CREATE TABLE rco.b LIKE rco.a", "CREATE TABLE rco.u LIKE rco.a",
		"INSERT INTO rco.u VALUES (1, ''), (2, '')")
	l1 := openWith(t, n, "rco", latin1)
	mustExec(t, l1, "INSERT INTO b SELECT * FROM a", "CREATE TABLE c AS SELECT id, s FROM a",
		"UPDATE u SET s = (SELECT s FROM a WHERE a.id = u.id)",
		"CREATE PROCEDURE p() INSERT INTO b SELECT id + 10, s FROM a", "CALL p()",
		"SET @v = (SELECT s FROM a WHERE id = 2)", "INSERT INTO b VALUES (20, @v)")
	want := [][]string{{"1", "E697A5E69CACE282AC"}, {"2", "C480"}}
	for _, q := range []string{
		"SELECT id, HEX(s) FROM rco.b WHERE id < 10 ORDER BY id", "SELECT id, HEX(s) FROM rco.c ORDER BY id",
		"SELECT id, HEX(s) FROM rco.u ORDER BY id", "SELECT id - 10, HEX(s) FROM rco.b WHERE id BETWEEN 10 AND 19 ORDER BY id",
	} {
		if got := queryRows(t, db, q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	if got := queryRows(t, db, "SELECT HEX(s) FROM rco.b WHERE id = 20"); !reflect.DeepEqual(got, [][]string{{"C480"}}) {
		t.Errorf("a user variable set from a subquery: %v, want C480", got)
	}
	// Comparisons in subqueries and derived tables see the stored text.
	for q, want := range map[string]string{
		"SELECT COUNT(*) FROM a WHERE s = (SELECT s FROM a WHERE id = 1)":                     "1",
		"SELECT COUNT(*) FROM (SELECT s FROM a) x WHERE x.s = (SELECT s FROM b WHERE id = 1)": "1",
		"SELECT COUNT(*) FROM a WHERE s IN (SELECT s FROM c)":                                 "2",
	} {
		if got := queryRows(t, l1, q); !reflect.DeepEqual(got, [][]string{{want}}) {
			t.Errorf("%s: %v, want %s", q, got, want)
		}
	}
}

// latin1 makes a connection's character set latin1 (openWith).
func latin1(cfg *mysql.Config) { cfg.Params = map[string]string{"charset": "latin1"} }
