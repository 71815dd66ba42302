package node_test

import (
	"fmt"
	"testing"
)

// SHOW CREATE PROCEDURE gives the procedure's sql_mode (in MySQL's
// order) and its CREATE as MySQL writes it: the definer (its creator's
// account when the statement named none), the quoted name, the
// parameters, a line, the characteristics, the body (GMS: no sql_mode,
// the statement as sent; mtr's truncate). information_schema.ROUTINES
// gives each routine's own sql_mode, and reads under a session sql_mode
// with NO_AUTO_CREATE_USER (GMS gave the session's mode, and that one
// failed the table with 1105).
func TestShowCreateProcedureAsMySQL(t *testing.T) {
	_, c := testDBConn(t)
	mustExecConn(t, c,
		"SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION,STRICT_TRANS_TABLES'",
		"CREATE PROCEDURE p1() SET @a = 5",
		"SET SESSION sql_mode = 'ONLY_FULL_GROUP_BY'",
		"CREATE DEFINER = 'someone'@'%' PROCEDURE p2(IN x INT, OUT y VARCHAR(10)) COMMENT 'it''s' DETERMINISTIC READS SQL DATA BEGIN SET y = x; END",
		"SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION'")
	for q, want := range map[string]string{
		"SHOW CREATE PROCEDURE p1": "[p1 STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION CREATE DEFINER=`root`@`localhost` PROCEDURE `p1`()\nSET @a = 5]",
		"SHOW CREATE PROCEDURE p2": "[p2 ONLY_FULL_GROUP_BY CREATE DEFINER=`someone`@`%` PROCEDURE `p2`(IN x INT, OUT y VARCHAR(10))\n    READS SQL DATA\n    DETERMINISTIC\n    COMMENT 'it\\'s'\nBEGIN SET y = x; END]",
	} {
		rows := connRows(t, c, q)
		if len(rows) != 1 || len(rows[0]) < 3 {
			t.Fatalf("%s: %v", q, rows)
		}
		if got := fmt.Sprint(rows[0][:3]); got != want {
			t.Errorf("%s:\n got %q\nwant %q", q, got, want)
		}
	}
	if got := fmt.Sprint(connRows(t, c, "SELECT ROUTINE_NAME, SQL_MODE FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'test' ORDER BY 1")); got != "[[p1 NO_ENGINE_SUBSTITUTION,STRICT_TRANS_TABLES] [p2 ONLY_FULL_GROUP_BY]]" {
		t.Errorf("ROUTINES: %s", got)
	}
	if got := fmt.Sprint(connRows(t, c, "CALL p1")); got != "[]" {
		t.Errorf("CALL p1: %s", got)
	}
	if got := fmt.Sprint(connRows(t, c, "SELECT @a")); got != "[[5]]" {
		t.Errorf("@a: %s", got)
	}
}
