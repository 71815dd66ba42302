package sqlengine

import (
	"fmt"
	"strings"
	"testing"
)

// TestCorrelatedSubqueryRemembered: a correlated scalar subquery (TPC-H
// Q17's shape) runs once per distinct outer value, not once per outer
// row, and answers as when run every time: the same rows in a second
// execution after the data changed, none remembered for a subquery with
// RAND() or in a statement that writes.
func TestCorrelatedSubqueryRemembered(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE part (p INT PRIMARY KEY, brand INT NOT NULL)")
	env.must("CREATE TABLE line (id INT PRIMARY KEY, p INT NOT NULL, q INT NOT NULL)")
	const parts, perPart = 10, 20
	var pv, lv []string
	qty := map[int][]int{}
	for p := 1; p <= parts; p++ {
		pv = append(pv, fmt.Sprintf("(%d, %d)", p, p%2))
		for i := 0; i < perPart; i++ {
			q := (p*7 + i*13) % 50
			qty[p] = append(qty[p], q)
			lv = append(lv, fmt.Sprintf("(%d, %d, %d)", p*100+i, p, q))
		}
	}
	env.must("INSERT INTO part VALUES " + strings.Join(pv, ","))
	env.must("INSERT INTO line VALUES " + strings.Join(lv, ","))

	// want is the count and sum of brand-1 lines below their part's
	// average quantity, computed here.
	want := func() string {
		n, sum := 0, 0
		for p := 1; p <= parts; p++ {
			if p%2 != 1 {
				continue
			}
			tot := 0
			for _, q := range qty[p] {
				tot += q
			}
			for _, q := range qty[p] {
				if q*len(qty[p]) < tot {
					n, sum = n+1, sum+q
				}
			}
		}
		return fmt.Sprintf("[[%d %d]]", n, sum)
	}
	counters := func() (uint64, uint64) {
		return env.e.subqueryCache.Hits.Load(), env.e.subqueryCache.Misses.Load()
	}
	grouped := func() uint64 { return env.e.subqueryCache.GroupedRuns.Load() }
	const q17 = "SELECT COUNT(*), CAST(SUM(q) AS SIGNED) FROM line, part WHERE part.p = line.p AND part.brand = 1 AND q < (SELECT AVG(q) FROM line l2 WHERE l2.p = part.p)"
	check := func(when string, q string, wantHits, wantMisses, wantGrouped uint64) {
		t.Helper()
		h0, m0 := counters()
		g0 := grouped()
		if got, w := env.must(q), want(); got != w {
			t.Fatalf("%s: got %s, want %s", when, got, w)
		}
		h1, m1 := counters()
		if h1-h0 != wantHits || m1-m0 != wantMisses || grouped()-g0 != wantGrouped {
			t.Fatalf("%s: %d hits, %d misses, %d grouped runs; want %d, %d, %d", when, h1-h0, m1-m0, grouped()-g0, wantHits, wantMisses, wantGrouped)
		}
	}
	// 5 brand-1 parts of 20 lines: 100 evaluations. The second miss
	// runs the subquery grouped by l2.p once, which answers the rest.
	check("first run", q17, 98, 2, 1)
	// The data changes: the next execution must not use the first's.
	env.must("UPDATE line SET q = q + 40 WHERE p = 3 AND id % 3 = 0")
	for i := range qty[3] {
		if (300+i)%3 == 0 {
			qty[3][i] += 40
		}
	}
	check("after an update", q17, 98, 2, 1)
	// A prepared statement executed again after a change.
	env.must("PREPARE s17 FROM '" + q17 + "'")
	check("prepared", "EXECUTE s17", 98, 2, 1)
	env.must("UPDATE line SET q = q + 30 WHERE p = 5 AND id % 2 = 0")
	for i := range qty[5] {
		if (500+i)%2 == 0 {
			qty[5][i] += 30
		}
	}
	check("prepared, after an update", "EXECUTE s17", 98, 2, 1)
	// RAND() in the subquery: evaluated every time, never remembered.
	check("with RAND()", strings.Replace(q17, "AVG(q)", "AVG(q) + RAND() * 0", 1), 0, 0, 0)

	// A statement that writes evaluates its subqueries every time.
	env.must("CREATE TABLE cnt (p INT PRIMARY KEY, n INT)")
	env.must("INSERT INTO cnt SELECT p, 0 FROM part")
	h0, m0 := counters()
	env.must("UPDATE cnt SET n = (SELECT COUNT(*) FROM line WHERE line.p = cnt.p AND line.q >= 25)")
	if h1, m1 := counters(); h1 != h0 || m1 != m0 {
		t.Fatalf("UPDATE: %d hits and %d misses, want none", h1-h0, m1-m0)
	}
	wantCnt := 0
	for p := 1; p <= parts; p++ {
		for _, q := range qty[p] {
			if q >= 25 {
				wantCnt++
			}
		}
	}
	if got := env.must("SELECT CAST(SUM(n) AS SIGNED) FROM cnt"); got != fmt.Sprintf("[[%d]]", wantCnt) {
		t.Fatalf("UPDATE's counts sum to %s, want %d", got, wantCnt)
	}

	// In the select list, keyed by two outer columns: one evaluation per
	// distinct (p, q / 25) pair.
	h0, m0 = counters()
	got := env.must("SELECT CAST(SUM((SELECT COUNT(*) FROM line l2 WHERE l2.p = line.p AND l2.q < line.q DIV 25 * 25)) AS SIGNED) FROM line")
	wantSum := 0
	pairs := map[[2]int]bool{}
	for p := 1; p <= parts; p++ {
		for _, q := range qty[p] {
			pairs[[2]int{p, q}] = true
			for _, q2 := range qty[p] {
				if q2 < q/25*25 {
					wantSum++
				}
			}
		}
	}
	if got != fmt.Sprintf("[[%d]]", wantSum) {
		t.Fatalf("select list: got %s, want %d", got, wantSum)
	}
	h1, m1 := counters()
	if h1-h0+m1-m0 != parts*perPart || m1-m0 != uint64(len(pairs)) {
		t.Fatalf("select list: %d hits and %d misses, want %d lookups and %d misses (one per distinct (p, q))", h1-h0, m1-m0, parts*perPart, len(pairs))
	}
}

