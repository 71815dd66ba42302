package node_test

import (
	"reflect"
	"testing"
)

// TestScanColumnsKeepAnswers: full scans decode only the columns a
// statement names (sqlengine/scancols.go) and leave the others NULL, so
// a column any part of a statement reads and the rule missed would show
// as NULL here. Each query reads its columns from a different place:
// conditions only, ORDER BY of a column not selected, GROUP BY and
// HAVING, join keys under aliases (the same table twice), ranges of the
// primary key (whose re-check reads the key), single-row reads by the
// whole key (alone and as a join's lookup), a correlated
// subquery's reference to the outer table, an aggregate over an
// expression, COUNT(*) with no column at all, a NOT IN over a join
// (whose anti join GMS plans under a projection of every column of the
// joined tables), and SELECT * (every column).
// Petrel_narrow_scans shows the rule applied to each but the stars (a
// SELECT * is the table itself, no expression naming its columns).
func TestScanColumnsKeepAnswers(t *testing.T) {
	_, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE sc")
	db := open("sc")
	db.SetMaxOpenConns(1)
	mustExec(t, db,
		`CREATE TABLE li (k INT NOT NULL PRIMARY KEY, grp CHAR(1) NOT NULL, qty DECIMAL(10,2) NOT NULL,
			price DECIMAL(12,2), note VARCHAR(20), parent INT, d DATE)`,
		`INSERT INTO li VALUES (1, 'a', 5.00, 10.50, 'one', NULL, '1994-03-01'), (2, 'a', 25.00, 20.00, 'two', 1, '1995-03-01'),
			(3, 'b', 7.50, NULL, 'three', 1, '1994-07-01'), (4, 'b', 1.25, 4.00, NULL, 2, '1994-12-31'), (5, 'c', 30.00, 1.00, 'five', 4, '1993-01-01')`,
		"CREATE TABLE ps (pk INT NOT NULL, sk INT NOT NULL, qty INT NOT NULL, cmt VARCHAR(40), PRIMARY KEY (pk, sk))",
		"CREATE TABLE sup (sk INT NOT NULL PRIMARY KEY, cmt VARCHAR(40))",
		"INSERT INTO sup VALUES (10, 'good'), (11, 'bad one'), (12, 'fine'), (13, 'good'), (14, 'bad')",
		`INSERT INTO ps VALUES (1, 10, 1, 'x'), (1, 11, 1, 'x'), (1, 12, 1, 'x'), (2, 10, 1, 'x'), (3, 13, 1, 'x'),
			(3, 14, 1, 'x'), (5, 10, 1, 'x'), (5, 12, 1, 'x'), (5, 13, 1, 'x'), (5, 14, 1, 'x')`,
		"ANALYZE TABLE li, ps, sup")
	cases := []struct {
		q    string
		want [][]string
	}{
		{"SELECT k FROM li WHERE qty < 10 AND d >= '1994-01-01' ORDER BY d", [][]string{{"1"}, {"3"}, {"4"}}},
		{"SELECT note FROM li WHERE grp = 'a' ORDER BY price DESC", [][]string{{"two"}, {"one"}}},
		{"SELECT grp, SUM(qty * price) FROM li GROUP BY grp HAVING MAX(d) > '1994-06-01' ORDER BY grp", [][]string{{"a", "552.5000"}, {"b", "5.0000"}}},
		{"SELECT c.k, p.note FROM li c JOIN li p ON c.parent = p.k WHERE p.qty > 2 ORDER BY c.k", [][]string{{"2", "one"}, {"3", "one"}, {"4", "two"}}},
		{"SELECT k FROM li o WHERE o.qty > (SELECT AVG(i.qty) FROM li i WHERE i.grp = o.grp) ORDER BY k", [][]string{{"2"}, {"3"}}},
		{"SELECT COUNT(*), SUM(price) FROM li", [][]string{{"5", "35.50"}}},
		// Ranges of the primary key (the range's re-check reads k).
		{"SELECT note, qty FROM li WHERE k BETWEEN 2 AND 4 AND qty > 2", [][]string{{"two", "25.00"}, {"three", "7.50"}}},
		{"SELECT note FROM li WHERE k >= 2 ORDER BY k DESC LIMIT 2", [][]string{{"five"}, {"NULL"}}},
		// Single-row reads by the whole key, alone and as a join's lookup.
		{"SELECT note FROM li WHERE k = 3", [][]string{{"three"}}},
		{"SELECT c.k, p.note, p.qty FROM li c JOIN li p ON c.parent = p.k WHERE c.k IN (3, 4) ORDER BY c.k", [][]string{{"3", "one", "5.00"}, {"4", "two", "25.00"}}},
		// NOT IN over a join: GMS projects every column of the join's
		// tables under the anti join's filter; those pass-through
		// columns are no reads (TPC-H Q16). The scan of p and the
		// lookups into c (one per p row) decode what is named.
		{`SELECT li.grp, COUNT(DISTINCT ps.sk) FROM ps, li WHERE li.k = ps.pk
			AND ps.sk NOT IN (SELECT sk FROM sup WHERE cmt LIKE '%bad%') GROUP BY li.grp ORDER BY li.grp`,
			[][]string{{"a", "2"}, {"b", "1"}, {"c", "3"}}},
		{"SELECT * FROM li WHERE grp = 'c'", [][]string{{"5", "c", "30.00", "1.00", "five", "4", "1993-01-01T00:00:00Z"}}},
		{"SELECT * FROM li WHERE k = 4 OR note = 'five' ORDER BY k", [][]string{{"4", "b", "1.25", "4.00", "NULL", "2", "1994-12-31T00:00:00Z"}, {"5", "c", "30.00", "1.00", "five", "4", "1993-01-01T00:00:00Z"}}},
	}
	for i, c := range cases {
		before := statusInt(t, db, "Petrel_narrow_scans")
		got := queryRows(t, db, c.q)
		narrow := statusInt(t, db, "Petrel_narrow_scans") - before
		if star := i >= len(cases)-2; (narrow == 0) != star {
			t.Errorf("%s: %d narrow scans", c.q, narrow)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.q, got, c.want)
		}
	}
}
