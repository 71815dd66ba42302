package node_test

import (
	"strings"
	"testing"
)

// A new server's sql_mode is MySQL 8's default, and each of its flags is
// honoured: GMS's default lacked NO_ZERO_IN_DATE, NO_ZERO_DATE and
// ERROR_FOR_DIVISION_BY_ZERO, so an INSERT stored '0000-00-00' and the
// NULL of 5 / 0 where MySQL refuses both.
func TestDefaultSQLModeIsMySQLs(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	want := "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
	for _, q := range []string{"SELECT @@GLOBAL.sql_mode", "SELECT @@SESSION.sql_mode"} {
		got := queryRows(t, db, q)[0][0]
		flags := map[string]bool{}
		for _, f := range strings.Split(got, ",") {
			flags[f] = true
		}
		for _, f := range strings.Split(want, ",") {
			if !flags[f] {
				t.Errorf("%s = %s: %s missing", q, got, f)
			}
		}
		if len(flags) != 6 {
			t.Errorf("%s = %s, want MySQL's six flags", q, got)
		}
	}
	mustExec(t, db, "CREATE DATABASE sm", "USE sm", "CREATE TABLE t (a INT, d DATE)")
	for q, code := range map[string]string{
		"INSERT INTO t VALUES (5 / 0, '2024-01-01')":                "1365",
		"INSERT INTO t VALUES (1, '0000-00-00')":                    "1292",
		"INSERT INTO t VALUES (1, '2024-01-01'), (2, '2024-00-05')": "1292",
	} {
		if _, err := db.Exec(q); err == nil || !strings.Contains(err.Error(), code) {
			t.Errorf("%s: %v, want error %s", q, err, code)
		}
	}
	if n := queryRows(t, db, "SELECT COUNT(*) FROM t")[0][0]; n != "0" {
		t.Errorf("%s rows stored by refused statements", n)
	}
	// SET sql_mode = DEFAULT returns to it.
	mustExec(t, db, "SET sql_mode = ''", "INSERT INTO t VALUES (5 / 0, '2024-01-01')", "SET sql_mode = DEFAULT")
	if _, err := db.Exec("INSERT INTO t VALUES (5 / 0, '2024-01-01')"); err == nil || !strings.Contains(err.Error(), "1365") {
		t.Errorf("after SET sql_mode = DEFAULT: %v, want 1365", err)
	}
	if got := queryRows(t, db, "SELECT a, d FROM t"); len(got) != 1 || got[0][0] != "NULL" {
		t.Errorf("rows: %v, want the one of the empty sql_mode", got)
	}
}
