package node_test

import (
	"fmt"
	"reflect"
	"testing"
)

// REPLACE, INSERT ... ON DUPLICATE KEY UPDATE, INSERT IGNORE and UPDATE
// IGNORE on tables with several unique keys: MySQL's rows and affected
// counts, and every unique index agreeing with the rows afterwards (a row
// refused by its second unique key used to leave its first key's entry
// behind, and the next statement failed with "index points at missing
// row").
func TestSeveralUniqueKeys(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE uk", "CREATE TABLE uk.u (a INT PRIMARY KEY, b INT UNIQUE, c INT UNIQUE)")
	steps := []struct {
		q        string
		affected int64
	}{
		{"INSERT INTO uk.u VALUES (1,1,1),(2,2,2)", 2},
		// Conflicts on a (row 2) and c (row 1): both go, one row comes.
		{"REPLACE INTO uk.u VALUES (2,3,1)", 3},
		{"INSERT INTO uk.u VALUES (5,5,5),(6,6,6)", 2},
		{"REPLACE INTO uk.u VALUES (5,6,7),(8,8,5)", 4},
		// The first duplicate key (the primary) picks the row updated.
		{"INSERT INTO uk.u VALUES (2,8,9) ON DUPLICATE KEY UPDATE c = 10", 2},
		{"INSERT IGNORE INTO uk.u VALUES (9,3,11)", 0},
		{"INSERT INTO uk.u VALUES (9,12,11)", 1},
		// b would move, c collides: the row stays as it was.
		{"UPDATE IGNORE uk.u SET b = b + 100, c = 11 WHERE a = 5", 0},
		{"UPDATE IGNORE uk.u SET b = 13, c = 14 WHERE a = 8", 1},
	}
	for _, s := range steps {
		res, err := db.Exec(s.q)
		if err != nil {
			t.Fatalf("%s: %v", s.q, err)
		}
		if n, _ := res.RowsAffected(); n != s.affected {
			t.Fatalf("%s: %d rows affected, want %d", s.q, n, s.affected)
		}
	}
	want := [][]string{{"2", "3", "10"}, {"5", "6", "7"}, {"8", "13", "14"}, {"9", "12", "11"}}
	if got := queryRows(t, db, "SELECT a, b, c FROM uk.u ORDER BY a"); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	// Each unique index finds each row by its value, and nothing else.
	for _, r := range want {
		for _, col := range []string{"b", "c"} {
			v := r[1]
			if col == "c" {
				v = r[2]
			}
			q := fmt.Sprintf("SELECT a FROM uk.u WHERE %s = %s", col, v)
			if got := queryRows(t, db, q); len(got) != 1 || got[0][0] != r[0] {
				t.Fatalf("%s: %v, want [[%s]]", q, got, r[0])
			}
		}
	}
	for _, q := range []string{"SELECT a FROM uk.u WHERE b IN (1, 105, 106, 2, 8)", "SELECT a FROM uk.u WHERE c IN (1, 2, 5, 9, 6)"} {
		if got := queryRows(t, db, q); len(got) != 0 {
			t.Fatalf("%s: stale index entries %v", q, got)
		}
	}
}
