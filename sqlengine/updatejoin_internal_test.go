package sqlengine

import (
	"fmt"
	"strings"
	"testing"
)

// TestUpdateJoinWritesEachRowOnce: a multiple-table UPDATE whose target
// is the join's inner side (planned so with 2,000-row tables: a range of
// one_pk scanned for every row of t2) writes each target row once, with
// its first match's values, as MySQL: GMS wrote one_pk's row once per
// matching t2 row and kept the last (c1 = 11, not 1). A second statement
// in the same session and a single-table UPDATE are not affected.
func TestUpdateJoinWritesEachRowOnce(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE one_pk (pk INT PRIMARY KEY, c1 INT)")
	env.must("CREATE TABLE two_pk (pk1 INT, pk2 INT, c1 INT, PRIMARY KEY (pk1, pk2))")
	var a, b []string
	for i := 0; i < 2000; i++ {
		a = append(a, fmt.Sprintf("(%d, %d)", i, i*10))
		b = append(b, fmt.Sprintf("(%d, 0, %d), (%d, 1, %d)", i, i*100, i, i*100+10))
	}
	env.must("INSERT INTO one_pk VALUES " + strings.Join(a, ","))
	env.must("INSERT INTO two_pk VALUES " + strings.Join(b, ","))
	env.must("ANALYZE TABLE one_pk, two_pk")
	env.must("UPDATE one_pk INNER JOIN (SELECT * FROM two_pk ORDER BY pk1, pk2) AS t2 ON one_pk.pk = t2.pk1 SET one_pk.c1 = t2.c1 + 1 WHERE one_pk.pk < 1")
	if got, want := env.must("SELECT * FROM one_pk WHERE pk < 3"), "[[0 1] [1 10] [2 20]]"; got != want {
		t.Errorf("after the join update: %s, want %s", got, want)
	}
	env.must("UPDATE one_pk INNER JOIN (SELECT * FROM two_pk ORDER BY pk1, pk2) AS t2 ON one_pk.pk = t2.pk1 SET one_pk.c1 = one_pk.c1 + t2.c1 WHERE one_pk.pk BETWEEN 1 AND 2")
	if got, want := env.must("SELECT * FROM one_pk WHERE pk < 3"), "[[0 1] [1 110] [2 220]]"; got != want {
		t.Errorf("after the second join update: %s, want %s", got, want)
	}
	env.must("UPDATE one_pk SET c1 = c1 + 1 WHERE pk < 3")
	if got, want := env.must("SELECT * FROM one_pk WHERE pk < 3"), "[[0 2] [1 111] [2 221]]"; got != want {
		t.Errorf("after a single-table update: %s, want %s", got, want)
	}
}
