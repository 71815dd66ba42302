package sqlengine

import "testing"

// TestStatementKind: the admission gate's reading of a statement's first
// keyword: reads and the statements that begin a transaction ask for a
// slot; everything else (writes, COMMIT, SET, SHOW) does not.
func TestStatementKind(t *testing.T) {
	for q, want := range map[string]stmtKind{
		"SELECT 1":                             kindRead,
		"  select c FROM t WHERE id=?":         kindRead,
		"(SELECT 1) UNION (SELECT 2)":          kindRead,
		"WITH x AS (SELECT 1) SELECT * FROM x": kindRead,
		"select\n1":                            kindRead,
		"BEGIN":                                kindBegin,
		"begin;":                               kindBegin,
		"START TRANSACTION READ ONLY":          kindBegin,
		"UPDATE t SET v = 1":                   kindOther,
		"INSERT INTO t SELECT * FROM u":        kindOther,
		"COMMIT":                               kindOther,
		"SET autocommit = 0":                   kindOther,
		"SHOW STATUS":                          kindOther,
		"/* comment */ SELECT 1":               kindOther,
		"":                                     kindOther,
		"SELECTED":                             kindOther,
		"beginning":                            kindOther,
	} {
		if got := statementKind(q); got != want {
			t.Errorf("%q: kind %d, want %d", q, got, want)
		}
	}
}
