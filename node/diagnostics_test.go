package node_test

import (
	"context"
	"database/sql"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// The diagnostics area: a failed statement's error is listed by SHOW
// WARNINGS, and @@warning_count / @@error_count count the previous
// statement's conditions.
func TestDiagnosticsArea(t *testing.T) {
	db, c := sessionWith(t, "CREATE DATABASE dg", "USE dg", "CREATE TABLE t (id INT PRIMARY KEY, v TINYINT)", "SET SESSION sql_mode = ''")
	ctx := context.Background()
	warnings := func() [][]string {
		rows, err := c.QueryContext(ctx, "SHOW WARNINGS")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out [][]string
		for rows.Next() {
			var level, code, msg string
			if err := rows.Scan(&level, &code, &msg); err != nil {
				t.Fatal(err)
			}
			out = append(out, []string{level, code})
		}
		return out
	}
	// Two values clipped: two warnings, counted by @@warning_count.
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (1, 300), (2, -300)"); err != nil {
		t.Fatal(err)
	}
	if got := connInt(t, c, "SELECT @@warning_count"); got != 2 {
		t.Fatalf("@@warning_count after two clipped values: %d, want 2", got)
	}
	if got := queryRows(t, db, "SELECT v FROM dg.t ORDER BY id"); !reflect.DeepEqual(got, [][]string{{"127"}, {"-128"}}) {
		t.Fatalf("clipped rows %v", got)
	}
	// A failed statement: its error is the condition listed.
	if _, err := c.ExecContext(ctx, "SELECT * FROM missing"); err == nil {
		t.Fatal("SELECT from a missing table succeeded")
	}
	if got := warnings(); !reflect.DeepEqual(got, [][]string{{"Error", "1146"}}) {
		t.Fatalf("SHOW WARNINGS after a failed statement: %v, want [[Error 1146]]", got)
	}
	if got := connInt(t, c, "SELECT @@error_count"); got != 1 {
		t.Fatalf("@@error_count after a failed statement: %d, want 1", got)
	}
	// A clean statement clears them.
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (3, 3)"); err != nil {
		t.Fatal(err)
	}
	if got := connInt(t, c, "SELECT @@warning_count"); got != 0 {
		t.Fatalf("@@warning_count after a clean statement: %d, want 0", got)
	}
	// A statement that fails before it runs (a parse error, a missing
	// table) replaces the previous statement's warnings too.
	for _, bad := range []struct{ q, code string }{{"SELEC 1", "1064"}, {"SELECT * FROM missing2", "1146"}} {
		if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (4, 400) ON DUPLICATE KEY UPDATE v = 500"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, bad.q); err == nil {
			t.Fatalf("%s succeeded", bad.q)
		}
		if got := warnings(); !reflect.DeepEqual(got, [][]string{{"Error", bad.code}}) {
			t.Fatalf("SHOW WARNINGS after %s following a warning: %v, want [[Error %s]]", bad.q, got, bad.code)
		}
	}
}

// A sql_mode flag Petrel does not honour is refused, never accepted and
// ignored.
func TestUnhonouredSQLModeRefused(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	for _, q := range []string{"SET SESSION sql_mode = 'STRICT_TRANS_TABLES,PAD_CHAR_TO_FULL_LENGTH'", "SET GLOBAL sql_mode = 'pad_char_to_full_length'",
		"SET sql_mode = 'ALLOW_INVALID_DATES'", "SET sql_mode = 'ANSI,PAD_CHAR_TO_FULL_LENGTH'"} {
		_, err := db.Exec(q)
		var me *mysql.MySQLError
		if err == nil || !asMySQL(err, &me) || me.Number != 1231 {
			t.Fatalf("%s: %v, want 1231", q, err)
		}
	}
	if got := queryRows(t, db, "SELECT @@GLOBAL.sql_mode LIKE '%PAD_CHAR%'"); got[0][0] != "0" {
		t.Fatalf("global sql_mode took the refused flag")
	}
}

// REAL_AS_FLOAT makes REAL a FLOAT (DOUBLE without it); IGNORE_SPACE is
// accepted, and a space between a function's name and its parenthesis
// is read either way.
func TestHonouredParsingModes(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE rf", "USE rf", "CREATE TABLE d (id INT PRIMARY KEY, r REAL)",
		"SET sql_mode = CONCAT(@@sql_mode, ',REAL_AS_FLOAT,IGNORE_SPACE')",
		"CREATE TABLE f (id INT PRIMARY KEY, r REAL)", "ALTER TABLE f ADD COLUMN r2 REAL", "INSERT INTO f VALUES (1, 0.1, 0.1)")
	got := queryRows(t, db, "SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'rf' AND COLUMN_NAME LIKE 'r%' ORDER BY 1, 2")
	want := [][]string{{"d", "r", "double"}, {"f", "r", "float"}, {"f", "r2", "float"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("REAL columns: %v, want %v", got, want)
	}
	if got := queryRows(t, db, "SELECT COUNT (*), CONCAT ('a', MAX(r)) FROM rf.f"); !reflect.DeepEqual(got, [][]string{{"1", "a0.1"}}) {
		t.Fatalf("IGNORE_SPACE: %v", got)
	}
}

