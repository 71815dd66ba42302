package node_test

import (
	"fmt"
	"testing"
)

// TestWindowFrameAggregates: an aggregate over a window frame is the
// aggregate of the frame's rows (sqlengine/functions/windowagg.go). GMS
// panicked on ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING (slice bounds,
// caught: 1105), answered NaN for AVG of an empty frame and 0 for SUM of
// NULLs, and computed windowed AVG of DOUBLEs by subtracting prefix sums
// (0.15000000000000002 read 0.15000000000000013). MySQL 8 sums a moving
// frame of DOUBLEs anew for each row (windowing_use_high_precision=ON by
// default), where MariaDB subtracts the row leaving the frame
// (0.10000000000000009 for AVG of {NULL, 0.1}).
func TestWindowFrameAggregates(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE wa", "USE wa",
		"CREATE TABLE t (id INT PRIMARY KEY, v INT, d DOUBLE)",
		"INSERT INTO t VALUES (1, 10, 1.5), (2, NULL, NULL), (3, 30, 2.25), (4, NULL, NULL), (5, 7, 0.1), (6, 8, 0.2)")
	got := fmt.Sprint(queryRows(t, db, "SELECT id, SUM(v) OVER w0, COUNT(v) OVER w0, AVG(v) OVER w0, MIN(v) OVER w0, MAX(d) OVER w0, "+
		"SUM(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), AVG(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), "+
		"AVG(d) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t WINDOW w0 AS (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING) ORDER BY id"))
	want := "[[1 NULL 0 NULL NULL NULL 10 10.0000 1.5] [2 NULL 0 NULL NULL NULL 10 10.0000 1.5] [3 NULL 0 NULL NULL NULL 30 30.0000 2.25] " +
		"[4 NULL 0 NULL NULL NULL 30 30.0000 2.25] [5 NULL 0 NULL NULL NULL 7 7.0000 0.1] [6 NULL 0 NULL NULL NULL 15 7.5000 0.15000000000000002]]"
	if got != want {
		t.Errorf("frames:\n got %s\nwant %s", got, want)
	}
}

// TestWindowCalls: NTH_VALUE and CUME_DIST, which GMS lacked (1305), and
// BIT_OR OVER a window (GMS evaluated it per row: 1105), as MySQL 8
// answers them (sqlengine/functions/windowcalls.go). MySQL 8's CUME_DIST
// is a DOUBLE, 1 for every row without ORDER BY (all rows are peers),
// where MariaDB refuses a window without ORDER BY (4018) and types it
// DECIMAL; MySQL's NTH_VALUE takes a positive integer literal N, else
// 1210, where MariaDB answers NULL for 0 and reads a column's value.
func TestWindowCalls(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE wc", "USE wc",
		"CREATE TABLE t (id INT PRIMARY KEY, g INT, v INT)",
		"INSERT INTO t VALUES (1, 1, 10), (2, 1, NULL), (3, 1, 30), (4, 2, NULL), (5, 2, 7), (6, 2, 8), (7, 3, NULL)")
	got := fmt.Sprint(queryRows(t, db, "SELECT id, CUME_DIST() OVER (ORDER BY g), CUME_DIST() OVER (PARTITION BY g ORDER BY v DESC), CUME_DIST() OVER (), "+
		"NTH_VALUE(id, 2) OVER (PARTITION BY g ORDER BY id), BIT_OR(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t ORDER BY id"))
	want := "[[1 0.42857142857142855 0.6666666666666666 1 NULL 10] [2 0.42857142857142855 1 1 2 10] [3 0.42857142857142855 0.3333333333333333 1 2 30] " +
		"[4 0.8571428571428571 1 1 NULL 30] [5 0.8571428571428571 0.6666666666666666 1 5 7] [6 0.8571428571428571 0.3333333333333333 1 5 15] [7 1 1 1 NULL 8]]"
	if got != want {
		t.Errorf("window calls:\n got %s\nwant %s", got, want)
	}
	for _, q := range []string{"SELECT NTH_VALUE(v, 0) OVER () FROM t", "SELECT NTH_VALUE(v, id) OVER () FROM t", "SELECT NTH_VALUE(v, -1) OVER () FROM t"} {
		if _, err := db.Exec(q); errno(t, err) != 1210 {
			t.Errorf("%s: %v, want error 1210", q, err)
		}
	}
}

