package node_test

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// TestAlterProcedureAndFunction: ALTER PROCEDURE and ALTER FUNCTION
// (1064 before) change a routine's COMMENT, SQL SECURITY and data
// access, which information_schema.ROUTINES and SHOW CREATE then show;
// the routines still run; a missing routine is 1305, DETERMINISTIC
// (CREATE's only) 1064; SHOW PROCEDURE CODE is 1289 as in a release
// build of MySQL. A replica applies the ALTERs from the binary log.
func TestAlterProcedureAndFunction(t *testing.T) {
	dir := t.TempDir()
	prim, pdb := openNodeOpts(t, node.Options{Datadir: filepath.Join(dir, "p"), ServerID: 1})
	_, rdb := openNodeOpts(t, node.Options{Datadir: filepath.Join(dir, "r"), ServerID: 2})
	mustExec(t, pdb, "CREATE DATABASE ra")
	mustExec(t, pdb,
		"CREATE PROCEDURE ra.p1(IN x INT) COMMENT 'first' SELECT x + 1",
		"CREATE FUNCTION ra.f1(a INT) RETURNS INT DETERMINISTIC RETURN a * 2",
		"ALTER PROCEDURE ra.p1 COMMENT 'changed comment' SQL SECURITY INVOKER READS SQL DATA",
		"ALTER FUNCTION ra.f1 COMMENT 'it''s new'")
	routines := "SELECT ROUTINE_COMMENT, SECURITY_TYPE, SQL_DATA_ACCESS FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'ra' AND ROUTINE_NAME = 'p1'"
	if got, want := fmt.Sprint(queryRows(t, pdb, routines)), "[[changed comment INVOKER READS SQL DATA]]"; got != want {
		t.Errorf("ROUTINES after ALTER PROCEDURE: %s, want %s", got, want)
	}
	createOf := func(db *sql.DB, q string) string {
		t.Helper()
		rows := queryRows(t, db, q)
		if len(rows) != 1 || len(rows[0]) < 3 {
			t.Fatalf("%s: %v", q, rows)
		}
		return rows[0][2]
	}
	if got := createOf(pdb, "SHOW CREATE PROCEDURE ra.p1"); !strings.Contains(got, "COMMENT 'changed comment'") || strings.Contains(got, "first") {
		t.Errorf("SHOW CREATE PROCEDURE after ALTER:\n%s", got)
	}
	if got := createOf(pdb, "SHOW CREATE FUNCTION ra.f1"); !strings.Contains(got, `COMMENT 'it\'s new'`) || !strings.Contains(got, "DETERMINISTIC") {
		t.Errorf("SHOW CREATE FUNCTION after ALTER:\n%s", got)
	}
	db := rootConn(t, prim)
	mustExec(t, db, "USE ra")
	if got := fmt.Sprint(queryRows(t, db, "CALL ra.p1(41)")); got != "[[42]]" {
		t.Errorf("CALL p1(41) after ALTER: %s", got)
	}
	if got := fmt.Sprint(queryRows(t, db, "SELECT ra.f1(21)")); got != "[[42]]" {
		t.Errorf("f1(21) after ALTER: %s", got)
	}
	for q, want := range map[string]uint16{
		"ALTER PROCEDURE ra.nope COMMENT 'x'":  1305,
		"ALTER FUNCTION ra.p1 COMMENT 'x'":     1305,
		"ALTER PROCEDURE ra.p1 DETERMINISTIC":  1064,
		"SHOW PROCEDURE CODE ra.p1":            1289,
		"SHOW FUNCTION CODE f1":                1289,
		"ALTER PROCEDURE ra.p1 COMMENT 'x' NO": 1064,
	} {
		_, err := pdb.Exec(q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != want {
			t.Errorf("%s: %v, want error %d", q, err, want)
		}
	}

	// The replica, from the start of the primary's binary log.
	mustExec(t, rdb, fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%s, SOURCE_USER='root', SOURCE_PASSWORD='pw', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1", srcPort(t, prim)),
		"START REPLICA")
	deadline := time.Now().Add(30 * time.Second)
	for {
		rows := queryRows(t, rdb, routines)
		got := fmt.Sprint(rows)
		if got == "[[changed comment INVOKER READS SQL DATA]]" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica's ROUTINES: %s after 30 s", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for time.Now().Before(deadline) {
		if rows := queryRows(t, rdb, "SHOW FUNCTION STATUS WHERE Db = 'ra'"); len(rows) == 1 && strings.Contains(fmt.Sprint(rows), "it's new") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("replica's SHOW FUNCTION STATUS: %v", queryRows(t, rdb, "SHOW FUNCTION STATUS WHERE Db = 'ra'"))
}
