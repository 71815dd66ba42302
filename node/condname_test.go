package node_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// A routine's condition may be named by a non-reserved keyword (ERROR,
// WARN): MySQL 8 takes it in DECLARE, SIGNAL and a handler's list;
// vitess refused it with 1064, and a SIGNAL's item given with a
// character set introducer (mtr's signal). The routine's stored text is
// the client's (information_schema.ROUTINES read it cut short and
// rewritten).
func TestConditionNamedByKeyword(t *testing.T) {
	ctx, c := testDBConn(t)
	mustExecConn(t, c,
		`CREATE PROCEDURE p1() BEGIN DECLARE error CONDITION FOR SQLSTATE "12000"; SIGNAL error; END`,
		`CREATE PROCEDURE p2() BEGIN DECLARE warn CONDITION FOR SQLSTATE '45001'; DECLARE CONTINUE HANDLER FOR SQLSTATE '22012', warn SELECT 'handled'; SIGNAL warn SET MESSAGE_TEXT = 'x'; END`,
		`CREATE PROCEDURE p3() BEGIN SIGNAL SQLSTATE '45002' SET MESSAGE_TEXT = _utf8 "in utf8"; END`)
	_, err := c.ExecContext(ctx, "CALL p1()")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1644 || string(me.SQLState[:]) != "12000" {
		t.Errorf("CALL p1(): %v, want 1644 (12000)", err)
	}
	if got := fmt.Sprint(connRows(t, c, "CALL p2()")); got != "[[handled]]" {
		t.Errorf("CALL p2(): %s", got)
	}
	_, err = c.ExecContext(ctx, "CALL p3()")
	if !errors.As(err, &me) || me.Number != 1644 || me.Message != "in utf8" {
		t.Errorf("CALL p3(): %v, want 1644 in utf8", err)
	}
	if got := fmt.Sprint(connRows(t, c, "SELECT ROUTINE_DEFINITION LIKE '%DECLARE error CONDITION%' FROM information_schema.ROUTINES WHERE ROUTINE_NAME = 'p1'")); got != "[[1]]" {
		t.Errorf("stored text: %s", got)
	}
}

// A SIGNAL's item set to NULL: the routine is created, and its CALL is
// MySQL's 1231 for every item (vitess's parser panicked on the NULL,
// 1105; CLASS_ORIGIN = NULL signalled as if unset: mtr's signal).
func TestSignalItemNull(t *testing.T) {
	ctx, c := testDBConn(t)
	mustExecConn(t, c,
		"CREATE PROCEDURE p1() BEGIN DECLARE error CONDITION FOR SQLSTATE '99999'; SIGNAL error SET MYSQL_ERRNO = NULL; END",
		"CREATE PROCEDURE p2() BEGIN SIGNAL SQLSTATE '99999' SET CLASS_ORIGIN = NULL, MESSAGE_TEXT = 'm'; END",
		"CREATE PROCEDURE p3() BEGIN SIGNAL SQLSTATE '99999' SET CLASS_ORIGIN = 'o', MESSAGE_TEXT = 'm'; END")
	for q, want := range map[string]string{
		"CALL p1()": "Error 1231 (42000): Variable 'MYSQL_ERRNO' can't be set to the value of 'NULL'",
		"CALL p2()": "Error 1231 (42000): Variable 'CLASS_ORIGIN' can't be set to the value of 'NULL'",
		"CALL p3()": "Error 1644 (99999): m",
	} {
		if _, err := c.ExecContext(ctx, q); fmt.Sprint(err) != want {
			t.Errorf("%s: %v, want %s", q, err, want)
		}
	}
}