// TestWindowFunctionPlacement: a window function where MySQL 8 allows
// none is its error 3593 (in an aggregate's or another window function's
// argument, WHERE, GROUP BY, HAVING, UPDATE's SET, DELETE's WHERE) or
// 3595 (in a window's ORDER BY);
// GMS answered an aggregate of a window with its ONLY_FULL_GROUP_BY error
// unformatted (1140, "expression #%!d(MISSING)"). MariaDB's numbers are
// 4074 and 4015. A subquery's select list may hold one. DISTINCT in a
// window function's call is MySQL's 1235 (GMS counted every row for
// COUNT(DISTINCT v) OVER ()), as MariaDB's.
func TestWindowFunctionPlacement(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE wp", "USE wp", "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 5), (2, 6)")
	for q, want := range map[string]uint16{
		"SELECT MIN(SUM(v) OVER (ORDER BY id)) FROM t":                      3593,
		"SELECT SUM(v) FROM t WHERE ROW_NUMBER() OVER () > 1":               3593,
		"SELECT v FROM t GROUP BY v HAVING RANK() OVER (ORDER BY v) > 1":    3593,
		"SELECT COUNT(*) FROM t GROUP BY ROW_NUMBER() OVER ()":              3593,
		"SELECT SUM(RANK() OVER (ORDER BY id)) OVER () FROM t":              3593,
		"SELECT AVG(NTH_VALUE(v, 1) OVER ()) FROM t":                        3593,
		"SELECT NTH_VALUE(v, 1) OVER (ORDER BY CUME_DIST() OVER ()) FROM t": 3595,
		"SELECT id, (SELECT SUM(ROW_NUMBER() OVER ()) FROM t) FROM t":       3593,
		"SELECT COUNT(DISTINCT v) OVER () FROM t":                           1235,
		"SELECT SUM(DISTINCT v) OVER (ORDER BY id) FROM t":                  1235,
		"UPDATE t SET v = ROW_NUMBER() OVER ()":                             3593,
		"DELETE FROM t WHERE RANK() OVER (ORDER BY id) = 1":                 3593,
	} {
		if _, err := db.Exec(q); errno(t, err) != want {
			t.Errorf("%s: %v, want error %d", q, err, want)
		}
	}
	if got := fmt.Sprint(queryRows(t, db, "SELECT id, (SELECT MAX(r) FROM (SELECT ROW_NUMBER() OVER () r FROM t) d) FROM t WHERE id IN (SELECT ROW_NUMBER() OVER () FROM t) ORDER BY id")); got != "[[1 2] [2 2]]" {
		t.Errorf("window functions in subqueries: %s", got)
	}
}

// TestWindowsOverGroups: window functions over grouped rows
// (sqlengine/rewrite/windowgroup.go; GMS failed: 1105 "unable to find
// field with index"), under ONLY_FULL_GROUP_BY a window's argument that
// is no grouped column refused as MySQL 8 refuses it (1055; MariaDB
// does not check); and CREATE TABLE ... AS SELECT with window functions
// names its columns by their text (rewrite/windowcalls.go; GMS named
// them by its plan's text, too long: 1105 "invalid identifier").
func TestWindowsOverGroups(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE wg", "USE wg", "CREATE TABLE t (id INT PRIMARY KEY, g INT, v INT)",
		"INSERT INTO t VALUES (1, 1, 10), (2, 1, NULL), (3, 1, 30), (4, 2, NULL), (5, 2, 7), (6, 2, 8), (7, 3, NULL)")
	if got := fmt.Sprint(queryRows(t, db, "SELECT g, SUM(SUM(v)) OVER (ORDER BY g), RANK() OVER (ORDER BY COUNT(*)) FROM t GROUP BY g ORDER BY g")); got != "[[1 40 2] [2 55 2] [3 55 1]]" {
		t.Errorf("windows over groups: %s", got)
	}
	if _, err := db.Exec("SELECT g, FIRST_VALUE(v) OVER () FROM t GROUP BY g"); errno(t, err) != 1055 {
		t.Errorf("a window over a column not grouped: %v, want error 1055", err)
	}
	mustExec(t, db, "CREATE TABLE c AS SELECT g, FIRST_VALUE(v) OVER (), NTH_VALUE(v, 2) OVER (ORDER BY id) FROM t")
	if got := fmt.Sprint(queryRows(t, db, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'wg' AND TABLE_NAME = 'c' ORDER BY ORDINAL_POSITION")); got != "[[g] [FIRST_VALUE(v) OVER ()] [NTH_VALUE(v, 2) OVER (ORDER BY id)]]" {
		t.Errorf("CREATE TABLE ... AS SELECT's columns: %s", got)
	}
}

