package node_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// CHECK TABLE answers MySQL's rows: "status OK" for a sound table, and
// for a missing one its 1146 text and "Operation failed" (storage's
// damage findings are storage TestCheckTableFindsDamage's).
func TestCheckTable(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ck", "CREATE TABLE ck.t (a INT PRIMARY KEY, b INT, KEY (b))",
		"INSERT INTO ck.t VALUES (1, 10), (2, 20), (3, NULL)")
	got := queryRows(t, db, "CHECK TABLE ck.t, ck.nope EXTENDED")
	want := [][]string{
		{"ck.t", "check", "status", "OK"},
		{"ck.nope", "check", "Error", "Table 'nope' doesn't exist"},
		{"ck.nope", "check", "status", "Operation failed"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CHECK TABLE: %v, want %v", got, want)
	}
}

// REPAIR TABLE answers as MySQL does for InnoDB tables: a note that the
// engine does not repair (CHECK TABLE is how a table is checked), and a
// missing table's error then "Operation failed".
func TestRepairTable(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ck", "CREATE TABLE ck.t (a INT PRIMARY KEY)")
	got := queryRows(t, db, "REPAIR NO_WRITE_TO_BINLOG TABLE ck.t, ck.nope QUICK")
	if len(got) != 3 || !reflect.DeepEqual(got[0], []string{"ck.t", "repair", "note", "The storage engine for the table doesn't support repair"}) ||
		got[1][2] != "Error" || !reflect.DeepEqual(got[2], []string{"ck.nope", "repair", "status", "Operation failed"}) {
		t.Fatalf("REPAIR TABLE: %v", got)
	}
}

// An index added to a table with rows holds each row's entry: text in a
// case- and accent-insensitive collation, prefix columns, NULLs, wide
// and multibyte values, a keyless table's hidden key (CHECK TABLE
// recomputes every entry from its row), and lookups through it find the
// rows a scan finds.
func TestAddIndexEntries(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ai",
		"CREATE TABLE ai.t (id INT PRIMARY KEY, s VARCHAR(40) COLLATE utf8mb4_0900_ai_ci, n INT, b TEXT, d DECIMAL(8,2))",
		"CREATE TABLE ai.k (s VARCHAR(10), n INT)")
	for i := 0; i < 300; i++ {
		s := []string{"abc", "ABC", "Ábc", "ßtraße", "x", "", "日本語テキスト"}[i%7]
		n := "NULL"
		if i%5 != 0 {
			n = itoa(i % 10)
		}
		mustExec(t, db, "INSERT INTO ai.t VALUES ("+itoa(i)+", '"+s+itoa(i%3)+"', "+n+", REPEAT('w', "+itoa(i%50)+"), "+itoa(i)+".25)",
			"INSERT INTO ai.k VALUES ('"+s+"', "+n+")")
	}
	mustExec(t, db, "ALTER TABLE ai.t ADD INDEX sn (s(4), n), ADD INDEX bd (b(10), d)", "CREATE INDEX ns ON ai.t (n, s)", "ALTER TABLE ai.k ADD INDEX s (s)")
	got := queryRows(t, db, "CHECK TABLE ai.t, ai.k EXTENDED")
	want := [][]string{{"ai.t", "check", "status", "OK"}, {"ai.k", "check", "status", "OK"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CHECK TABLE after ADD INDEX: %v, want %v", got, want)
	}
	for _, q := range []string{
		"SELECT COUNT(*) FROM ai.t %s WHERE s = 'abc1' AND n = 1",
		"SELECT COUNT(*) FROM ai.t %s WHERE n IS NULL AND s LIKE 'ab%%'",
		"SELECT COUNT(*) FROM ai.k %s WHERE s = 'ABC'",
	} {
		idx := map[bool]string{true: "FORCE INDEX (sn)", false: "IGNORE INDEX (sn)"}
		if strings.Contains(q, "ai.k") {
			idx = map[bool]string{true: "FORCE INDEX (s)", false: "IGNORE INDEX (s)"}
		}
		by, scan := queryRows(t, db, fmt.Sprintf(q, idx[true])), queryRows(t, db, fmt.Sprintf(q, idx[false]))
		if !reflect.DeepEqual(by, scan) || by[0][0] == "0" {
			t.Errorf("%s: %v through the index, %v by a scan", q, by, scan)
		}
	}
}

