package sqlengine

import (
	"testing"
)

// TestGroupingIterator: GROUP BY with grouping keys runs through
// groupIter, and groups as GMS's iterator did: strings equal under the
// column's collation together (trailing spaces under PAD SPACE), NULL
// its own group, an integer and a DOUBLE of the same value together,
// decimals of one column by value, dates, several keys, groups in the
// order first seen, HAVING and an aggregate-free GROUP BY.
func TestGroupingIterator(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE g (id INT PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_general_ci, b VARBINARY(10), n INT, f DOUBLE, d DECIMAL(6,2), dt DATE)")
	env.must("INSERT INTO g VALUES (1, 'a', 'a', 1, 1.0, 1.50, '2020-01-01'), (2, 'A', 'A', 2, 2.5, 1.50, '2020-01-01'), " +
		"(3, 'a ', 'a ', 1, 1.0, 2.00, '2020-01-02'), (4, NULL, NULL, NULL, NULL, NULL, NULL), (5, 'b', 'b', 2, 2.0, 2.00, '2020-01-02'), (6, NULL, NULL, 1, 1.0, 1.50, '2020-01-01')")
	env.must("CREATE TABLE gl (id INT PRIMARY KEY, s VARCHAR(100) COLLATE utf8mb4_general_ci)")
	env.must("INSERT INTO gl SELECT id, CONCAT(REPEAT('x', 70), s) FROM g")
	before := env.e.groupItersBuilt.Load()
	for q, want := range map[string]string{
		"SELECT COUNT(*), MIN(id) FROM g GROUP BY s ORDER BY MIN(id)":                "[[3 1] [2 4] [1 5]]",
		"SELECT COUNT(*), MIN(id) FROM g GROUP BY b ORDER BY MIN(id)":                "[[1 1] [1 2] [1 3] [2 4] [1 5]]",
		"SELECT COUNT(*), MIN(id) FROM g GROUP BY IF(id < 3, n, f) ORDER BY MIN(id)": "[[3 1] [2 2] [1 4]]",
		"SELECT d, COUNT(*) FROM g GROUP BY d ORDER BY d":                            "[[<nil> 1] [1.5 3] [2 2]]",
		"SELECT dt, n, COUNT(*) FROM g GROUP BY dt, n ORDER BY dt, n":                "[[<nil> <nil> 1] [2020-01-01 00:00:00 +0000 UTC 1 2] [2020-01-01 00:00:00 +0000 UTC 2 1] [2020-01-02 00:00:00 +0000 UTC 1 1] [2020-01-02 00:00:00 +0000 UTC 2 1]]",
		"SELECT n, SUM(d) FROM g GROUP BY n HAVING SUM(d) > 3 ORDER BY n":            "[[1 5] [2 3.5]]",
		// Past the cached length of a collation key (groupCollKey).
		"SELECT COUNT(*), MIN(id) FROM gl GROUP BY s ORDER BY MIN(id)":       "[[3 1] [2 4] [1 5]]",
		"SELECT n FROM g GROUP BY n":                                         "[[1] [2] [<nil>]]",
		"SELECT COUNT(*) FROM (SELECT s FROM g WHERE id > 100 GROUP BY s) x": "[[0]]",
	} {
		if got := env.must(q); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
	if built := env.e.groupItersBuilt.Load() - before; built < 8 {
		t.Errorf("%d grouping iterators built for 8 grouped queries", built)
	}
}

// TestGroupingInOrder: a GROUP BY of a primary key's first columns over
// a scan of its table (under a filter, HAVING, a subquery's IN) answers
// each group as the next begins, with the answers and order of the
// hashing iterator; grouping by other columns, by a text key column or
// over an index access hashes.
func TestGroupingInOrder(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE li (o INT, l INT, q DECIMAL(8,2), s VARCHAR(5), PRIMARY KEY (o, l))")
	env.must("CREATE TABLE ts (k VARCHAR(5) COLLATE utf8mb4_general_ci, l INT, PRIMARY KEY (k, l))")
	env.must("INSERT INTO li VALUES (1, 1, 10, 'a'), (1, 2, 5, 'b'), (2, 1, 7, 'a'), (3, 1, 1, 'b'), (3, 2, 2, 'a'), (3, 3, 3, 'a'), (5, 1, 40, NULL)")
	env.must("INSERT INTO ts VALUES ('a', 1), ('A', 2), ('b', 1)")
	for _, c := range []struct {
		q, want string
		inOrder bool
	}{
		{"SELECT o, SUM(q), COUNT(*) FROM li GROUP BY o", "[[1 15 2] [2 7 1] [3 6 3] [5 40 1]]", true},
		{"SELECT l, o, MAX(q) FROM li GROUP BY l, o", "[[1 1 10] [2 1 5] [1 2 7] [1 3 1] [2 3 2] [3 3 3] [1 5 40]]", true},
		{"SELECT o FROM li WHERE l > 1 GROUP BY o HAVING SUM(q) > 4", "[[1] [3]]", true},
		{"SELECT COUNT(*) FROM li WHERE o IN (SELECT o FROM li GROUP BY o HAVING SUM(q) > 6)", "[[4]]", true},
		{"SELECT o FROM li WHERE q > 100 GROUP BY o", "[]", true},
		// A range of the key is an index access: hashed.
		{"SELECT o FROM li WHERE o > 2 GROUP BY o", "[[3] [5]]", false},
		{"SELECT l, COUNT(*) FROM li GROUP BY l", "[[1 4] [2 2] [3 1]]", false},
		{"SELECT s, COUNT(*) FROM li GROUP BY s", "[[a 4] [b 2] [<nil> 1]]", false},
		{"SELECT COUNT(*) FROM ts GROUP BY k", "[[2] [1]]", false},
	} {
		before := env.e.groupItersInOrder.Load()
		if got := env.must(c.q); got != c.want {
			t.Errorf("%s: %s, want %s", c.q, got, c.want)
		}
		if in := env.e.groupItersInOrder.Load() > before; in != c.inOrder {
			t.Errorf("%s: grouped in order %v, want %v", c.q, in, c.inOrder)
		}
	}
}
