package node_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"petrel/binlog"
)

// gtidIntervals returns (last_committed, sequence_number) of every GTID
// event in the server's current binlog file, read from the live file.
func gtidIntervals(t *testing.T, db *sql.DB) [][2]int64 {
	t.Helper()
	base := queryRows(t, db, "SELECT @@log_bin_basename")[0][0]
	file := queryRows(t, db, "SHOW BINARY LOG STATUS")[0][0]
	rd, err := binlog.OpenReader(filepath.Join(filepath.Dir(base), file))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var out [][2]int64
	for {
		ev, _, err := rd.Next()
		if err != nil {
			break
		}
		if ev[4] != binlog.GTIDEvent {
			continue
		}
		g, err := binlog.ParseGTID(binlog.Body(ev))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]int64{g.LastCommitted, g.SeqNo})
	}
	return out
}

// TestDependencyTrackingSettings: WRITESET is the default and lets
// transactions on different rows depend only on the last DDL, while a
// row written again depends on its previous writer; COMMIT_ORDER, set at
// run time, chains one committer's transactions; bad values are refused
// with MySQL's error and change nothing.
func TestDependencyTrackingSettings(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	if got := queryRows(t, db, "SELECT @@binlog_transaction_dependency_tracking, @@binlog_transaction_dependency_history_size, @@transaction_write_set_extraction")[0]; strings.Join(got, " ") != "WRITESET 25000 XXHASH64" {
		t.Fatalf("defaults %v", got)
	}
	mustExec(t, db, "FLUSH BINARY LOGS", "CREATE DATABASE w", "CREATE TABLE w.t (id INT PRIMARY KEY, v INT)")
	for i := 1; i <= 5; i++ {
		mustExec(t, db, "INSERT INTO w.t VALUES ("+string(rune('0'+i))+", 0)")
	}
	mustExec(t, db, "UPDATE w.t SET v = 1 WHERE id = 2", "UPDATE w.t SET v = 2 WHERE id = 2")
	got := gtidIntervals(t, db)
	// 1 CREATE DATABASE, 2 CREATE TABLE, 3-7 inserts, 8-9 updates of id 2.
	want := [][2]int64{{0, 1}, {1, 2}, {2, 3}, {2, 4}, {2, 5}, {2, 6}, {2, 7}, {4, 8}, {8, 9}}
	if !equalIntervals(got, want) {
		t.Fatalf("WRITESET intervals %v, want %v", got, want)
	}

	mustExec(t, db, "SET GLOBAL binlog_transaction_dependency_tracking = COMMIT_ORDER", "FLUSH BINARY LOGS")
	for i := 6; i <= 8; i++ {
		mustExec(t, db, "INSERT INTO w.t VALUES ("+string(rune('0'+i))+", 0)")
	}
	if got, want := gtidIntervals(t, db), [][2]int64{{0, 1}, {1, 2}, {2, 3}}; !equalIntervals(got, want) {
		t.Fatalf("COMMIT_ORDER intervals %v, want %v", got, want)
	}

	for _, bad := range []string{
		"SET GLOBAL binlog_transaction_dependency_tracking = 'SOMETIMES'",
		"SET GLOBAL binlog_transaction_dependency_history_size = 0",
		"SET GLOBAL transaction_write_set_extraction = 'MURMUR32'",
	} {
		_, err := db.Exec(bad)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1231 {
			t.Errorf("%s: %v, want error 1231", bad, err)
		}
	}
	if got := queryRows(t, db, "SELECT @@binlog_transaction_dependency_tracking, @@binlog_transaction_dependency_history_size")[0]; strings.Join(got, " ") != "COMMIT_ORDER 25000" {
		t.Fatalf("after refused changes: %v", got)
	}
}

func equalIntervals(a, b [][2]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
