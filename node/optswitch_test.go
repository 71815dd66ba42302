package node_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// optimizer_switch reports MySQL 8.0's defaults and takes what MySQL
// takes: flags set to on, off or default, merged into the session's
// value and reported in full (mtr's tests turn semijoin and
// derived_merge off); an unknown flag or value is 1231.
func TestOptimizerSwitch(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	var v string
	if err := db.QueryRow("SELECT @@optimizer_switch").Scan(&v); err != nil || !strings.HasPrefix(v, "index_merge=on,") || !strings.Contains(v, ",hash_join=on,") || strings.Count(v, "=") != 26 {
		t.Fatalf("optimizer_switch = %q, %v", v, err)
	}
	def := v
	mustExec(t, db, "SET optimizer_switch = 'default'", "SET optimizer_switch = 'batched_key_access=off,mrr=DEFAULT'", "SET GLOBAL optimizer_switch = 'hash_join=on'",
		"SET optimizer_switch = 'semijoin=off'", "SET optimizer_switch = 'derived_merge=off,mrr=off'")
	want := strings.NewReplacer("semijoin=on", "semijoin=off", "derived_merge=on", "derived_merge=off", ",mrr=on", ",mrr=off").Replace(def)
	if got := queryRows(t, db, "SELECT @@optimizer_switch"); got[0][0] != want {
		t.Fatalf("after turning flags off: %q, want %q", got[0][0], want)
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM (SELECT 1 AS a UNION ALL SELECT 2) d WHERE a IN (SELECT 2)"); got[0][0] != "1" {
		t.Fatalf("a query with semijoin=off: %v", got)
	}
	mustExec(t, db, "SET optimizer_switch = 'semijoin=default,derived_merge=on,mrr=on'")
	if got := queryRows(t, db, "SELECT @@optimizer_switch"); got[0][0] != def {
		t.Fatalf("back to the defaults: %q", got[0][0])
	}
	for q, want := range map[string]uint16{
		"SET optimizer_switch = 'no_such_flag=on'": 1231,
		"SET optimizer_switch = 'mrr=maybe'":       1231,
		"SET optimizer_switch = 'mrr'":             1231,
	} {
		var me *mysql.MySQLError
		if _, err := db.Exec(q); !errors.As(err, &me) || me.Number != want {
			t.Errorf("%s: %v, want %d", q, err, want)
		}
	}
}

// `@v := expr` inside a SELECT sets the variable row by row, as MySQL
// does: the row-numbering idiom, a running sum, an assignment in WHERE.
func TestAssignUserVariableInExpression(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE av", "CREATE TABLE av.t (a INT PRIMARY KEY, b INT)", "INSERT INTO av.t VALUES (1, 10), (2, 20), (3, 30)")
	mustExec(t, db, "SET @n := 0, @s := 0")
	got := queryRows(t, db, "SELECT @n := @n + 1 AS rn, a, @s := @s + b running FROM av.t ORDER BY a")
	want := [][]string{{"1", "1", "10"}, {"2", "2", "30"}, {"3", "3", "60"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("numbered rows: %v, want %v", got, want)
	}
	if got := queryRows(t, db, "SELECT @n, @s"); !reflect.DeepEqual(got, [][]string{{"3", "60"}}) {
		t.Fatalf("after: %v", got)
	}
	if got := queryRows(t, db, "SELECT a FROM av.t WHERE (@m := a) >= 2 ORDER BY a"); !reflect.DeepEqual(got, [][]string{{"2"}, {"3"}}) {
		t.Fatalf("assignment in WHERE: %v", got)
	}
	if got := queryRows(t, db, "SELECT @m, @x := 'it''s := text'"); !reflect.DeepEqual(got, [][]string{{"3", "it's := text"}}) {
		t.Fatalf("last assigned: %v", got)
	}
}

// information_schema.SYSTEM_VARIABLES (MariaDB's; its test suite's
// include files read it): one row per variable with the session's and
// the global value.
func TestSystemVariablesTable(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "SET SESSION sql_mode = 'ANSI_QUOTES'")
	got := queryRows(t, db, "SELECT VARIABLE_NAME, SESSION_VALUE, VARIABLE_SCOPE, VARIABLE_TYPE FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME IN ('SQL_MODE', 'AUTOCOMMIT') ORDER BY 1")
	want := [][]string{{"AUTOCOMMIT", "1", "SESSION", "BOOLEAN"}, {"SQL_MODE", "ANSI_QUOTES", "SESSION", "SET"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SYSTEM_VARIABLES: %v, want %v", got, want)
	}
	if got := queryRows(t, db, "SELECT GLOBAL_VALUE, READ_ONLY FROM information_schema.system_variables WHERE variable_name = 'version'"); len(got) != 1 || !strings.HasSuffix(got[0][0], "-petrel") || got[0][1] != "YES" {
		t.Fatalf("version: %v", got)
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM information_schema.system_variables WHERE variable_name = 'have_sanitizer' AND global_value LIKE 'MSAN%'"); got[0][0] != "0" {
		t.Fatalf("mtr's have_sanitizer probe: %v", got)
	}
}

// MySQL's spellings vitess does not parse: LOCK TABLE (singular) and a
// quoted ENGINE name.
func TestLockTableAndQuotedEngine(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE lt", "CREATE TABLE lt.t (a INT PRIMARY KEY) ENGINE = 'MyISAM'",
		"INSERT INTO lt.t VALUES (1)", "LOCK TABLE lt.t READ")
	if got := queryRows(t, db, "SELECT COUNT(*) FROM lt.t"); got[0][0] != "1" {
		t.Fatalf("under LOCK TABLE: %v", got)
	}
	mustExec(t, db, "UNLOCK TABLES")
}

