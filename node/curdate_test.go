package node_test

import (
	"reflect"
	"testing"
)

// CURDATE() is a DATE of the session's time zone, as MySQL's: GMS's was
// text of the UTC date, so CURDATE() + 0 read the year alone, a copy made
// a LONGTEXT column, and east of UTC late in the day it named the day
// before NOW()'s.
func TestCurdateIsADate(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	for _, tz := range []string{"'+00:00'", "'+14:00'", "'-12:00'"} {
		mustExec(t, db, "SET time_zone = "+tz)
		got := queryRows(t, db, "SELECT CURDATE() + 0 = DATE_FORMAT(NOW(), '%Y%m%d') + 0, CURDATE() = DATE(NOW()), CURRENT_DATE - INTERVAL 1 DAY < CURDATE()")
		if want := [][]string{{"1", "1", "1"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("time_zone %s: %v, want %v", tz, got, want)
		}
	}
	mustExec(t, db, "CREATE DATABASE cd", "CREATE TABLE cd.c AS SELECT CURDATE() d")
	if got := queryRows(t, db, "SHOW COLUMNS FROM cd.c"); len(got) != 1 || got[0][1] != "date" {
		t.Errorf("CREATE TABLE ... AS SELECT CURDATE(): %v, want a date column", got)
	}
}

// TIMESTAMP(expr[, time]) is a DATETIME with its arguments' fractional
// digits, as MySQL's (the values below are MariaDB's for the same
// statement): GMS printed TIMESTAMP(date_col) as a DATE, TIMESTAMP of a
// VARCHAR column as nothing, and refused the two-argument form (1105).
func TestTimestampFunction(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE tf", "USE tf",
		"CREATE TABLE t (dt DATE, ts DATETIME(2), tm TIME(1), s VARCHAR(30))",
		"INSERT INTO t VALUES ('2024-02-29', '2024-02-29 13:14:15.67', '10:11:12.5', '2024-01-05'), (NULL, NULL, NULL, 'garbage')")
	got := queryRows(t, db, "SELECT CAST(TIMESTAMP(dt) AS CHAR), CAST(TIMESTAMP(dt, '01:00:00') AS CHAR), CAST(TIMESTAMP(ts, '-01:00:00.5') AS CHAR), "+
		"CAST(TIMESTAMP('2003-12-31 12:00:00', '12:00:00') AS CHAR), CAST(TIMESTAMP(dt, tm) AS CHAR), TIMESTAMP(s) IS NULL FROM t")
	want := [][]string{
		{"2024-02-29 00:00:00", "2024-02-29 01:00:00", "2024-02-29 12:14:15.17", "2004-01-01 00:00:00", "2024-02-29 10:11:12.5", "0"},
		{"NULL", "NULL", "NULL", "2004-01-01 00:00:00", "NULL", "1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("TIMESTAMP(): %v, want %v", got, want)
	}
}