// TestWindowDefinitionErrors: windows MySQL 8 refuses get its errors
// (sqlengine/windowcheck.go). GMS summed the whole partition for an
// undefined window name, ignored a second definition of a name, an OVER's
// PARTITION BY over a named window and a named window's frame, and
// answered the rest with 1105 (vitess's grammar refuses a frame ending
// before it starts with its own message; MariaDB answers such a frame,
// empty: mtr's win_std).
func TestWindowDefinitionErrors(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE wd", "USE wd", "CREATE TABLE t (a INT, b INT)", "INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)")
	for q, want := range map[string]uint16{
		"SELECT SUM(a) OVER w FROM t":                                                             3579,
		"SELECT SUM(a) OVER w FROM t WINDOW w AS (w2), w2 AS (w)":                                 3580,
		"SELECT SUM(a) OVER (w PARTITION BY b) FROM t WINDOW w AS (ORDER BY a)":                   3581,
		"SELECT SUM(a) OVER (w ORDER BY b) FROM t WINDOW w AS (ROWS UNBOUNDED PRECEDING)":         3582,
		"SELECT SUM(a) OVER (w ORDER BY b) FROM t WINDOW w AS (ORDER BY a)":                       3583,
		"SELECT SUM(a) OVER w3 FROM t WINDOW w AS (ORDER BY a), w2 AS (w ORDER BY b), w3 AS (w2)": 3583,
		"SELECT SUM(a) OVER w FROM t WINDOW w AS (ORDER BY a), w AS (ORDER BY b)":                 3591,
		"SELECT SUM(a) OVER (ORDER BY a ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM t": 3584,
		"SELECT SUM(a) OVER (ORDER BY a ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM t": 3585,
		"SELECT STD(b) OVER (ORDER BY a ROWS BETWEEN 1 FOLLOWING AND 0 PRECEDING) FROM t":         3586,
		"SELECT SUM(a) OVER (ORDER BY a ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t":         3586,
		"SELECT SUM(a) OVER (ORDER BY a ROWS 1 FOLLOWING) FROM t":                                 3586,
	} {
		if _, err := db.Exec(q); errno(t, err) != want {
			t.Errorf("%s: %v, want error %d", q, err, want)
		}
	}
}

// TestWindowRowOrder: without ORDER BY, a SELECT's rows leave in the
// order of the last window that sorts them, as MySQL 8 runs its windows
// one after the other (a window sorting as an earlier one runs right
// after it, sharing its sort; sqlengine/windowempty.go). GMS gave them in
// its input's order. MariaDB orders its windows otherwise: the rows of
// the second query leave in the order of (PARTITION BY g ORDER BY v).
func TestWindowRowOrder(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE wo", "USE wo", "CREATE TABLE t (id INT PRIMARY KEY, g INT, v INT)",
		"INSERT INTO t VALUES (1, 1, 10), (2, 1, NULL), (3, 1, 30), (4, 2, NULL), (5, 2, 7), (6, 2, 8), (7, 3, NULL)")
	if got := fmt.Sprint(queryRows(t, db, "SELECT id, FIRST_VALUE(id) OVER (ORDER BY id DESC) FROM t")); got != "[[7 7] [6 7] [5 7] [4 7] [3 7] [2 7] [1 7]]" {
		t.Errorf("one window: %s", got)
	}
	got := fmt.Sprint(queryRows(t, db, "SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v), SUM(id) OVER (ORDER BY v DESC, id), COUNT(*) OVER (PARTITION BY g ORDER BY v) FROM t"))
	if want := "[[3 3 3 3] [1 2 4 2] [6 3 10 3] [5 2 15 2] [2 1 17 1] [4 1 21 1] [7 1 28 1]]"; got != want {
		t.Errorf("three windows:\n got %s\nwant %s", got, want)
	}
}

