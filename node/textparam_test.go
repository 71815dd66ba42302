package node_test

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// textOutcome is what a client sees of one text statement: result
// columns with their types, rows, rows affected, error number and
// warning count.
type textOutcome struct {
	cols     string
	rows     [][]string
	affected int64
	errno    uint16
	warnings string
}

// runText runs each statement as text (no parameters: the text
// protocol) twice in a row, so that the second runs on the shape the
// first planned, on table TBL renamed to table.
func runText(t *testing.T, db *sql.DB, table string, stmts []string) []textOutcome {
	t.Helper()
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var out []textOutcome
	for _, s := range stmts {
		q := strings.ReplaceAll(s, "TBL", table)
		for range 2 {
			var o textOutcome
			if strings.HasPrefix(q, "SELECT") || strings.HasPrefix(q, "select") {
				rows, err := conn.QueryContext(t.Context(), q)
				if err == nil {
					cts, _ := rows.ColumnTypes()
					for _, ct := range cts {
						l, _ := ct.Length()
						p, sc, _ := ct.DecimalSize()
						nul, _ := ct.Nullable()
						o.cols += fmt.Sprintf("%s %s %d %d,%d %v; ", ct.Name(), ct.DatabaseTypeName(), l, p, sc, nul)
					}
					o.rows = scanRows(t, rows)
					err = rows.Err()
					rows.Close()
				}
				o.errno = errnoOf(t, q, err)
			} else {
				res, err := conn.ExecContext(t.Context(), q)
				if err == nil {
					o.affected, _ = res.RowsAffected()
				}
				o.errno = errnoOf(t, q, err)
			}
			r, err := conn.QueryContext(t.Context(), "SHOW WARNINGS")
			if err != nil {
				t.Fatal(err)
			}
			o.warnings = fmt.Sprint(scanRows(t, r))
			r.Close()
			out = append(out, o)
		}
	}
	return out
}

func errnoOf(t *testing.T, q string, err error) uint16 {
	t.Helper()
	if err == nil {
		return 0
	}
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("%s: %v", q, err)
	}
	return me.Number
}

