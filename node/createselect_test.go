package node_test

import (
	"fmt"
	"reflect"
	"testing"
)

// CREATE TABLE ... AS SELECT of an aggregate over no rows stores the
// aggregate's NULL: GMS typed MAX, MIN, SUM and AVG of a NOT NULL
// column NOT NULL, so the new table refused its own row with 1048.
// COUNT stays NOT NULL, as a plain column copy does.
func TestCreateSelectAggregatesOfNoRows(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE cs", "USE cs",
		"CREATE TABLE t (a INT PRIMARY KEY, d DECIMAL(10,2) NOT NULL, f DOUBLE NOT NULL)",
		"CREATE TABLE c1 AS SELECT MAX(d) m, SUM(f) s, COUNT(*) n, MIN(a) mi, AVG(d) av, MAX(d) + 1 e FROM t",
		"CREATE TABLE c2 AS SELECT a, MAX(d) m FROM t WHERE a > 5 GROUP BY a",
		"INSERT INTO t VALUES (1, 2.50, 3)",
		"CREATE TABLE c3 AS SELECT MAX(d) m FROM t WHERE a > 5",
		"CREATE TABLE c4 AS SELECT d, a + 1 x FROM t")
	if got, want := queryRows(t, db, "SELECT * FROM c1"), [][]string{{"NULL", "NULL", "0", "NULL", "NULL", "NULL"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("c1: %v, want %v", got, want)
	}
	if got, want := queryRows(t, db, "SELECT * FROM c3"), [][]string{{"NULL"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("c3: %v, want %v", got, want)
	}
	nulls := func(table string) []string {
		var out []string
		for _, r := range queryRows(t, db, "SHOW COLUMNS FROM "+table) {
			out = append(out, r[0]+":"+r[2])
		}
		return out
	}
	for table, want := range map[string][]string{
		"c1": {"m:YES", "s:YES", "n:NO", "mi:YES", "av:YES", "e:YES"},
		"c2": {"a:NO", "m:YES"},
		"c4": {"d:NO", "x:NO"},
	} {
		if got := nulls(table); !reflect.DeepEqual(got, want) {
			t.Errorf("%s columns' nullability: %v, want %v", table, got, want)
		}
	}
}

// CREATE TABLE ... AS SELECT keeps the values it copies, in MySQL's column
// types: GMS typed the
// new columns from the select as it built the plan, before Petrel's
// rules retyped its expressions, so a DATETIME(3) + INTERVAL lost its
// fraction, a DATE + INTERVAL became a DATETIME, a DECIMAL(10,2) * 2 and
// COALESCE(int, decimal) refused values past DECIMAL(10,2) (1264), and
// CONCAT's column was a LONGTEXT comparing case-sensitively
// (utf8mb4_0900_bin), which an index could not take without a prefix.
func TestCreateSelectKeepsValues(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE cv", "USE cv",
		"CREATE TABLE t (i INT NOT NULL, d DECIMAL(10,2), v VARCHAR(20), dt DATE, ts DATETIME(3))",
		"INSERT INTO t VALUES (2147483647, 99999999.99, 'Hello', '2024-01-31', '2024-01-31 10:00:00.123')",
		"CREATE TABLE c AS SELECT ts + INTERVAL 1 SECOND a, dt + INTERVAL 1 DAY b, d * 2 e, d + i f, COALESCE(i, d) g, -i h, CONCAT(v, 'World') k FROM t")
	got := queryRows(t, db, "SELECT CAST(a AS CHAR), CAST(b AS CHAR), e, f, g, h, k FROM c")
	want := [][]string{{"2024-01-31 10:00:01.123", "2024-02-01", "199999999.98", "2247483646.99", "2147483647.00", "-2147483647", "HelloWorld"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("copied values: %v, want %v", got, want)
	}
	if got := queryRows(t, db, "SELECT COALESCE(i, d), COALESCE(NULL, 2, 1.5) FROM t"); !reflect.DeepEqual(got, [][]string{{"2147483647.00", "2.0"}}) {
		t.Errorf("COALESCE over an INT and a DECIMAL: %v", got) // was 1105 Out of range
	}
	// A VARCHAR, as MySQL's: indexed without a prefix length (a TEXT
	// column's index needs one: 1170).
	mustExec(t, db, "ALTER TABLE c ADD INDEX (k)")
	if n := queryRows(t, db, "SELECT COUNT(*) FROM c WHERE k = 'helloworld'"); n[0][0] != "1" {
		t.Errorf("CONCAT's column compares case-sensitively: %v rows", n)
	}
	var types []string
	for _, r := range queryRows(t, db, "SHOW COLUMNS FROM c") {
		types = append(types, r[0]+":"+r[1])
	}
	if want := []string{"a:datetime(3)", "b:date", "e:decimal(11,2)", "f:decimal(13,2)", "g:decimal(12,2)", "h:bigint", "k:varchar(25)"}; !reflect.DeepEqual(types, want) {
		t.Errorf("column types: %v, want %v", types, want)
	}
}

// TestCreateTableColumnsSelect: CREATE TABLE with column definitions and
// a SELECT (1064 before: vitess parses either part alone) creates the
// defined columns, then the SELECT's others, each filled from the SELECT
// column of its name or with its default, as MySQL's; one PREPAREd
// too. (A COM_STMT_PREPARE of it is still 1064: vitess parses that text
// itself.)
func TestCreateTableColumnsSelect(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE cs", "USE cs", "CREATE TABLE t1 (a INT, b INT)", "INSERT INTO t1 VALUES (1, 2), (3, 4)",
		"CREATE TABLE t3 (c INT) SELECT a AS c FROM t1",
		"CREATE TABLE t4 (x INT DEFAULT 7, b BIGINT) SELECT a, b FROM t1",
		"CREATE TABLE t5 (a INT NOT NULL PRIMARY KEY, b INT) AS SELECT b, a FROM t1 WHERE a > 1",
		"CREATE TEMPORARY TABLE t6 (a INT) SELECT * FROM t1")
	mustExec(t, db, "PREPARE s FROM 'CREATE TABLE t7 (a INT) SELECT a FROM t1 WHERE a > 2'", "EXECUTE s")
	for q, want := range map[string]string{
		"SELECT * FROM t3 ORDER BY c": "[[1] [3]]",
		"SELECT * FROM t4 ORDER BY a": "[[7 2 1] [7 4 3]]",
		"SELECT * FROM t5":            "[[3 4]]",
		"SELECT * FROM t6 ORDER BY a": "[[1 2] [3 4]]",
		"SELECT * FROM t7":            "[[3]]",
		"SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'cs' AND TABLE_NAME = 't4' ORDER BY ORDINAL_POSITION": "[[x int] [b bigint] [a int]]",
	} {
		if got := fmt.Sprint(queryRows(t, db, q)); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
	if _, err := db.Exec("CREATE TABLE t3 (c INT) SELECT a AS c FROM t1"); errno(t, err) != 1050 {
		t.Errorf("an existing table: %v, want error 1050", err)
	}
}