// TestWindowRangeFrames: RANGE frames bounded by an INTERVAL over a
// DATE or DATETIME key, MySQL 8's (MariaDB has none: 1064), and MySQL's
// errors for a RANGE frame's N over no single numeric or temporal key
// (3587), a number over a temporal key (3588), an INTERVAL over a
// numeric one (3589) (sqlengine/functions/windowrange.go), and an
// INTERVAL bounding a ROWS frame (3596; GMS: 1105). GMS took the whole
// partition when the key held a NULL.
func TestWindowRangeFrames(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE wr", "USE wr", "CREATE TABLE t (id INT PRIMARY KEY, d DATE, dt DATETIME, v INT, s VARCHAR(5))",
		"INSERT INTO t VALUES (1, '2024-01-01', '2024-01-01 10:00:00', 1, 'a'), (2, '2024-01-02', '2024-01-01 11:00:00', 2, 'b'), "+
			"(3, '2024-01-04', '2024-01-02 09:00:00', 3, 'c'), (4, '2024-01-04', NULL, 4, 'd'), (5, NULL, '2024-01-05 00:00:00', 5, 'e')")
	got := fmt.Sprint(queryRows(t, db, "SELECT id, SUM(v) OVER (ORDER BY d RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW), "+
		"COUNT(*) OVER (ORDER BY dt RANGE BETWEEN INTERVAL 1 HOUR PRECEDING AND INTERVAL 1 HOUR FOLLOWING), "+
		"SUM(v) OVER (ORDER BY d DESC RANGE BETWEEN CURRENT ROW AND INTERVAL 2 DAY FOLLOWING) FROM t ORDER BY id"))
	if want := "[[1 1 2 1] [2 3 2 3] [3 7 1 9] [4 7 1 9] [5 5 1 5]]"; got != want {
		t.Errorf("INTERVAL frames:\n got %s\nwant %s", got, want)
	}
	for q, want := range map[string]uint16{
		"SELECT SUM(v) OVER (ORDER BY v, id RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t": 3587,
		"SELECT SUM(v) OVER (ORDER BY s RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t":     3587,
		"SELECT SUM(v) OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t":     3588,
		"SELECT SUM(v) OVER (ORDER BY v RANGE INTERVAL 1 DAY PRECEDING) FROM t":                3589,
		"SELECT SUM(v) OVER (ORDER BY d ROWS INTERVAL 1 DAY PRECEDING) FROM t":                 3596,
	} {
		if _, err := db.Exec(q); errno(t, err) != want {
			t.Errorf("%s: %v, want error %d", q, err, want)
		}
	}
}

// TestWindowSuffixFrames: frames that end with the partition and start
// ever later (CURRENT ROW AND UNBOUNDED FOLLOWING) have an order-free
// aggregate's values computed once from the partition's end
// (sqlengine/functions/windowagg.go), not the partition fed again for
// each row (20000 rows took 5s for SUM); a DOUBLE's SUM is still added
// from the frame's start, as MySQL adds it.
func TestWindowSuffixFrames(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE ws", "USE ws", "CREATE TABLE t (id INT PRIMARY KEY, g INT, v INT, x DECIMAL(5,2), d DOUBLE)",
		"INSERT INTO t VALUES (1, 1, 5, 1.25, 0.1), (2, 1, NULL, NULL, 0.2), (3, 1, 3, 2.50, 0.3), (4, 2, 9, 0.75, 0.1), (5, 2, 2, NULL, NULL)")
	got := fmt.Sprint(queryRows(t, db, "SELECT id, SUM(v) OVER w, AVG(x) OVER w, COUNT(v) OVER w, MIN(v) OVER w, BIT_OR(v) OVER w, SUM(d) OVER w "+
		"FROM t WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) ORDER BY id"))
	want := "[[1 8 1.875000 2 3 7 0.6000000000000001] [2 3 2.500000 1 3 3 0.5] [3 3 2.500000 1 3 3 0.3] [4 11 0.750000 2 2 11 0.1] [5 2 NULL 1 2 2 NULL]]"
	if got != want {
		t.Errorf("suffix frames:\n got %s\nwant %s", got, want)
	}
}
