package node_test

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"petrel/node"

	"github.com/go-sql-driver/mysql"
)

// fastStep is one prepared statement with its arguments.
type fastStep struct {
	q    string
	args []any
}

// outcome is what a client sees of a statement.
type outcome struct {
	affected int64
	errno    uint16
}

func runSteps(t *testing.T, db *sql.DB, table string, steps []fastStep) []outcome {
	t.Helper()
	var out []outcome
	for _, s := range steps {
		q := strings.ReplaceAll(s.q, "TBL", table)
		st, err := db.Prepare(q)
		if err != nil {
			t.Fatalf("prepare %s: %v", q, err)
		}
		res, err := st.Exec(s.args...)
		st.Close()
		var o outcome
		if err != nil {
			var me *mysql.MySQLError
			if !errors.As(err, &me) {
				t.Fatalf("%s %v: %v", q, s.args, err)
			}
			o.errno = me.Number
		} else {
			o.affected, _ = res.RowsAffected()
		}
		out = append(out, o)
	}
	return out
}

// TestFastWritesMatchGMS runs the same prepared writes through the fast
// path and through GMS (fast path off) on twin tables, and compares what
// clients see (rows affected, error codes) and the resulting rows.
func TestFastWritesMatchGMS(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE fw")
	for _, tb := range []string{"fw.a", "fw.b"} {
		mustExec(t, db, "CREATE TABLE "+tb+` (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0,
			c CHAR(20) NOT NULL DEFAULT '', pad CHAR(10) NOT NULL DEFAULT '', v VARCHAR(8), d DECIMAL(8,2),
			dt DATETIME(3), j JSON, e ENUM('x','y'), u TINYINT UNSIGNED, PRIMARY KEY (id), KEY k_k (k))`)
	}
	cols := "(id, k, c, pad, v, d, dt, j, e, u)"
	qs := "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	steps := []fastStep{
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{1, 10, "c-one", "p1", "v", "1.50", "2026-01-02 03:04:05.678", `{"a": 1}`, "x", 7}},
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{2, 20, "c-two", "p2", nil, nil, nil, nil, nil, nil}},
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{3, 30, "c-three  ", " p3 ", "vvvvvvvv", "-2.25", "1999-12-31 23:59:59", `[1, "x"]`, "y", 255}},
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{1, 1, "dup", "dup", nil, nil, nil, nil, nil, nil}},                   // duplicate key
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{4, 1, "too long for char twenty", "", nil, nil, nil, nil, nil, nil}}, // too long
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{5, 1, "x", "", nil, nil, nil, nil, nil, 256}},                        // out of range
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{6, nil, "x", "", nil, nil, nil, nil, nil, nil}},                      // NULL into NOT NULL
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{0, 5, "auto", "", nil, nil, nil, nil, nil, nil}},                     // auto-increment allocates
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{7, 5, "e-bad", "", nil, nil, nil, nil, "z", nil}},                    // bad enum
		{"UPDATE TBL SET k = k + 1 WHERE id = ?", []any{1}},
		{"UPDATE TBL SET k = k + 1 WHERE id = ?", []any{99}}, // no such row
		{"UPDATE TBL SET c = ? WHERE id = ?", []any{"changed", 2}},
		{"UPDATE TBL SET c = ? WHERE id = ?", []any{"changed", 2}}, // no change
		{"UPDATE TBL SET c = ?, v = ?, u = ? WHERE id = ?", []any{"multi", "w", 9, 3}},
		{"UPDATE TBL SET u = ? WHERE id = ?", []any{300, 3}},            // out of range
		{"UPDATE TBL SET k = k + ? WHERE id = ?", []any{2147483647, 1}}, // overflow
		{"UPDATE TBL SET k = k + ? WHERE id = ?", []any{-5, 2}},
		{"DELETE FROM TBL WHERE id = ?", []any{3}},
		{"DELETE FROM TBL WHERE id = ?", []any{3}}, // already gone
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{3, 33, "back", "", nil, nil, nil, nil, nil, nil}},
		// Explicit transactions: committed, and rolled back.
		{"BEGIN", nil},
		{"UPDATE TBL SET k = k + 1 WHERE id = ?", []any{3}},
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{10, 100, "in txn", "", nil, nil, nil, nil, nil, nil}},
		{"INSERT INTO TBL " + cols + " VALUES " + qs, []any{10, 100, "dup in txn", "", nil, nil, nil, nil, nil, nil}},
		{"COMMIT", nil},
		{"START TRANSACTION", nil},
		{"DELETE FROM TBL WHERE id = ?", []any{10}},
		{"UPDATE TBL SET c = ? WHERE id = ?", []any{"rolled back", 1}},
		{"ROLLBACK", nil},
		{"COMMIT", nil},
	}
	used, _ := fastAgainstGMS(t, n, db, steps, "fw.a", "fw.b", "id")
	if used < 10 {
		t.Errorf("only %d statements took the fast path", used)
	}
	t.Logf("%d of %d statements took the fast path", used, len(steps))
	n.SQL().SetFastWrites(true)
}

