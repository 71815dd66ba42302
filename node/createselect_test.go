package node_test

import (
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
