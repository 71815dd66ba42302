package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// collTarget is one server the collation checks run against.
type collTarget struct {
	name     string
	port     int
	password string
	db       *sql.DB
	// uca is the server's Unicode accent- and case-insensitive utf8mb4
	// collation: MySQL 8.0's default utf8mb4_0900_ai_ci on Petrel,
	// utf8mb4_uca1400_ai_ci on MariaDB (which has no 0900 collations).
	uca string
}

// collOutcome is what a client sees of the checks under one collation.
type collOutcome struct {
	DupUnique, DupPK uint16 // errno of 'Bob' after 'bob'
	Eq, PKEq         string // WHERE name = 'BOB' through the unique key, the primary key
	Order, Range     string // ORDER BY name; name BETWEEN 'b' AND 'd' ORDER BY name
}

// runCollationChecks runs the same statements on s under collation coll
// (with its character set cs) in table number i.
func runCollationChecks(t *testing.T, ctx context.Context, s collTarget, i int, cs, coll string) collOutcome {
	t.Helper()
	u, p := fmt.Sprintf("coll.u%d", i), fmt.Sprintf("coll.p%d", i)
	col := fmt.Sprintf("VARCHAR(20) CHARACTER SET %s COLLATE %s", cs, coll)
	mustExec(t, ctx, s.db,
		fmt.Sprintf("CREATE TABLE %s (id INT PRIMARY KEY, name %s, UNIQUE KEY uname (name))", u, col),
		fmt.Sprintf("CREATE TABLE %s (name %s PRIMARY KEY, n INT)", p, col),
		fmt.Sprintf("INSERT INTO %s VALUES (1, 'bob')", u),
		fmt.Sprintf("INSERT INTO %s VALUES ('bob', 1)", p))
	var o collOutcome
	_, err := s.db.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s VALUES (2, 'Bob')", u))
	o.DupUnique = errNo(err)
	_, err = s.db.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s VALUES ('BOB', 2)", p))
	o.DupPK = errNo(err)
	mustExec(t, ctx, s.db, fmt.Sprintf("INSERT INTO %s VALUES (3, 'alice'), (4, 'Carl'), (5, 'dave'), (6, 'Eve')", u))
	o.Eq = column(t, ctx, s.db, fmt.Sprintf("SELECT id FROM %s WHERE name = 'BOB' ORDER BY id", u))
	o.PKEq = column(t, ctx, s.db, fmt.Sprintf("SELECT name FROM %s WHERE name = 'BOB'", p))
	o.Order = column(t, ctx, s.db, fmt.Sprintf("SELECT name FROM %s ORDER BY name, id", u))
	o.Range = column(t, ctx, s.db, fmt.Sprintf("SELECT name FROM %s WHERE name BETWEEN 'b' AND 'd' ORDER BY name, id", u))
	return o
}

// column returns a query's first column, rows joined with ",".
func column(t *testing.T, ctx context.Context, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, ",")
}