func fastCount(t *testing.T, db *sql.DB) int64 { return statusInt(t, db, "Petrel_fast_path_writes") }

func statusInt(t *testing.T, db *sql.DB, name string) int64 {
	t.Helper()
	var n string
	var v int64
	if err := db.QueryRow("SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFastRangeMatchesGMS compares sysbench's range selects (and
// variants) answered by the range fast path with GMS's answers.
func TestFastRangeMatchesGMS(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE fr",
		"CREATE TABLE fr.t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(20) NOT NULL, g VARCHAR(10) COLLATE utf8mb4_general_ci, h VARCHAR(10) COLLATE utf8mb4_bin)")
	for i := 1; i <= 60; i++ {
		c := []string{"b", "a", "B", "c", "a ", "ä"}[i%6] + strings.Repeat("x", i%3)
		mustExec(t, db, "INSERT INTO fr.t VALUES ("+itoa(i)+", "+itoa(i*7%13-5)+", '"+c+"', '"+strings.ToUpper(c[:1])+"', '"+c+"')")
	}
	queries := []string{
		"SELECT c FROM fr.t WHERE id BETWEEN ? AND ?",
		"SELECT SUM(k) FROM fr.t WHERE id BETWEEN ? AND ?",
		"SELECT c FROM fr.t WHERE id BETWEEN ? AND ? ORDER BY c",
		"SELECT DISTINCT c FROM fr.t WHERE id BETWEEN ? AND ? ORDER BY c",
		"SELECT g FROM fr.t WHERE id BETWEEN ? AND ? ORDER BY g",
		"SELECT DISTINCT g FROM fr.t WHERE id BETWEEN ? AND ? ORDER BY g",
		"SELECT h FROM fr.t WHERE id BETWEEN ? AND ? ORDER BY h",
		"SELECT DISTINCT h FROM fr.t WHERE id BETWEEN ? AND ? ORDER BY h",
	}
	ranges := [][2]any{{1, 60}, {10, 20}, {20, 10}, {61, 70}, {-5, 3}, {59, 59}}
	run := func() [][][]string {
		var out [][][]string
		for _, q := range queries {
			st, err := db.Prepare(q)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range ranges {
				rows, err := st.Query(r[0], r[1])
				if err != nil {
					t.Fatalf("%s %v: %v", q, r, err)
				}
				var got [][]string
				for rows.Next() {
					var v sql.NullString
					rows.Scan(&v)
					got = append(got, []string{v.String, fmt.Sprint(v.Valid)})
				}
				rows.Close()
				out = append(out, got)
			}
			st.Close()
		}
		return out
	}
	n.SQL().SetFastWrites(true)
	before := statusInt(t, db, "Petrel_fast_path_reads")
	fast := run()
	if used := statusInt(t, db, "Petrel_fast_path_reads") - before; used != int64(len(queries)*len(ranges)) {
		t.Errorf("%d of %d range selects took the fast path", used, len(queries)*len(ranges))
	}
	n.SQL().SetFastWrites(false)
	slow := run()
	n.SQL().SetFastWrites(true)
	for i := range fast {
		if !reflect.DeepEqual(fast[i], slow[i]) {
			t.Errorf("%s %v:\nfast %v\nGMS  %v", queries[i/len(ranges)], ranges[i%len(ranges)], fast[i], slow[i])
		}
	}
}

func itoa(i int) string { return fmt.Sprint(i) }

// fastAgainstGMS runs steps on table fast with the fast paths on and on
// table slow with them off (twin tables), compares what clients saw and
// the tables' rows (ordered by order), and returns how many writes took
// the fast path and the fast table's rows.
func fastAgainstGMS(t *testing.T, n *node.Node, db *sql.DB, steps []fastStep, fast, slow, order string) (int64, [][]string) {
	t.Helper()
	n.SQL().SetFastWrites(true)
	before := fastCount(t, db)
	got := runSteps(t, db, fast, steps)
	used := fastCount(t, db) - before
	n.SQL().SetFastWrites(false)
	want := runSteps(t, db, slow, steps)
	n.SQL().SetFastWrites(true)
	for i := range steps {
		if got[i] != want[i] {
			t.Errorf("step %d %q %v: fast path %+v, GMS %+v", i, steps[i].q, steps[i].args, got[i], want[i])
		}
	}
	a := queryRows(t, db, "SELECT * FROM "+fast+" ORDER BY "+order)
	b := queryRows(t, db, "SELECT * FROM "+slow+" ORDER BY "+order)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("rows differ:\nfast %v\nGMS  %v", a, b)
	}
	return used, a
}