// A single-byte character set column counts characters: a latin1
// VARCHAR(5) takes 'Kälmx' (five characters, six bytes in UTF-8), through
// INSERT, UPDATE and the prepared write path, and refuses six.
func TestSingleByteColumnLength(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE sb", "CREATE TABLE sb.t (id INT PRIMARY KEY, c VARCHAR(5) CHARACTER SET latin1)")
	for _, q := range []string{"INSERT INTO sb.t VALUES (1, 'Kälmx')", "UPDATE sb.t SET c = 'Älmxé' WHERE id = 1"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := db.Exec("INSERT INTO sb.t VALUES (?, ?)", 2, "éééé"); err != nil {
		t.Fatalf("prepared insert: %v", err)
	}
	var me *mysql.MySQLError
	if _, err := db.Exec("INSERT INTO sb.t VALUES (3, 'Kälmxy')"); err == nil || !asMySQL(err, &me) || me.Number != 1406 {
		t.Fatalf("six characters into VARCHAR(5): %v, want 1406", err)
	}
	if got := queryRows(t, db, "SELECT c, CHAR_LENGTH(c) FROM sb.t ORDER BY id"); !reflect.DeepEqual(got, [][]string{{"Älmxé", "5"}, {"éééé", "4"}}) {
		t.Fatalf("rows %v", got)
	}
}

// TIME_TRUNCATE_FRACTIONAL cuts a fraction the column cannot hold where
// MySQL's default rounds it (MariaDB has no such flag, so the
// differential corpus cannot ask).
func TestTimeTruncateFractional(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE tf", "CREATE TABLE tf.t (id INT PRIMARY KEY, a DATETIME, b DATETIME(2))",
		"INSERT INTO tf.t VALUES (1, '2024-01-01 10:00:00.6', '2024-01-01 10:00:00.567')",
		"SET SESSION sql_mode = 'STRICT_TRANS_TABLES,TIME_TRUNCATE_FRACTIONAL'",
		"INSERT INTO tf.t VALUES (2, '2024-01-01 10:00:00.6', '2024-01-01 10:00:00.567')")
	got := queryRows(t, db, "SELECT a, b FROM tf.t ORDER BY id")
	want := [][]string{{"2024-01-01T10:00:01Z", "2024-01-01T10:00:00.57Z"}, {"2024-01-01T10:00:00Z", "2024-01-01T10:00:00.56Z"}}
	for i := range want {
		if got[i][0] != want[i][0] || got[i][1] != want[i][1] {
			t.Fatalf("row %d: %v, want %v", i+1, got[i], want[i])
		}
	}
}

// CAST(x AS TIME(n)) fits the value to n digits as MySQL does: rounded,
// cut under TIME_TRUNCATE_FRACTIONAL (MariaDB always cuts, so the
// differential corpus cannot ask).
func TestCastTimePrecision(t *testing.T) {
	_, c := sessionWith(t)
	ctx := context.Background()
	q := "SELECT CAST(CAST('10:00:00.56' AS TIME(1)) AS CHAR), CAST('10:00:00.5' AS TIME), CAST('10:00:00.56' AS TIME(1)) = '10:00:00.6'"
	for _, tc := range []struct{ mode, one, zero, eq string }{
		{"STRICT_TRANS_TABLES", "10:00:00.6", "10:00:01", "1"},
		{"STRICT_TRANS_TABLES,TIME_TRUNCATE_FRACTIONAL", "10:00:00.5", "10:00:00", "0"},
	} {
		if _, err := c.ExecContext(ctx, "SET SESSION sql_mode = '"+tc.mode+"'"); err != nil {
			t.Fatal(err)
		}
		var one, zero, eq string
		if err := c.QueryRowContext(ctx, q).Scan(&one, &zero, &eq); err != nil {
			t.Fatal(err)
		}
		if one != tc.one || zero != tc.zero || eq != tc.eq {
			t.Fatalf("%s: %s %s %s, want %s %s %s", tc.mode, one, zero, eq, tc.one, tc.zero, tc.eq)
		}
	}
}

// GET DIAGNOSTICS reads the previous statement's conditions into user
// variables, and leaves them in place.
func TestGetDiagnostics(t *testing.T) {
	_, c := sessionWith(t, "CREATE DATABASE gd", "USE gd", "CREATE TABLE t (id INT PRIMARY KEY, v TINYINT UNSIGNED)", "SET SESSION sql_mode = ''",
		"INSERT INTO t VALUES (1, 300), (2, 5), (3, -1)",
		"GET DIAGNOSTICS @n = NUMBER, @r = ROW_COUNT",
		"GET DIAGNOSTICS CONDITION 2 @e = MYSQL_ERRNO, @s = RETURNED_SQLSTATE, @m = MESSAGE_TEXT, @o = CLASS_ORIGIN")
	ctx := context.Background()
	var n, r, e int
	var s, m, o string
	if err := c.QueryRowContext(ctx, "SELECT @n, @r, @e, @s, @m, @o").Scan(&n, &r, &e, &s, &m, &o); err != nil {
		t.Fatal(err)
	}
	if n != 2 || r != 3 || e != 1264 || s != "22003" || !strings.Contains(m, "row 3") || o != "ISO 9075" {
		t.Fatalf("GET DIAGNOSTICS: NUMBER %d ROW_COUNT %d, condition 2: %d %s %q %s", n, r, e, s, m, o)
	}
	if _, err := c.ExecContext(ctx, "SELECT * FROM missing"); err == nil {
		t.Fatal("missing table read")
	}
	if _, err := c.ExecContext(ctx, "GET CURRENT DIAGNOSTICS CONDITION 1 @e = MYSQL_ERRNO, @s = RETURNED_SQLSTATE"); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRowContext(ctx, "SELECT @e, @s").Scan(&e, &s); err != nil {
		t.Fatal(err)
	}
	if e != 1146 || s != "42S02" {
		t.Fatalf("after a failed SELECT: %d %s, want 1146 42S02", e, s)
	}
}

// sessionWith starts a node and returns its pool and one session of it
// that ran qs in order (the diagnostics area is per session).
func sessionWith(t *testing.T, qs ...string) (*sql.DB, *sql.Conn) {
	t.Helper()
	_, open := startNode(t)
	db := open("")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, q := range qs {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db, c
}
