package node_test

import (
	"strings"
	"testing"
)

// Temporary tables never reach the binlog (MySQL's ROW format logs
// neither their DDL nor their rows): a transaction that only wrote a
// temporary table takes no GTID and writes no event; one that wrote a
// temporary table and a base table logs the base table's rows only; and
// nothing of it names the temporary table. A replica therefore never
// meets a table it does not have.
func TestTemporaryTablesAreNotLogged(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE d", "USE d", "CREATE TABLE base (id INT PRIMARY KEY, v INT)")
	gtids := func() string {
		var s string
		if err := db.QueryRow("SELECT @@GLOBAL.gtid_executed").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	events := func() []string {
		rows, err := db.Query("SHOW BINLOG EVENTS")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var log, typ, info string
			var pos, sid, end int64
			if err := rows.Scan(&log, &pos, &typ, &sid, &end, &info); err != nil {
				t.Fatal(err)
			}
			out = append(out, typ+" "+info)
		}
		return out
	}
	before, evBefore := gtids(), len(events())
	mustExec(t, db,
		"CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY, v INT, KEY (v))",
		"INSERT INTO tmp VALUES (1, 1), (2, 2)",
		"BEGIN", "UPDATE tmp SET v = 5 WHERE id = 1", "DELETE FROM tmp WHERE id = 2", "COMMIT",
		"CREATE INDEX iv ON tmp (v, id)", "ALTER TABLE tmp ADD COLUMN w INT", "TRUNCATE TABLE tmp",
		"INSERT INTO tmp (id, v) VALUES (3, 3)", "CREATE TEMPORARY TABLE tmp2 SELECT * FROM tmp", "DROP TEMPORARY TABLE tmp2")
	if got := gtids(); got != before {
		t.Fatalf("temporary-table statements moved gtid_executed: %s -> %s", before, got)
	}
	if ev := events(); len(ev) != evBefore {
		t.Fatalf("temporary-table statements wrote binlog events: %v", ev[evBefore:])
	}
	// A transaction over both kinds logs the base table's row only.
	mustExec(t, db, "BEGIN", "INSERT INTO tmp (id, v) VALUES (4, 4)", "INSERT INTO base VALUES (1, 1)", "UPDATE tmp SET v = 6", "COMMIT")
	ev := events()[evBefore:]
	var kinds []string
	for _, e := range ev {
		kinds = append(kinds, strings.Fields(e)[0])
		if strings.Contains(e, "tmp") {
			t.Fatalf("an event names the temporary table: %q", e)
		}
	}
	if got := strings.Join(kinds, " "); got != "Gtid Query Table_map Write_rows Xid" {
		t.Fatalf("events of the mixed transaction: %s (%v)", got, ev)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM tmp").Scan(&n); err != nil || n != 2 {
		t.Fatalf("temporary rows after the mixed transaction: %d (%v), want 2", n, err)
	}
	// DROP TABLE drops the temporary table first; the base table stays.
	mustExec(t, db, "CREATE TEMPORARY TABLE base (x INT)", "DROP TABLE base")
	if err := db.QueryRow("SELECT COUNT(*) FROM base").Scan(&n); err != nil || n != 1 {
		t.Fatalf("base table after dropping its temporary namesake: %d (%v), want 1", n, err)
	}
	if got := events()[evBefore:]; len(got) != 5 {
		t.Fatalf("the temporary table's CREATE and DROP were logged: %v", got)
	}
}

// TestDropTemporaryTablePartly: DROP TEMPORARY TABLE of a temporary
// table and a name that is none (a base table) drops the first and is
// 1051 for the other, which stays, as MySQL (GMS dropped none); DROP
// TABLES is DROP TABLE's synonym; a temporary table outlives DROP
// DATABASE and is dropped by name after it (mtr's temp_table).
func TestDropTemporaryTablePartly(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE dt", "USE dt", "CREATE TABLE t1 (i INT)", "CREATE TEMPORARY TABLE t2 (i INT)")
	if _, err := db.Exec("DROP TEMPORARY TABLE t2, t1"); errno(t, err) != 1051 {
		t.Fatalf("DROP TEMPORARY TABLE t2, t1: %v, want error 1051", err)
	}
	if _, err := db.Exec("SELECT * FROM t2"); errno(t, err) != 1146 {
		t.Errorf("t2 after the drop: %v, want error 1146", err)
	}
	mustExec(t, db, "SELECT * FROM t1", "CREATE TABLE t3 (i INT)", "DROP TABLES t1, t3",
		"CREATE DATABASE gone", "CREATE TEMPORARY TABLE gone.t (i INT)", "DROP DATABASE gone",
		"DROP TEMPORARY TABLE gone.t")
	if _, err := db.Exec("SELECT * FROM t1"); errno(t, err) != 1146 {
		t.Errorf("t1 after DROP TABLES: %v, want error 1146", err)
	}
}
