package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestJoinPlanStatistics is issue 18's indexed join over sysbench's
// tables through a real server, sysbench and go-sql-driver: after
// `sysbench prepare` the server analyses the tables by itself (InnoDB's
// refresh rule), the join becomes a lookup join whose rows equal the same
// join forced to a hash join and to a nested loop over no index; ANALYZE
// TABLE answers MySQL's rows; the cardinalities and the plan survive a
// restart.
func TestJoinPlanStatistics(t *testing.T) {
	sysbench := requireTool(t, "sysbench", "/usr/bin/sysbench")
	ctx := testContext(t, 4*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE sbtest")
	res, err := lab.RunSysbench(ctx, lab.SysbenchOptions{
		Workload: "oltp_read_only", Command: "prepare", Port: p.Port(),
		Password: rootPassword, DB: "sbtest", Tables: 2, TableSize: 10000,
		Threads: 1, Timeout: 2 * time.Minute, Binary: sysbench,
	})
	if err != nil || strings.Contains(res.Output, "FATAL") {
		t.Fatalf("prepare: %v\n%s", err, res.Output)
	}
	db := rootDB(t, p, "sbtest")

	const join = "SELECT a.id, b.c FROM sbtest1 a JOIN sbtest2 b ON b.k = a.k WHERE a.id BETWEEN 5000 AND 5009"
	plan := func() string {
		var lines []string
		rows, err := db.QueryContext(ctx, "EXPLAIN FORMAT=TREE "+join)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, l)
		}
		return strings.Join(lines, "\n")
	}
	isLookup := func(p string) bool {
		return strings.Contains(p, "LookupJoin") && strings.Contains(p, "index: [sbtest2.k]") && strings.Contains(p, "filters: [{[5000, 5009]}]")
	}
	// The first plans read no statistics yet and start the analysis.
	deadline := time.Now().Add(30 * time.Second)
	for !isLookup(plan()) {
		if time.Now().After(deadline) {
			t.Fatalf("no lookup join 30 s after prepare; plan:\n%s", plan())
		}
		time.Sleep(100 * time.Millisecond)
	}

	pairs := func(q string) []string {
		t.Helper()
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id int64
			var c string
			if err := rows.Scan(&id, &c); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d/%s", id, c))
		}
		slices.Sort(out)
		return out
	}
	got := pairs(join)
	if len(got) == 0 {
		t.Fatal("the join returned no rows")
	}
	for _, ref := range []string{
		strings.Replace(join, "SELECT", "SELECT /*+ HASH_JOIN(a,b) */", 1),
		"SELECT a.id, b.c FROM sbtest1 a JOIN sbtest2 b ON b.k + 0 = a.k + 0 WHERE a.id + 0 BETWEEN 5000 AND 5009",
	} {
		if want := pairs(ref); !slices.Equal(got, want) {
			t.Errorf("the lookup join's %d rows differ from %d rows of %s", len(got), len(want), ref)
		}
	}

	cards := func() string {
		t.Helper()
		rows, err := db.QueryContext(ctx, "SELECT TABLE_NAME, INDEX_NAME, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'sbtest' ORDER BY TABLE_NAME, INDEX_NAME")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var tb, ix string
			var c sql.NullInt64
			if err := rows.Scan(&tb, &ix, &c); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s.%s=%v", tb, ix, c.Int64))
			if !c.Valid || c.Int64 <= 0 {
				t.Errorf("%s.%s has no cardinality", tb, ix)
			}
		}
		return strings.Join(out, " ")
	}
	auto := cards()
	rows, err := db.QueryContext(ctx, "ANALYZE TABLE sbtest1, sbtest2")
	if err != nil {
		t.Fatal(err)
	}
	var analyzed []string
	for rows.Next() {
		var tb, op, typ, msg string
		if err := rows.Scan(&tb, &op, &typ, &msg); err != nil {
			t.Fatal(err)
		}
		analyzed = append(analyzed, strings.Join([]string{tb, op, typ, msg}, " "))
	}
	rows.Close()
	if want := []string{"sbtest.sbtest1 analyze status OK", "sbtest.sbtest2 analyze status OK"}; !slices.Equal(analyzed, want) {
		t.Errorf("ANALYZE TABLE: %q, want %q", analyzed, want)
	}
	// Nothing changed in between: the analysis finds what the automatic
	// one found.
	if after := cards(); after != auto {
		t.Errorf("cardinalities after ANALYZE TABLE: %s, want %s as before it", after, auto)
	}
	if n := queryInt(t, ctx, db, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sbtest' AND TABLE_NAME = 'sbtest1'"); n != 10000 {
		t.Errorf("TABLE_ROWS of sbtest1: %d, want 10000", n)
	}

	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := p.Restart(rctx); err != nil {
		t.Fatal(err)
	}
	db = rootDB(t, p, "sbtest")
	if after := cards(); after != auto {
		t.Errorf("cardinalities after a restart: %s, want %s", after, auto)
	}
	if pl := plan(); !isLookup(pl) {
		t.Errorf("first plan after a restart:\n%s\nwant the lookup join", pl)
	}
	if after := pairs(join); !slices.Equal(after, got) {
		t.Errorf("the join's rows after a restart differ")
	}
}