// TestCollationsMatchMariaDB runs the same collation checks on Petrel and
// on MariaDB 10.11: unique and primary keys, index lookups, index ranges
// and ORDER BY follow the column's collation ('Bob' is a duplicate of
// 'bob' under a case-insensitive one, 1062, and a distinct value under
// utf8mb4_bin), the handshake's character set shows in the session's
// variables, and latin1 bytes from a latin1 client are stored and read
// back alike.
func TestCollationsMatchMariaDB(t *testing.T) {
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	ctx := testContext(t, 4*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	m, err := lab.StartMariaDB(ctx, lab.MariaDBOptions{Datadir: t.TempDir(), ExtraArgs: []string{"--skip-log-bin"}})
	if err != nil {
		t.Fatalf("start mariadb: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("mariadb log:\n%s", tail(m.Log(), 8192))
		}
		m.Stop(ctx)
	})
	mdb, err := m.DB("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mdb.Close() })
	targets := []collTarget{
		{name: "petrel", port: p.Port(), password: rootPassword, db: rootDB(t, p, ""), uca: "utf8mb4_0900_ai_ci"},
		{name: "mariadb", port: m.Port(), db: mdb, uca: "utf8mb4_uca1400_ai_ci"},
	}
	for _, s := range targets {
		s.db.SetMaxOpenConns(1)
		mustExec(t, ctx, s.db, "CREATE DATABASE coll CHARACTER SET utf8mb4")
	}
	ci := collOutcome{DupUnique: erDupEntry, DupPK: erDupEntry, Eq: "1", PKEq: "bob",
		Order: "alice,bob,Carl,dave,Eve", Range: "bob,Carl"}
	bin := collOutcome{Eq: "", PKEq: "BOB", Order: "Bob,Carl,Eve,alice,bob,dave", Range: "bob"}
	cases := []struct {
		cs, coll string // coll "" = the server's UCA collation
		want     collOutcome
	}{
		{"utf8mb4", "", ci},
		{"utf8mb4", "utf8mb4_general_ci", ci},
		{"latin1", "latin1_swedish_ci", ci},
		{"utf8mb4", "utf8mb4_bin", bin},
	}
	for i, c := range cases {
		var got [2]collOutcome
		for j, s := range targets {
			coll := c.coll
			if coll == "" {
				coll = s.uca
			}
			got[j] = runCollationChecks(t, ctx, s, i, c.cs, coll)
			if got[j] != c.want {
				t.Errorf("%s %s:\n got %+v\nwant %+v", s.name, coll, got[j], c.want)
			}
		}
		if got[0] != got[1] {
			t.Errorf("%s: petrel %+v, mariadb %+v", c.coll, got[0], got[1])
		}
	}

	// The mariadb CLI as a latin1 client: the handshake's character set,
	// latin1 bytes stored as 'é' in utf8mb4 and latin1 columns, and read
	// back as latin1 bytes.
	latin1 := "--default-character-set=latin1"
	for _, s := range targets {
		cli := func(q string, extra ...string) string {
			t.Helper()
			out, err := lab.RunMariaDBClient(ctx, s.port, "root", s.password, "coll", q, extra...)
			if err != nil {
				t.Fatalf("%s: %s: %v", s.name, q, err)
			}
			return out
		}
		if got := cli("SELECT @@character_set_client, @@character_set_results, @@collation_connection", latin1); got != "latin1\tlatin1\tlatin1_swedish_ci\n" {
			t.Errorf("%s: latin1 CLI's session: %q", s.name, got)
		}
		cli("CREATE TABLE l1 (id INT PRIMARY KEY, s VARCHAR(10) CHARACTER SET utf8mb4, l VARCHAR(10) CHARACTER SET latin1)")
		cli("INSERT INTO l1 VALUES (1, '\xe9t\xe9', '\xe9')", latin1)
		if got := cli("SELECT HEX(s), s, l FROM l1"); got != "C3A974C3A9\tété\té\n" {
			t.Errorf("%s: stored: %q", s.name, got)
		}
		if got := cli("SELECT s, l FROM l1", latin1); got != "\xe9t\xe9\t\xe9\n" {
			t.Errorf("%s: read by the latin1 CLI: %q", s.name, got)
		}
		// A character latin1 cannot hold: 1366 at the statement.
		if _, err := lab.RunMariaDBClient(ctx, s.port, "root", s.password, "coll", "INSERT INTO l1 VALUES (2, 'x', 'Ā')"); err == nil || !strings.Contains(err.Error(), "ERROR 1366") {
			t.Errorf("%s: 'Ā' into latin1: %v, want ERROR 1366", s.name, err)
		}
		if got := cli("SELECT COUNT(*) FROM l1"); got != "1\n" {
			t.Errorf("%s: rows after the refused insert: %q", s.name, got)
		}
	}
	// Petrel's default for new tables is MySQL 8.0's.
	if got := queryString(t, ctx, targets[0].db, "SELECT @@collation_server"); got != "utf8mb4_0900_ai_ci" {
		t.Errorf("petrel collation_server %s", got)
	}
}

// TestBinlogColumnCharsets: mariadb-binlog -vv reads each string column
// of Petrel's binlog in its own character set: UTF-8 bytes for utf8mb4
// columns (utf8mb4_0900_ai_ci, the default, is logged as utf8mb4_general_ci
// for MariaDB), latin1 bytes for a latin1 column, whatever the client's
// character set was.
func TestBinlogColumnCharsets(t *testing.T) {
	tool := requireTool(t, "mariadb-binlog", "/usr/bin/mariadb-binlog")
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE bc",
		"CREATE TABLE bc.t (id INT PRIMARY KEY, s VARCHAR(10), l VARCHAR(10) CHARACTER SET latin1, b VARCHAR(10) COLLATE utf8mb4_bin, UNIQUE KEY (s))")
	if _, err := lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "bc", "INSERT INTO t VALUES (1, '\xe9t\xe9', '\xe9', 'B\xf6b')", "--default-character-set=latin1"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, db, "INSERT INTO bc.t VALUES (2, 'Bob', 'ü', 'x')", "FLUSH BINARY LOGS")
	out, err := exec.CommandContext(ctx, tool, "-vv", "--base64-output=DECODE-ROWS", "--verify-binlog-checksum",
		filepath.Join(p.Datadir(), "binlog", "binlog.000001")).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-binlog: %v\n%s", err, tail(string(out), 4000))
	}
	checkLines(t, "mariadb-binlog -vv", rowLines(string(out)), []string{
		"@2='été' /* VARSTRING(40) meta=40 nullable=1 is_null=0 */",
		"@3='\xe9' /* VARSTRING(10) meta=10 nullable=1 is_null=0 */",
		"@4='Böb' /* VARSTRING(40) meta=40 nullable=1 is_null=0 */",
		"@2='Bob' /* VARSTRING(40) meta=40 nullable=1 is_null=0 */",
		"@3='\xfc' /* VARSTRING(10) meta=10 nullable=1 is_null=0 */",
	})
}

