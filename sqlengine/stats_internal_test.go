package sqlengine

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/histogram"
	"petrel/sqlengine/planstats"
	"petrel/storage"
)

// statsEnv is an engine over a datadir that can be restarted.
type statsEnv struct {
	t   *testing.T
	dir string
	st  *storage.Engine
	e   *Engine
	s   *Session
	// skew moves the statistics' clock ahead of the wall clock.
	skew  time.Duration
	query func(string) (string, error)
	must  func(string) string
}

func openStatsEnv(t *testing.T, dir string) *statsEnv {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := storage.Open(storage.Options{Dir: dir, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	env := &statsEnv{t: t, dir: dir, st: st}
	e, err := New(Options{Store: st, ServerUUID: "3e11fa47-71ca-11e1-9e33-c80aa9429562", Logger: quiet,
		Clock: func() time.Time { return time.Now().Add(env.skew) }})
	if err != nil {
		t.Fatal(err)
	}
	env.e, env.s = e, e.NewInternalSession()
	env.query, env.must = internalQueries(t, e, env.s)
	return env
}

func (env *statsEnv) close() {
	env.e.stats.Wait()
	if err := env.st.Close(); err != nil {
		env.t.Fatal(err)
	}
}

// sbtestKs fills sbtest1 and sbtest2 (sysbench's shape) with n rows each:
// id 1..n, k from a seeded narrow distribution (so k repeats, as
// sysbench's does), c naming the row. It returns each table's k by id.
func (env *statsEnv) sbtestKs(n int, seed int64) [2][]int {
	rng := rand.New(rand.NewSource(seed))
	var ks [2][]int
	env.must("CREATE DATABASE IF NOT EXISTS sbtest")
	env.s.SetCurrentDatabase("sbtest")
	for ti, tb := range []string{"sbtest1", "sbtest2"} {
		env.must("CREATE TABLE " + tb + " (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k))")
		ks[ti] = make([]int, n+1)
		for lo := 1; lo <= n; lo += 1000 {
			var vals []string
			for id := lo; id < lo+1000 && id <= n; id++ {
				k := n/2 - n/10 + rng.Intn(n/5)
				ks[ti][id] = k
				vals = append(vals, fmt.Sprintf("(%d, %d, '%s-%d', 'p')", id, k, tb, id))
			}
			env.must("INSERT INTO " + tb + " (id, k, c, pad) VALUES " + strings.Join(vals, ","))
		}
	}
	return ks
}

func distinct(vals []int) int64 {
	seen := map[int]bool{}
	for _, v := range vals[1:] {
		seen[v] = true
	}
	return int64(len(seen))
}

func setAutoRecalc(t *testing.T, on bool) {
	t.Helper()
	v := int8(0)
	if on {
		v = 1
	}
	// GMS's variable, which the test engines do not set: its process-wide
	// default is every engine's value.
	installRegistry()
	if err := procVars.inner.SetGlobal(sql.NewEmptyContext(), "innodb_stats_auto_recalc", v); err != nil {
		t.Fatal(err)
	}
}

const (
	// joinOnK is issue 18's indexed join: a selective range of sbtest1
	// joined to sbtest2 through its non-unique k index.
	joinOnK = "SELECT a.id, b.c FROM sbtest1 a JOIN sbtest2 b ON b.k = a.k WHERE a.id BETWEEN 5000 AND 5009"
	// joinOnID is the same join the other way: a range of sbtest1's k
	// joined to sbtest2's primary key.
	joinOnID = "SELECT count(*) FROM sbtest1 a JOIN sbtest2 b ON a.id = b.id WHERE a.k BETWEEN 4990 AND 5010"
)

// TestAnalyzeTableStatistics: ANALYZE TABLE answers MySQL's rows, fills
// information_schema.STATISTICS.CARDINALITY and SHOW INDEX's Cardinality
// with each index prefix's distinct count and TABLES.TABLE_ROWS with the
// row count; with them the planner turns issue 18's join from a merge
// join over both k indexes into a lookup join, whose rows equal a model of
// the data and the same query forced to a hash join; the statistics
// survive a restart, and a change of more than 10% of a table's rows
// refreshes them in the background.
func TestAnalyzeTableStatistics(t *testing.T) {
	setAutoRecalc(t, false)
	defer setAutoRecalc(t, true)
	dir := t.TempDir()
	env := openStatsEnv(t, dir)
	const n = 10000
	ks := env.sbtestKs(n, 18)

	const cards = "SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'sbtest' ORDER BY TABLE_NAME, INDEX_NAME"
	if got, want := env.must(cards), "[[sbtest1 k_1 1 0] [sbtest1 PRIMARY 1 0] [sbtest2 k_1 1 0] [sbtest2 PRIMARY 1 0]]"; got != want {
		t.Errorf("cardinalities before ANALYZE: %s, want %s", got, want)
	}
	if got, want := env.must("ANALYZE TABLE sbtest1, sbtest2"), "[[sbtest.sbtest1 analyze status OK] [sbtest.sbtest2 analyze status OK]]"; got != want {
		t.Errorf("ANALYZE TABLE: %s, want %s", got, want)
	}
	wantCards := fmt.Sprintf("[[sbtest1 k_1 1 %d] [sbtest1 PRIMARY 1 %d] [sbtest2 k_1 1 %d] [sbtest2 PRIMARY 1 %d]]", distinct(ks[0]), n, distinct(ks[1]), n)
	if got := env.must(cards); got != wantCards {
		t.Errorf("cardinalities after ANALYZE: %s, want %s", got, wantCards)
	}
	show := func() string {
		out, err := env.query("SHOW INDEX FROM sbtest1")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got, want := show(), fmt.Sprintf(" %d ", distinct(ks[0])); !strings.Contains(got, want) {
		t.Errorf("SHOW INDEX: %s, want a Cardinality of %d", got, distinct(ks[0]))
	}
	if got, want := env.must("SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sbtest' AND TABLE_NAME = 'sbtest2'"), fmt.Sprintf("[[%d]]", n); got != want {
		t.Errorf("TABLE_ROWS: %s, want %s", got, want)
	}

	// The model of joinOnK's rows and of joinOnID's count.
	var model []string
	for id := 5000; id <= 5009; id++ {
		for bid := 1; bid <= n; bid++ {
			if ks[1][bid] == ks[0][id] {
				model = append(model, fmt.Sprintf("[%d sbtest2-%d]", id, bid))
			}
		}
	}
	sort.Strings(model)
	var idCount int
	for id := 1; id <= n; id++ {
		if ks[0][id] >= 4990 && ks[0][id] <= 5010 {
			idCount++
		}
	}
	checkJoins := func(when string) {
		t.Helper()
		plan := env.must("EXPLAIN FORMAT=TREE " + joinOnK)
		if !strings.Contains(plan, "LookupJoin") || !strings.Contains(plan, "index: [sbtest2.k]") || !strings.Contains(plan, "filters: [{[5000, 5009]}]") {
			t.Errorf("%s: plan of %s: %s, want a lookup join from sbtest1's id range into sbtest2.k", when, joinOnK, plan)
		}
		if plan := env.must("EXPLAIN FORMAT=TREE " + joinOnID); !strings.Contains(plan, "LookupJoin") || !strings.Contains(plan, "index: [sbtest2.id]") {
			t.Errorf("%s: plan of %s: %s, want a lookup join into sbtest2's primary key", when, joinOnID, plan)
		}
		for _, q := range []string{joinOnK, strings.Replace(joinOnK, "SELECT", "SELECT /*+ HASH_JOIN(a,b) */", 1)} {
			out := env.must(q)
			rows := strings.SplitAfter(strings.TrimSuffix(strings.TrimPrefix(out, "["), "]"), "] ")
			for i := range rows {
				rows[i] = strings.TrimSpace(rows[i])
			}
			sort.Strings(rows)
			if got, want := strings.Join(rows, " "), strings.Join(model, " "); got != want {
				t.Errorf("%s: %s: %s, want %s", when, q, got, want)
			}
		}
		if got, want := env.must(joinOnID), fmt.Sprintf("[[%d]]", idCount); got != want {
			t.Errorf("%s: %s: %s, want %s", when, joinOnID, got, want)
		}
	}
	checkJoins("after ANALYZE")
	if plan := env.must("EXPLAIN FORMAT=TREE SELECT /*+ HASH_JOIN(a,b) */ a.id, b.c FROM sbtest1 a JOIN sbtest2 b ON b.k = a.k WHERE a.id BETWEEN 5000 AND 5009"); !strings.Contains(plan, "HashJoin") {
		t.Fatalf("the reference query is not a hash join: %s", plan)
	}

	env.close()
	env = openStatsEnv(t, dir)
	env.s.SetCurrentDatabase("sbtest")
	if got := env.must(cards); got != wantCards {
		t.Errorf("cardinalities after a restart: %s, want %s", got, wantCards)
	}
	checkJoins("after a restart")

	// More than 10% of sbtest2's rows change: 1500 new rows, each with a
	// k of its own. The next plan that reads sbtest2's statistics starts
	// a background analysis (once statsMinInterval has passed).
	setAutoRecalc(t, true)
	var vals []string
	for id := n + 1; id <= n+1500; id++ {
		vals = append(vals, fmt.Sprintf("(%d, %d, 'new', 'p')", id, 100000+id))
	}
	env.must("INSERT INTO sbtest2 (id, k, c, pad) VALUES " + strings.Join(vals, ","))
	env.skew += planstats.MinInterval
	env.must("EXPLAIN FORMAT=TREE " + joinOnK)
	env.e.stats.Wait()
	refreshed := fmt.Sprintf("[[sbtest2 k_1 1 %d] [sbtest2 PRIMARY 1 %d]]", distinct(ks[1])+1500, n+1500)
	if got := env.must(cards + " LIMIT 2 OFFSET 2"); got != refreshed {
		t.Errorf("sbtest2's cardinalities after 1500 new rows: %s, want %s", got, refreshed)
	}
	// A change below 10% leaves them alone.
	env.must("DELETE FROM sbtest2 WHERE id > 11400")
	env.skew += planstats.MinInterval
	env.must("EXPLAIN FORMAT=TREE " + joinOnK)
	env.e.stats.Wait()
	if got := env.must(cards + " LIMIT 2 OFFSET 2"); got != refreshed {
		t.Errorf("sbtest2's cardinalities after 100 deleted rows: %s, want %s (unchanged)", got, refreshed)
	}
	// Past 10% again, with no plan reading sbtest2's statistics: the
	// engine's periodic check (RefreshChanged, what its ticker calls)
	// starts the analysis, so the next plan has them fresh.
	vals = vals[:0]
	for id := n + 1500; id < n+3000; id++ {
		vals = append(vals, fmt.Sprintf("(%d, %d, 'new', 'p')", id, 100000+id))
	}
	env.must("INSERT INTO sbtest2 (id, k, c, pad) VALUES " + strings.Join(vals, ","))
	env.skew += planstats.MinInterval
	env.e.stats.RefreshChanged()
	env.e.stats.Wait()
	unplanned := fmt.Sprintf("[[sbtest2 k_1 1 %d] [sbtest2 PRIMARY 1 %d]]", distinct(ks[1])+2900, n+2900)
	if got := env.must(cards + " LIMIT 2 OFFSET 2"); got != unplanned {
		t.Errorf("sbtest2's cardinalities after 1500 more rows and the periodic check: %s, want %s", got, unplanned)
	}
	env.close()
}

// TestStatisticsRoundTrip: statistics of composite, nullable, string,
// decimal and date indexes survive a restart with the same cardinality
// per column prefix and the same histogram bounds.
func TestStatisticsRoundTrip(t *testing.T) {
	setAutoRecalc(t, false)
	defer setAutoRecalc(t, true)
	dir := t.TempDir()
	env := openStatsEnv(t, dir)
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE t (id BIGINT PRIMARY KEY, s VARCHAR(20), dec1 DECIMAL(10,2), day DATE, u INT, KEY sd (s, day), KEY d1 (dec1), UNIQUE KEY uu (u))")
	var vals []string
	for i := 0; i < 300; i++ {
		s := fmt.Sprintf("'s%02d'", i%40)
		if i%7 == 0 {
			s = "NULL"
		}
		u := fmt.Sprint(i)
		if i%10 == 0 {
			u = "NULL"
		}
		vals = append(vals, fmt.Sprintf("(%d, %s, %d.%02d, '2026-01-%02d', %s)", i, s, i%25, i%100, 1+i%28, u))
	}
	env.must("INSERT INTO t VALUES " + strings.Join(vals, ","))
	if got, want := env.must("ANALYZE TABLE t"), "[[d.t analyze status OK]]"; got != want {
		t.Fatalf("ANALYZE TABLE: %s, want %s", got, want)
	}
	const cards = "SELECT INDEX_NAME, SEQ_IN_INDEX, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' ORDER BY INDEX_NAME, SEQ_IN_INDEX"
	// s: 40 values and NULL; (s, day): the pairs the data holds; dec1: 25
	// x 100 combinations cycle every 100 rows; u: 270 non-NULL values.
	pairs := map[string]bool{}
	for i := 0; i < 300; i++ {
		s := fmt.Sprint(i % 40)
		if i%7 == 0 {
			s = "null"
		}
		pairs[fmt.Sprintf("%s/%d", s, 1+i%28)] = true
	}
	want := fmt.Sprintf("[[d1 1 100] [PRIMARY 1 300] [sd 1 41] [sd 2 %d] [uu 1 270]]", len(pairs))
	if got := env.must(cards); got != want {
		t.Errorf("cardinalities: %s, want %s", got, want)
	}
	hist := func(e *Engine) string {
		var out []string
		for _, s := range e.stats.Published() {
			out = append(out, fmt.Sprintf("%s %d/%d/%d %v", s.Qualifier(), s.RowCount(), s.DistinctCount(), s.NullCount(), s.Histogram().DebugString()))
		}
		sort.Strings(out)
		return strings.Join(out, "\n")
	}
	h1 := hist(env.e)
	env.close()
	env = openStatsEnv(t, dir)
	env.s.SetCurrentDatabase("d")
	if got := env.must(cards); got != want {
		t.Errorf("cardinalities after a restart: %s, want %s", got, want)
	}
	if h2 := hist(env.e); h2 != h1 {
		t.Errorf("histograms after a restart:\n%s\nwant\n%s", h2, h1)
	}
	// DDL that keeps the table's id but changes an index: the old
	// statistics no longer describe it (GMS would mix a two-column
	// histogram into a three-column index's costing) until the next
	// analysis.
	env.must("DROP INDEX sd ON t")
	env.must("CREATE INDEX sd ON t (s, day, u)")
	if got, want := env.must(cards), "[[d1 1 0] [PRIMARY 1 0] [sd 1 0] [sd 2 0] [sd 3 0] [uu 1 0]]"; got != want {
		t.Errorf("cardinalities after CREATE INDEX: %s, want %s", got, want)
	}
	const or = "SELECT COUNT(*) FROM t WHERE (s < 's10' AND day < '2026-01-05') OR (s = 's20' AND day BETWEEN '2026-01-02' AND '2026-01-09') OR u = 5"
	before := env.must(or)
	env.must("ANALYZE TABLE t")
	if got := env.must(or); got != before {
		t.Errorf("%s: %s after ANALYZE, %s before", or, got, before)
	}
	if got := env.must(cards); !strings.Contains(got, fmt.Sprintf("[sd 2 %d] [sd 3 ", len(pairs))) {
		t.Errorf("cardinalities after ANALYZE of the new index: %s", got)
	}
	env.close()
}

// TestBuildKeyStatsSampled: from a sample of a table's keys the builder
// scales counts to the table and estimates distinct values; exact when
// the sample is the whole table.
func TestBuildKeyStatsSampled(t *testing.T) {
	ctx := sql.NewEmptyContext()
	typ := []sql.Type{types.Int64}
	var keys []sql.Row
	for i := 0; i < 1000; i++ {
		keys = append(keys, sql.Row{int64(i % 100)})
	}
	ks := histogram.Build(ctx, typ, keys, 1000, false)
	if ks.Rows != 1000 || ks.Distinct != 100 || ks.Prefix[0] != 100 || len(ks.Buckets) == 0 || len(ks.Buckets) > histogram.MaxBuckets {
		t.Errorf("whole table: rows %d distinct %d prefix %v buckets %d", ks.Rows, ks.Distinct, ks.Prefix, len(ks.Buckets))
	}
	var sum uint64
	for _, b := range ks.Buckets {
		sum += b.RowCount()
	}
	if sum != 1000 {
		t.Errorf("bucket rows sum to %d, want 1000", sum)
	}
	// A tenth of a table of 10000 rows with 100 values seen 10 times each
	// in the sample: every value is there, each standing for 100 rows.
	ks = histogram.Build(ctx, typ, keys, 10000, false)
	if ks.Rows != 10000 || ks.Distinct != 100 {
		t.Errorf("sampled: rows %d distinct %d, want 10000 and 100", ks.Rows, ks.Distinct)
	}
	// A unique index: distinct is the rows whatever the sample.
	var uniq []sql.Row
	for i := 0; i < 500; i++ {
		uniq = append(uniq, sql.Row{int64(i)})
	}
	if ks := histogram.Build(ctx, typ, uniq, 5000, true); ks.Distinct != 5000 || ks.Prefix[0] != 5000 {
		t.Errorf("unique sampled: distinct %d prefix %v, want 5000", ks.Distinct, ks.Prefix)
	}
}
