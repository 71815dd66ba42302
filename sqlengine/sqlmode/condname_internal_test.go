package sqlmode

import "testing"

func TestConditionNamesQuoted(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{`CREATE PROCEDURE p() BEGIN DECLARE error CONDITION FOR SQLSTATE "12000"; SIGNAL error; END`,
			"CREATE PROCEDURE p() BEGIN DECLARE `error` CONDITION FOR SQLSTATE \"12000\"; SIGNAL `error`; END"},
		{"CREATE PROCEDURE p() BEGIN DECLARE warn CONDITION FOR 1062; DECLARE EXIT HANDLER FOR SQLSTATE VALUE '22012', NOT FOUND, warn, 1146 RESIGNAL warn; SELECT warn FROM t; END",
			"CREATE PROCEDURE p() BEGIN DECLARE `warn` CONDITION FOR 1062; DECLARE EXIT HANDLER FOR SQLSTATE VALUE '22012', NOT FOUND, `warn`, 1146 RESIGNAL `warn`; SELECT warn FROM t; END"},
		// No routine, or no condition declared: left alone.
		{"SELECT 'DECLARE error CONDITION' FROM t", ""},
		{"CREATE PROCEDURE p() BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET @x = 1; SIGNAL SQLSTATE '45000'; END", ""},
	} {
		got, added := conditionNames(tc.q, false)
		checkInsertions(t, tc.q, tc.want, got, added) // quantified_internal_test.go
	}
}

func TestSignalIntroducersBlanked(t *testing.T) {
	for q, want := range map[string]string{
		`CREATE PROCEDURE p() BEGIN SIGNAL s SET MESSAGE_TEXT = _utf8 "x", MYSQL_ERRNO = 1; END`: `CREATE PROCEDURE p() BEGIN SIGNAL s SET MESSAGE_TEXT =       "x", MYSQL_ERRNO = 1; END`,
		`SELECT _utf8 'x' = _latin1 'x'`: `SELECT _utf8 'x' = _latin1 'x'`,
	} {
		if got := signalIntroducers(q, false); got != want {
			t.Errorf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
}

func TestSignalNullsQuoted(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"CREATE PROCEDURE p() BEGIN SIGNAL e SET MYSQL_ERRNO = NULL, MESSAGE_TEXT = 'x'; SELECT NULL = NULL; END",
			"CREATE PROCEDURE p() BEGIN SIGNAL e SET MYSQL_ERRNO = `NULL`, MESSAGE_TEXT = 'x'; SELECT NULL = NULL; END"},
		{"SELECT a = NULL FROM t", ""},
	} {
		got, added := signalNulls(tc.q, false)
		checkInsertions(t, tc.q, tc.want, got, added) // quantified_internal_test.go
	}
}