// TestCollationsReplicate: a Petrel replica applies rows of tables whose
// unique keys follow a case-insensitive collation (a case-only UPDATE
// included) and of latin1 columns; DDL is replicated as written, so a
// CREATE DATABASE without a collation takes the replica's
// collation_server (here configured to differ), one with a collation
// keeps it.
func TestCollationsReplicate(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	rep := startReplicaServer(t, ctx, 2, map[string]string{"collation_server": "utf8mb4_bin"})
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUser(t, ctx, sdb)
	pointAt(t, ctx, rdb, src.Port(), "")
	mustExec(t, ctx, sdb, "CREATE DATABASE rc", "CREATE DATABASE rl COLLATE latin1_swedish_ci",
		"CREATE TABLE rc.t (id INT PRIMARY KEY, name VARCHAR(20), UNIQUE KEY (name))",
		"CREATE TABLE rl.t (id INT PRIMARY KEY, s VARCHAR(5))",
		"INSERT INTO rc.t VALUES (1, 'bob'), (2, 'alice')", "UPDATE rc.t SET name = 'Bob' WHERE id = 1",
		"INSERT INTO rl.t VALUES (1, 'été')")
	waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
	sameTable(t, ctx, sdb, rdb, "rc.t", "id")
	sameTable(t, ctx, sdb, rdb, "rl.t", "id")
	if got := queryString(t, ctx, rdb, "SELECT name FROM rc.t WHERE id = 1"); got != "Bob" {
		t.Errorf("replicated case-only update: %q", got)
	}
	q := "SELECT GROUP_CONCAT(CONCAT(SCHEMA_NAME, ':', DEFAULT_COLLATION_NAME) ORDER BY SCHEMA_NAME) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ('rc', 'rl')"
	if got := queryString(t, ctx, sdb, q); got != "rc:utf8mb4_0900_ai_ci,rl:latin1_swedish_ci" {
		t.Errorf("source databases: %s", got)
	}
	if got := queryString(t, ctx, rdb, q); got != "rc:utf8mb4_bin,rl:latin1_swedish_ci" {
		t.Errorf("replica databases: %s", got)
	}
}