// TestTextLiteralsMatchGMS runs text statements with literals (as
// applications that interpolate client-side send them) with the fast
// paths on, where the second of each pair runs on the planned shape,
// and with them off on a twin table, and compares everything the client
// saw and the tables' rows. It also asserts that the shapes did take the
// fast paths.
func TestTextLiteralsMatchGMS(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE tl")
	for _, tb := range []string{"tl.a", "tl.b"} {
		mustExec(t, db, "CREATE TABLE "+tb+` (w INT NOT NULL, d TINYINT NOT NULL, id BIGINT UNSIGNED NOT NULL,
			k INT, c CHAR(10) COLLATE utf8mb4_general_ci, v VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, m DECIMAL(8,2), f DOUBLE,
			PRIMARY KEY (w, d, id), KEY kc (c, k), KEY kv (v))`)
		for i := 1; i <= 40; i++ {
			mustExec(t, db, fmt.Sprintf("INSERT INTO %s VALUES (%d, %d, %d, %d, '%s', '%s', %d.25, %d.5)", tb,
				i%3, i%4, i, i*7%11, []string{"ab", "AB ", "b", "é", "E"}[i%5], []string{"x", "X", "x ", "y"}[i%4], i, i))
		}
	}
	stmts := []string{
		"SELECT k, c, m, f FROM TBL WHERE w = 1 AND d = 1 AND id = 1",
		"SELECT k, c, m, f FROM TBL WHERE id = 5 AND w = 2 AND d = 1",
		"SELECT k FROM TBL WHERE w = 1 AND d = 1 AND id = 99",
		"SELECT k FROM TBL WHERE w = 1 AND d = 1 AND id = 18446744073709551615",
		"SELECT k FROM TBL WHERE w = 1 AND d = 300 AND id = 1",
		"SELECT k FROM TBL WHERE w = '1' AND d = 1 AND id = 1",
		"SELECT k, m FROM TBL WHERE (w, d, id) IN ((1, 1, 1), (2, 1, 5), (0, 0, 12), (1, 1, 1))",
		"SELECT id, k FROM TBL WHERE w = 1 AND d = 1 ORDER BY id DESC LIMIT 2",
		"SELECT COUNT(*) FROM TBL WHERE w = 2",
		"SELECT id FROM TBL WHERE c = 'ab' ORDER BY k",
		"SELECT id FROM TBL WHERE c = 'AB' ORDER BY k",
		"SELECT id FROM TBL WHERE c = 'e'",
		"SELECT id FROM TBL WHERE v = 'x'",
		"SELECT id FROM TBL WHERE v = 'x '",
		"SELECT id FROM TBL WHERE c = 'it''s'",
		"SELECT id FROM TBL WHERE k = 3",
		"SELECT id FROM TBL WHERE c = 0",
		"SELECT id FROM TBL WHERE v = 0 ORDER BY id",
		"SELECT id, 7, 'lit' FROM TBL WHERE w = 0 AND d = 0 AND id = 12",
		"SELECT id FROM TBL WHERE w = 0 AND d = 0 AND id = 12 AND k = 1",
		"UPDATE TBL SET k = k + 1 WHERE w = 1 AND d = 1 AND id = 1",
		"UPDATE TBL SET k = k + 1 WHERE w = 1 AND d = 1 AND id = 99",
		"UPDATE TBL SET m = m - 1.5, c = 'zz' WHERE w = 2 AND d = 1 AND id = 5",
		"UPDATE TBL SET d = 200 WHERE w = 1 AND d = 2 AND id = 10",
		"UPDATE TBL SET k = 2147483647 + 1 WHERE w = 1 AND d = 2 AND id = 10",
		"UPDATE TBL SET c = 'longer than ten', k = 1 WHERE w = 1 AND d = 1 AND id = 1",
		"UPDATE TBL SET k = '12abc' WHERE w = 1 AND d = 1 AND id = 1",
		"UPDATE TBL SET k = '  42' WHERE w = 1 AND d = 1 AND id = 1",
		"UPDATE TBL SET v = 'é', k = 9223372036854775807 WHERE w = 1 AND d = 1 AND id = 1",
		"UPDATE TBL SET f = 3, m = 7 WHERE w = 2 AND d = 1 AND id = 5",
		"UPDATE TBL SET c = 'q' WHERE w = 2 AND d = 1 AND id = 5",
		"UPDATE TBL SET c = 'q' WHERE w = 2 AND d = 1 AND id = 5",
		"UPDATE TBL SET k = NULL WHERE w = 2 AND d = 1 AND id = 5",
		"DELETE FROM TBL WHERE w = 0 AND d = 3 AND id = 15",
		"DELETE FROM TBL WHERE (w, d, id) IN ((1, 3, 7), (2, 3, 11))",
		"SELECT w, d, id, k, c, v, m, f FROM TBL WHERE w = 1 AND d = 1 AND id = 1 FOR UPDATE",
	}
	n.SQL().SetFastWrites(true)
	before := statusInt(t, db, "Petrel_fast_path_reads") + fastCount(t, db)
	got := runText(t, db, "tl.a", stmts)
	used := statusInt(t, db, "Petrel_fast_path_reads") + fastCount(t, db) - before
	n.SQL().SetFastWrites(false)
	want := runText(t, db, "tl.b", stmts)
	n.SQL().SetFastWrites(true)
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s (run %d):\nfast %+v\nGMS  %+v", stmts[i/2], i%2+1, got[i], want[i])
		}
	}
	a := queryRows(t, db, "SELECT * FROM tl.a ORDER BY w, d, id")
	b := queryRows(t, db, "SELECT * FROM tl.b ORDER BY w, d, id")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("rows differ:\nfast %v\nGMS  %v", a, b)
	}
	// Of the second runs, these must have taken a fast path: the point
	// reads, the IN list, the prefix reads and counts, the updates and
	// deletes by key.
	if used < 20 {
		t.Errorf("%d statements took a fast path, want at least 20", used)
	}
	t.Logf("%d of %d statements on fast paths", used, 2*len(stmts))
}
