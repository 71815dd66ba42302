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
		"SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'")
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
		{"SELECT CAST('  2.5  ' AS DECIMAL(4,1))", "2.5"},
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