// TestAddIndexIngested: ADD INDEX of a table whose entries pass half a
// memtable builds them into a table file ingested at commit
// (storage/bulkindex.go); CHECK TABLE EXTENDED recomputes every entry,
// lookups through the index answer as scans do, also after UPDATEs that
// move entries of the ingested index, a DELETE, and an ALTER that adds
// an index and a column in one statement (the rows rewritten after the
// build).
func TestAddIndexIngested(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ing",
		"CREATE TABLE ing.seq (n INT PRIMARY KEY)",
		"INSERT INTO ing.seq VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
		"CREATE TABLE ing.t (id INT PRIMARY KEY, k INT, c CHAR(100) COLLATE utf8mb4_0900_ai_ci)",
		"INSERT INTO ing.t SELECT a.n*1000+b.n*100+c.n*10+d.n, (a.n*1000+b.n*100+c.n*10+d.n) % 97, CONCAT(IF(d.n % 2 = 0, 'Row-', 'row-'), (a.n*1000+b.n*100+c.n*10+d.n) % 500, REPEAT('x', 60)) FROM ing.seq a, ing.seq b, ing.seq c, ing.seq d")
	before := statusInt(t, db, "Petrel_index_ingests")
	mustExec(t, db, "ALTER TABLE ing.t ADD INDEX c_ix (c), ADD INDEX kc (k, c)")
	if got := statusInt(t, db, "Petrel_index_ingests") - before; got != 2 {
		t.Fatalf("%d index builds ingested, want 2", got)
	}
	check := func(when string) {
		t.Helper()
		if got := queryRows(t, db, "CHECK TABLE ing.t EXTENDED"); !reflect.DeepEqual(got, [][]string{{"ing.t", "check", "status", "OK"}}) {
			t.Fatalf("CHECK TABLE %s: %v", when, got)
		}
		for _, q := range []string{
			"SELECT COUNT(*), SUM(id) FROM ing.t %s WHERE c = 'ROW-7" + strings.Repeat("x", 60) + "'",
			"SELECT COUNT(*), SUM(id) FROM ing.t %s WHERE c >= 'row-1' AND c < 'row-2'",
		} {
			by := queryRows(t, db, fmt.Sprintf(q, "FORCE INDEX (c_ix)"))
			scan := queryRows(t, db, fmt.Sprintf(q, "IGNORE INDEX (c_ix, kc)"))
			if !reflect.DeepEqual(by, scan) || by[0][0] == "0" {
				t.Errorf("%s, %s: %v through the index, %v by a scan", when, q, by, scan)
			}
		}
		q := "SELECT COUNT(*), SUM(id) FROM ing.t %s WHERE k = 5 AND c LIKE 'row-1%%'"
		by, scan := queryRows(t, db, fmt.Sprintf(q, "FORCE INDEX (kc)")), queryRows(t, db, fmt.Sprintf(q, "IGNORE INDEX (c_ix, kc)"))
		if !reflect.DeepEqual(by, scan) || by[0][0] == "0" {
			t.Errorf("%s, %s: %v through kc, %v by a scan", when, q, by, scan)
		}
	}
	check("after ADD INDEX")
	mustExec(t, db, "UPDATE ing.t SET c = CONCAT('row-1', id) WHERE id % 13 = 0",
		"DELETE FROM ing.t WHERE id % 17 = 0")
	check("after UPDATE and DELETE")
	before = statusInt(t, db, "Petrel_index_ingests")
	mustExec(t, db, "ALTER TABLE ing.t ADD INDEX c2 (c), ADD COLUMN z INT DEFAULT 7")
	check("after ADD INDEX with ADD COLUMN")
	if got := queryRows(t, db, "SELECT COUNT(*), SUM(z) = 7 * COUNT(*) FROM ing.t FORCE INDEX (c2) WHERE c >= ''"); got[0][0] == "0" || got[0][1] != "1" {
		t.Errorf("rows through c2: %v", got)
	}
	t.Logf("ADD INDEX with ADD COLUMN: %d builds ingested", statusInt(t, db, "Petrel_index_ingests")-before)
	// The dropped index's id is the new one's: its entries' deletion in
	// the same transaction must not cover the new entries.
	mustExec(t, db, "ALTER TABLE ing.t DROP INDEX c2, ADD INDEX c2 (c)")
	check("after DROP INDEX and ADD INDEX of one id")
	if got := queryRows(t, db, "SELECT COUNT(*) = (SELECT COUNT(*) FROM ing.t) FROM ing.t FORCE INDEX (c2) WHERE c >= ''"); got[0][0] != "1" {
		t.Errorf("rows through the re-added c2: %v, want every row", got)
	}
}
