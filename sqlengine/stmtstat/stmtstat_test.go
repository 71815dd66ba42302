package stmtstat

import "testing"

func TestOf(t *testing.T) {
	for _, c := range []struct {
		q    string
		want string
	}{
		{"SELECT 1", "Com_select"},
		{"  select * from t", "Com_select"},
		{"/* hint */ (SELECT 1) UNION (SELECT 2)", "Com_select"},
		{"-- note\nWITH x AS (SELECT 1) SELECT * FROM x", "Com_select"},
		{"# note\ninsert into t values (1)", "Com_insert"},
		{"INSERT INTO t SELECT * FROM u", "Com_insert"},
		{"update t set a = 1", "Com_update"},
		{"DELETE FROM t", "Com_delete"},
		{"REPLACE INTO t VALUES (1)", "Com_replace"},
		{"BEGIN", "Com_begin"},
		{"start transaction read only", "Com_begin"},
		{"START SLAVE", "Questions"},
		{"COMMIT", "Com_commit"},
		{"ROLLBACK", "Com_rollback"},
		{"rollback work to savepoint s", "Com_rollback_to_savepoint"},
		{"ROLLBACK TO s", "Com_rollback_to_savepoint"},
		{"SAVEPOINT s", "Com_savepoint"},
		{"RELEASE SAVEPOINT s", "Com_release_savepoint"},
		{"SET NAMES utf8mb4", "Com_set_option"},
		{"use test", "Com_change_db"},
		{"SHOW GLOBAL STATUS LIKE 'Questions'", "Com_show_status"},
		{"show session variables", "Com_show_variables"},
		{"SHOW FULL TABLES", "Com_show_tables"},
		{"SHOW SCHEMAS", "Com_show_databases"},
		{"SHOW CREATE TABLE t", "Com_show_create_table"},
		{"SHOW FULL COLUMNS FROM t", "Com_show_fields"},
		{"SHOW PROCESSLIST", "Com_show_processlist"},
		{"SHOW WARNINGS", "Com_show_warnings"},
		{"SHOW MASTER STATUS", "Questions"},
		{"CREATE TABLE t (a INT)", "Com_create_table"},
		{"create temporary table t (a int)", "Com_create_table"},
		{"CREATE DATABASE d", "Com_create_db"},
		{"CREATE UNIQUE INDEX i ON t (a)", "Com_create_index"},
		{"CREATE VIEW v AS SELECT 1", "Questions"},
		{"DROP TABLE IF EXISTS t", "Com_drop_table"},
		{"DROP SCHEMA d", "Com_drop_db"},
		{"DROP INDEX i ON t", "Com_drop_index"},
		{"ALTER TABLE t ADD c INT", "Com_alter_table"},
		{"TRUNCATE t", "Com_truncate"},
		{"LOCK TABLES t READ", "Com_lock_tables"},
		{"UNLOCK TABLES", "Com_unlock_tables"},
		{"ANALYZE TABLE t", "Com_analyze"},
		{"FLUSH LOGS", "Com_flush"},
		{"KILL QUERY 5", "Com_kill"},
		{"DO 1", "Com_do"},
		{"", "Questions"},
		{"/* unterminated", "Questions"},
		{"SELECTED", "Questions"},
		{"ÉSELECT", "Questions"},
	} {
		if got := Names[Of(c.q)]; got != c.want {
			t.Errorf("%q: %s, want %s", c.q, got, c.want)
		}
	}
}

func TestCounters(t *testing.T) {
	var c Counters
	c.Statement(Of("SELECT 1"))
	c.Statement(Of("SELECT 2"))
	c.Statement(Of("INSERT INTO t VALUES (1)"))
	c.Statement(Of("CREATE VIEW v AS SELECT 1"))
	c.Prepare()
	c.Execute(Of("SELECT ?"))
	for name, want := range map[string]uint64{
		"Questions": 5, "Queries": 5, "Com_select": 3, "Com_insert": 1,
		"Com_stmt_prepare": 1, "Com_stmt_execute": 1, "Com_update": 0,
	} {
		if got, ok := c.Value(name); !ok || got != want {
			t.Errorf("%s: %d (%v), want %d", name, got, ok, want)
		}
	}
	if _, ok := c.Value("Uptime"); ok {
		t.Error("Uptime is not counted here")
	}
}

func TestOfDoesNotAllocate(t *testing.T) {
	q := "  /* x */ show full columns from t"
	if n := testing.AllocsPerRun(100, func() { _ = Of(q) }); n != 0 {
		t.Errorf("Of allocates %v times per call", n)
	}
}
