package node_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestFastDecimalRoundingMatchesGMS: DOUBLE parameters with more
// fractional digits than a DECIMAL column keeps (TPC-C's order line
// amounts: a price times a quantity), stored by the write fast path,
// are rounded to the column's scale with the notes GMS files (1265,
// numbered by the INSERT's row, row 1 for an UPDATE), the same rows
// affected and the same rows stored, and the statements take the fast
// path; out-of-range values are still GMS's (error 1264).
func TestFastDecimalRoundingMatchesGMS(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE fr")
	for _, tb := range []string{"fr.a", "fr.b"} {
		mustExec(t, db, "CREATE TABLE "+tb+` (w INT NOT NULL, id INT NOT NULL, amt DECIMAL(6,2), bal DECIMAL(12,2) NOT NULL,
			cnt INT NOT NULL, PRIMARY KEY (w, id))`)
	}
	ins3 := "INSERT INTO TBL (w, id, amt, bal, cnt) VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)"
	steps := []fastStep{
		{ins3, []any{1, 1, 3 * 45.67, 10.0, 0, 1, 2, 5.5, -10.0, 0, 1, 3, 2.005, 0.125, 0}}, // rows 1 and 3 round, bal 0.125 too
		{ins3, []any{1, 4, 1.0, 1.0, 0, 1, 5, 0.1 + 0.2, 1.0, 0, 1, 6, 7.0, 1.0, 0}},        // row 2: 0.30000000000000004
		{ins3, []any{2, 1, 9999.994, 1.0, 0, 2, 2, 9999.995, 1.0, 0, 2, 3, 1.0, 1.0, 0}},    // 9999.995 rounds out of range: GMS's
		{"UPDATE TBL SET bal = bal - ?, cnt = cnt + 1 WHERE w = ? AND id = ?", []any{2345.678, 1, 1}},
		{"UPDATE TBL SET bal = bal + ? WHERE w = ? AND id = ?", []any{0.1, 1, 5}}, // 1.00 + 0.1: a DOUBLE sum, exact
		{"UPDATE TBL SET amt = ? WHERE (w, id) IN ((?, ?), (?, ?))", []any{1.004, 1, 4, 1, 6}},
		{"UPDATE TBL SET amt = ? WHERE w = ? AND id = ?", []any{1.001, 1, 4}}, // rounds to the value it has
		{"INSERT INTO TBL (w, id, amt, bal, cnt) VALUES (?, ?, ?, ?, ?)", []any{3, 1, 1.5, 1e12, 0}},
	}
	run := func(tb string, fast bool) ([]string, int64) {
		n.SQL().SetFastWrites(fast)
		defer n.SQL().SetFastWrites(true)
		before := fastCount(t, db)
		var out []string
		for _, s := range steps {
			q := strings.ReplaceAll(s.q, "TBL", tb)
			res, err := db.Exec(q, s.args...)
			var affected int64
			if err == nil {
				affected, _ = res.RowsAffected()
			}
			out = append(out, fmt.Sprintf("%s %v: affected %d, err %v, warnings %v", s.q, s.args, affected,
				strings.ReplaceAll(fmt.Sprint(err), tb, "TBL"), queryRows(t, db, "SHOW WARNINGS")))
		}
		out = append(out, fmt.Sprint(queryRows(t, db, "SELECT * FROM "+tb+" ORDER BY w, id")))
		return out, fastCount(t, db) - before
	}
	fast, used := run("fr.a", true)
	slow, _ := run("fr.b", false)
	for i := range fast {
		if fast[i] != slow[i] {
			t.Errorf("step %d:\nfast %s\nGMS  %s", i, fast[i], slow[i])
		}
	}
	if !strings.Contains(fast[0], "Data truncated for column 'amt' at row 3") || !strings.Contains(fast[0], "Data truncated for column 'bal' at row 3") {
		t.Errorf("first INSERT: %s; want notes for amt and bal at row 3", fast[0])
	}
	// Every statement but the out-of-range INSERTs (9999.995 and 1e12)
	// takes the fast path.
	if want := int64(len(steps) - 2); used != want {
		t.Errorf("%d statements took the fast path, want %d", used, want)
	}
	if reflect.DeepEqual(fast, slow) {
		t.Logf("%d of %d statements took the fast path", used, len(steps))
	}
}
