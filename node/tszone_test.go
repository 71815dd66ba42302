package node_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A TIMESTAMP is stored as UTC and read in the reader's time_zone, as
// MySQL's (sqlengine/tszone.go): written at '+00:00' as 12:00:00.5 it
// reads 17:30:00.5 at '+05:30', through a prepared point read (a fast
// path under UTC) as through GMS; a prepared INSERT at '+05:30' of
// 12:00:00 stores 06:30:00 UTC; an index lookup by a '+05:30' value
// finds the row; UNIX_TIMESTAMP is the same instant in every zone; the
// binlog's row events carry the UTC instant (mariadb-binlog prints
// TIMESTAMP2 as seconds since the epoch).
func TestTimestampFollowsTimeZone(t *testing.T) {
	dir := t.TempDir()
	_, db := openTestNode(t, filepath.Join(dir, "n"), nil)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	one := func(q string, args ...any) string {
		t.Helper()
		var s string
		if err := c.QueryRowContext(ctx, q, args...).Scan(&s); err != nil {
			t.Fatalf("%s %v: %v", q, args, err)
		}
		return s
	}
	mustConnExec(t, c, "CREATE DATABASE tz",
		"CREATE TABLE tz.t (id INT PRIMARY KEY, ts TIMESTAMP(1) NULL, dt DATETIME(1) NULL, KEY k_ts (ts))",
		"SET time_zone = '+00:00'",
		"INSERT INTO tz.t VALUES (1, '2020-06-01 12:00:00.5', '2020-06-01 12:00:00.5')")
	mustConnExec(t, c, "SET time_zone = '+05:30'")
	for i := 0; i < 3; i++ { // prepared: planned, then the plan reused
		if got := one("SELECT ts FROM tz.t WHERE id = ?", 1); got != "2020-06-01 17:30:00.5" {
			t.Fatalf("prepared read at +05:30 (run %d): %s, want 2020-06-01 17:30:00.5", i, got)
		}
	}
	if got := one("SELECT CONCAT(ts, '|', dt, '|', UNIX_TIMESTAMP(ts)) FROM tz.t WHERE id = 1"); got != "2020-06-01 17:30:00.5|2020-06-01 12:00:00.5|1591012800.5" {
		t.Fatalf("text read at +05:30: %s", got)
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO tz.t VALUES (?, ?, ?)", 2, "2020-06-01 12:00:00", "2020-06-01 12:00:00"); err != nil {
		t.Fatal(err)
	}
	if got := one("SELECT GROUP_CONCAT(id ORDER BY id) FROM tz.t FORCE INDEX (k_ts) WHERE ts = ?", "2020-06-01 17:30:00.5"); got != "1" {
		t.Fatalf("index lookup by a +05:30 value: %s, want 1", got)
	}
	if got := one("SELECT GROUP_CONCAT(id ORDER BY id) FROM tz.t WHERE ts BETWEEN '2020-06-01 12:00:00' AND '2020-06-01 17:30:00'"); got != "2" {
		t.Fatalf("range at +05:30: %s, want 2", got)
	}
	if _, err := c.ExecContext(ctx, "UPDATE tz.t SET dt = ts WHERE id = ?", 1); err != nil {
		t.Fatal(err)
	}
	mustConnExec(t, c, "SET time_zone = '+00:00'")
	got := [][]string{}
	rows, err := c.QueryContext(ctx, "SELECT id, ts, dt, UNIX_TIMESTAMP(ts) FROM tz.t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a, b, d, e string
		if err := rows.Scan(&a, &b, &d, &e); err != nil {
			t.Fatal(err)
		}
		got = append(got, []string{a, b, d, e})
	}
	rows.Close()
	want := [][]string{
		{"1", "2020-06-01 12:00:00.5", "2020-06-01 17:30:00.5", "1591012800.5"},
		{"2", "2020-06-01 06:30:00.0", "2020-06-01 12:00:00.0", "1590993000.0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("at +00:00: %v, want %v", got, want)
	}

	var files []string
	for _, r := range queryRows(t, db, "SHOW BINARY LOGS") {
		files = append(files, filepath.Join(dir, "n", "binlog", r[0]))
	}
	out, err := exec.Command("mariadb-binlog", append([]string{"--verbose", "--base64-output=DECODE-ROWS"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-binlog: %v\n%.2000s", err, out)
	}
	for _, w := range []string{"@2=1591012800.5", "@2=1590993000.0"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("mariadb-binlog does not show %s (the UTC instant) in the row events:\n%.3000s", w, out)
		}
	}
}
