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