// TestCorrelatedSubqueryGrouped: the grouped run (subquery/subqgroup.go) answers
// TPC-H Q20's shape (two correlated columns and a condition on the inner
// table alone) as the subquery run per row would: outer values with no
// inner rows get the aggregate of nothing (COUNT 0, SUM NULL), NULL outer
// values and NULL inner keys match nothing, and a correlation between
// signed and unsigned columns is not grouped (its keys would not meet).
func TestCorrelatedSubqueryGrouped(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE o (id INT PRIMARY KEY, pk INT, sk INT, avail INT, upk INT UNSIGNED)")
	env.must("CREATE TABLE li (id INT PRIMARY KEY, pk BIGINT, sk SMALLINT, q INT, d INT)")
	type orow struct{ pk, sk *int }
	ip := func(v int) *int { return &v }
	var outer []orow
	var ov, lv []string
	for i := 1; i <= 60; i++ {
		r := orow{ip(i % 12), ip(i % 5)}
		if i%17 == 0 {
			r.pk = nil
		}
		if i%19 == 0 {
			r.sk = nil
		}
		outer = append(outer, r)
		sqlv := func(p *int) string {
			if p == nil {
				return "NULL"
			}
			return fmt.Sprint(*p)
		}
		ov = append(ov, fmt.Sprintf("(%d, %s, %s, %d, %s)", i, sqlv(r.pk), sqlv(r.sk), i%9, sqlv(r.pk)))
	}
	type lrow struct {
		pk, sk *int
		q, d   int
	}
	var lines []lrow
	for i := 1; i <= 300; i++ {
		r := lrow{ip(i % 9), ip(i % 4), i % 7, i % 5}
		if i%23 == 0 {
			r.pk = nil
		}
		lines = append(lines, r)
		pk := "NULL"
		if r.pk != nil {
			pk = fmt.Sprint(*r.pk)
		}
		lv = append(lv, fmt.Sprintf("(%d, %s, %d, %d, %d)", i, pk, *r.sk, r.q, r.d))
	}
	env.must("INSERT INTO o VALUES " + strings.Join(ov, ","))
	env.must("INSERT INTO li VALUES " + strings.Join(lv, ","))

	// sumCount is the subquery's answer for outer row r, computed here.
	sumCount := func(r orow, minD int) (sum, n int) {
		for _, l := range lines {
			if r.pk != nil && r.sk != nil && l.pk != nil && *l.pk == *r.pk && *l.sk == *r.sk && l.d >= minD {
				sum, n = sum+l.q, n+1
			}
		}
		return sum, n
	}
	var wantCount, wantSum []string
	for i, r := range outer {
		_, n := sumCount(r, 2)
		wantCount = append(wantCount, fmt.Sprintf("[%d %d]", i+1, n))
		if s, n := sumCount(r, 0); n > 0 {
			wantSum = append(wantSum, fmt.Sprintf("[%d %d]", i+1, s))
		} else {
			wantSum = append(wantSum, fmt.Sprintf("[%d <nil>]", i+1))
		}
	}
	for _, c := range []struct {
		name, q, want string
		grouped       uint64
	}{
		{"count", "SELECT id, (SELECT COUNT(*) FROM li WHERE li.pk = o.pk AND li.sk = o.sk AND li.d >= 2) FROM o ORDER BY id", "[" + strings.Join(wantCount, " ") + "]", 1},
		{"sum", "SELECT id, CAST((SELECT SUM(q) FROM li WHERE o.sk = li.sk AND o.pk = li.pk) AS SIGNED) FROM o ORDER BY id", "[" + strings.Join(wantSum, " ") + "]", 1},
		{"unsigned", "SELECT id, CAST((SELECT SUM(q) FROM li WHERE li.pk = o.upk AND li.sk = o.sk) AS SIGNED) FROM o ORDER BY id", "[" + strings.Join(wantSum, " ") + "]", 0},
	} {
		g0 := env.e.subqueryCache.GroupedRuns.Load()
		if got := env.must(c.q); got != c.want {
			t.Errorf("%s: got %s\nwant %s", c.name, got, c.want)
		}
		if g := env.e.subqueryCache.GroupedRuns.Load() - g0; g != c.grouped {
			t.Errorf("%s: %d grouped runs, want %d", c.name, g, c.grouped)
		}
	}
	// Q20's shape in WHERE: outer rows whose available quantity is over
	// half the inner sum (no inner rows: NULL, not kept).
	var want []string
	for i, r := range outer {
		if s, n := sumCount(r, 1); n > 0 && (i+1)%9*2 > s {
			want = append(want, fmt.Sprint(i+1))
		}
	}
	got := env.must("SELECT id FROM o WHERE avail > (SELECT 0.5 * SUM(q) FROM li WHERE li.pk = o.pk AND li.sk = o.sk AND li.d >= 1) ORDER BY id")
	if w := "[[" + strings.Join(want, "] [") + "]]"; len(want) > 0 && got != w {
		t.Errorf("Q20 shape: got %s, want %s", got, w)
	}
	if len(want) == 0 {
		t.Fatal("Q20 shape: the data keeps no row; the check would be empty")
	}
}
