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
