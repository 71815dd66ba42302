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
