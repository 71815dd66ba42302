package node_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// Values where MySQL 8 and MariaDB 10.11 differ, so that the MariaDB
// corpus (e2e/semantics_test.go) cannot check them: each statement's
// outcome as MySQL 8 gives it, rows and warning codes (or the error).
func TestMySQL8ValuesWhereMariaDBDiffers(t *testing.T) {
	_, c := sessionWith(t, "CREATE DATABASE m8", "USE m8",
		"SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
		"CREATE TABLE t (id INT PRIMARY KEY, c INT, d DATE, KEY kd (d))",
		"INSERT INTO t VALUES (1, 1, '2000-01-01'), (2, 5, '2024-02-29')",
		"CREATE TABLE t2 LIKE t")
	for _, tc := range []struct{ q, want string }{
		// A day past its month's end is NULL with 1411 (MySQL's
		// check_date without ALLOW_INVALID_DATES; MariaDB 10.11 keeps
		// 2024-02-30); February 29 of a leap year is a date.
		{"SELECT STR_TO_DATE('2024-02-30', '%Y-%m-%d'), STR_TO_DATE('2023-02-29', '%Y-%m-%d'), CAST(STR_TO_DATE('2024-02-29', '%Y-%m-%d') AS CHAR)",
			"NULL|NULL|2024-02-29; 1411,1411"},
		{"SELECT STR_TO_DATE('31/04/2024 10:00:00', '%d/%m/%Y %H:%i:%s'), CAST(STR_TO_DATE('30/04/2024 10:00:00', '%d/%m/%Y %H:%i:%s') AS CHAR)",
			"NULL|2024-04-30 10:00:00; 1411"},
		// A hexadecimal literal cast to DECIMAL is a number (MariaDB
		// reads it as the string 'A': 0 with 1292).
		{"SELECT CAST(X'41' AS DECIMAL)", "65"},
		// Trailing spaces are no truncation (MariaDB notes 1292).
		{"SELECT CAST('  2.5  ' AS DECIMAL(4,1)), CAST('2.5 ' AS DOUBLE)", "2.5|2.5"},
		// A string literal that is no date or number compared with a
		// date or number column: the zero date or its leading number,
		// with 1292 once per literal (MariaDB warns twice for an IN
		// list, and not at all through an index: `d = 'zz'` over kd);
		// in a statement that changes rows under strict mode, MySQL 8's
		// error 1292 (WL#6891; MariaDB's DELETE and INSERT ... SELECT
		// only warn).
		{"SELECT id FROM t WHERE d IN ('a', '2024-02-29', 'b')", "2; 1292,1292"},
		{"SELECT id FROM t WHERE id = 'abc'", "; 1292"},
		{"DELETE FROM t WHERE id = '1x'", "error 1292"},
		{"DELETE FROM t WHERE d < 'q'", "error 1292"},
		{"UPDATE t SET c = 0 WHERE d = 'zz'", "error 1292"},
		{"INSERT INTO t2 SELECT * FROM t WHERE id = '1x'", "error 1292"},
		{"SELECT COUNT(*) FROM t2", "0"},
		// A string column compared with a number: text that is no
		// number fails a strict DELETE (MariaDB only warns).
		{"CREATE TABLE s (id INT PRIMARY KEY, v VARCHAR(10))", ""},
		{"INSERT INTO s VALUES (1, 'abc'), (2, '5')", ""},
		{"DELETE FROM s WHERE v = 5", "error 1292"},
		{"SELECT id FROM s WHERE v = 5", "2; 1292"},
		{"SET SESSION sql_mode = ''", ""},
		{"UPDATE t SET c = 0 WHERE d = 'zz'", "; 1292"},
		{"DELETE FROM t WHERE id = '1x'", "; 1292"},
		{"DELETE FROM s WHERE v = 5", "; 1292"},
		{"SELECT id FROM s", "1"},
		{"SELECT id FROM t", "2"},
		// INSERT ... AS alias ON DUPLICATE KEY UPDATE (MySQL 8.0.19;
		// MariaDB has no row alias): an unqualified column of the update
		// list is the table's, one of the alias's column list the new
		// row's (rewrite/odkualias.go; GMS: 1105 "ambiguous column").
		{"CREATE TABLE kv (k VARCHAR(10) PRIMARY KEY, v INT, n INT DEFAULT 0)", ""},
		{"INSERT INTO kv VALUES ('a', 1, 0)", ""},
		{"INSERT INTO kv (k, v) VALUES ('b', 2), ('a', 3) AS new ON DUPLICATE KEY UPDATE v = new.v + kv.v, n = n + 1", ""},
		{"SELECT k, v, n FROM kv ORDER BY k", "a|4|1/b|2|0"},
		{"INSERT INTO kv (k, v) VALUES ('a', 10) AS nw(kk, vv) ON DUPLICATE KEY UPDATE v = vv + v, n = n + 1", ""},
		{"SELECT v, n FROM kv WHERE k = 'a'", "14|2"},
	} {
		if got := m8Outcome(t, c, tc.q); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.q, got, tc.want)
		}
	}
}

// m8Outcome runs q on c: its rows (columns joined by |, rows by /), then
// after "; " its warnings' codes, or "error N".
func m8Outcome(t *testing.T, c *sql.Conn, q string) string {
	t.Helper()
	ctx := context.Background()
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return fmt.Sprintf("error %d", me.Number)
		}
		t.Fatalf("%s: %v", q, err)
	}
	var lines []string
	for _, r := range scanRows(t, rows) {
		lines = append(lines, strings.Join(r, "|"))
	}
	rows.Close()
	out := strings.Join(lines, "/")
	w, err := c.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, r := range scanRows(t, w) {
		codes = append(codes, r[1])
	}
	w.Close()
	if len(codes) > 0 {
		out += "; " + strings.Join(codes, ",")
	}
	return out
}