// A statement that panics inside go-mysql-server (today: MATCH ...
// AGAINST over a derived table) fails with 1105, its transaction rolled
// back, and the connection goes on (vitess used to drop it: 2013).
func TestStatementPanicKeepsConnection(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE pn", "CREATE TABLE pn.t (a INT PRIMARY KEY, b VARCHAR(20))", "INSERT INTO pn.t VALUES (1, 'a'), (2, 'b')")
	before := statusInt(t, db, "Petrel_statement_panics")
	mustExec(t, db, "BEGIN", "INSERT INTO pn.t VALUES (3, 'c')")
	_, err := db.Exec("SELECT * FROM (SELECT * FROM pn.t) d WHERE MATCH(b) AGAINST ('a')")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1105 || !strings.Contains(me.Message, "rolled back") {
		t.Fatalf("panicking statement: %v, want 1105 naming the rollback", err)
	}
	// Nothing of the transaction may commit: COMMIT reports the failure.
	if _, err := db.Exec("COMMIT"); !errors.As(err, &me) || me.Number != 1105 {
		t.Fatalf("COMMIT after the panic: %v, want 1105", err)
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM pn.t"); got[0][0] != "2" {
		t.Fatalf("rows after the rolled-back transaction: %v, want 2", got)
	}
	if after := statusInt(t, db, "Petrel_statement_panics"); after != before+1 {
		t.Fatalf("Petrel_statement_panics %d -> %d, want one more", before, after)
	}
}

// BENCHMARK evaluates its expression count times and returns 0; an
// unknown function is MySQL's 1305, SHOW GRANTS of an unknown account
// 1141.
func TestBenchmarkAndMissingFunctionErrors(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "SET @n := 0")
	if got := queryRows(t, db, "SELECT BENCHMARK(5, @n := @n + 1), @n, BENCHMARK(NULL, 1), BENCHMARK(-1, 1)"); !reflect.DeepEqual(got, [][]string{{"0", "5", "NULL", "NULL"}}) {
		t.Fatalf("BENCHMARK: %v", got)
	}
	for q, want := range map[string]uint16{"SELECT no_such_function(1)": 1305, "SHOW GRANTS FOR nobody@localhost": 1141} {
		var me *mysql.MySQLError
		if _, err := db.Exec(q); !errors.As(err, &me) || me.Number != want {
			t.Errorf("%s: %v, want %d", q, err, want)
		}
	}
}
