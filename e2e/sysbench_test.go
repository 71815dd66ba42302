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

const (
	sbTables    = 4
	sbTableSize = 2000
)

// TestSysbench prepares sysbench's tables, runs the OLTP workloads briefly
// with prepared statements, and checks the tables' contents between runs.
// Only deadlocks (1213) may be ignored; any other error aborts sysbench
// and fails its exit status.
func TestSysbench(t *testing.T) {
	sysbench := requireTool(t, "sysbench", "/usr/bin/sysbench")
	ctx := testContext(t, 4*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	root := rootDB(t, p, "")
	mustExec(t, ctx, root, "CREATE DATABASE sbtest")
	db := rootDB(t, p, "sbtest")

	opts := func(workload, command string) lab.SysbenchOptions {
		return lab.SysbenchOptions{
			Workload: workload, Command: command, Port: p.Port(),
			Password: rootPassword, DB: "sbtest",
			Tables: sbTables, TableSize: sbTableSize, Threads: 4,
			Duration: 3 * time.Second, Timeout: 2 * time.Minute,
			Binary:    sysbench,
			ExtraArgs: []string{"--mysql-ignore-errors=1213"},
		}
	}

	if res, err := lab.RunSysbench(ctx, opts("oltp_read_write", "prepare")); err != nil {
		t.Fatalf("prepare: %v", err)
	} else if strings.Contains(res.Output, "FATAL") {
		t.Fatalf("prepare reported a fatal error:\n%s", res.Output)
	}
	counts := sbCounts(t, ctx, db)
	for i, n := range counts {
		if n != sbTableSize {
			t.Errorf("after prepare: sbtest%d has %d rows, want %d", i+1, n, sbTableSize)
		}
	}
	sum1, sum2 := sbSumK(t, ctx, db), sbSumK(t, ctx, db)
	if !slices.Equal(sum1, sum2) {
		t.Errorf("after prepare: SUM(k) changed between two reads with no writers: %v then %v", sum1, sum2)
	}
	for i, s := range sum1 {
		if s == 0 {
			t.Errorf("after prepare: SUM(k) of sbtest%d is 0", i+1)
		}
	}

	run := func(workload string) lab.SysbenchResult {
		t.Helper()
		res, err := lab.RunSysbench(ctx, opts(workload, "run"))
		if err != nil {
			t.Fatalf("%s: %v", workload, err)
		}
		t.Logf("%s: %d transactions (%.0f/s), %d queries, %d ignored errors (1213), p95 %.2f ms",
			workload, res.Transactions, res.TPS, res.Queries, res.IgnoredErrors, res.LatencyP95Ms)
		if res.Transactions == 0 {
			t.Errorf("%s: no transaction completed", workload)
		}
		if res.Reconnects != 0 {
			t.Errorf("%s: %d reconnects", workload, res.Reconnects)
		}
		for _, bad := range []string{"FATAL", "ALERT"} {
			if strings.Contains(res.Output, bad) {
				t.Errorf("%s: output has %s:\n%s", workload, bad, res.Output)
			}
		}
		return res
	}
	wantCounts := func(when string, want int64) {
		t.Helper()
		for i, n := range sbCounts(t, ctx, db) {
			if n != want {
				t.Errorf("after %s: sbtest%d has %d rows, want %d", when, i+1, n, want)
			}
		}
	}

	run("oltp_read_write")
	wantCounts("oltp_read_write", sbTableSize) // it deletes and re-inserts the same id
	run("oltp_write_only")
	wantCounts("oltp_write_only", sbTableSize)
	run("oltp_point_select")
	wantCounts("oltp_point_select", sbTableSize)

	before := sbCounts(t, ctx, db)
	res := run("oltp_insert")
	after := sbCounts(t, ctx, db)
	var grew int64
	for i := range after {
		if after[i] < before[i] {
			t.Errorf("oltp_insert: sbtest%d shrank from %d to %d rows", i+1, before[i], after[i])
		}
		grew += after[i] - before[i]
	}
	if grew == 0 {
		t.Errorf("oltp_insert: row count did not grow (%v -> %v)", before, after)
	}
	// Every transaction of oltp_insert is one INSERT; only a deadlock may
	// have been ignored, and an ignored one inserted nothing.
	if grew != res.Transactions {
		t.Errorf("oltp_insert: %d transactions reported but tables grew by %d rows", res.Transactions, grew)
	}

	run("oltp_update_index")
	for i, n := range sbCounts(t, ctx, db) {
		if n != after[i] {
			t.Errorf("after oltp_update_index: sbtest%d has %d rows, want %d", i+1, n, after[i])
		}
	}

	if res, err := lab.RunSysbench(ctx, opts("oltp_read_write", "cleanup")); err != nil {
		t.Fatalf("cleanup: %v", err)
	} else if strings.Contains(res.Output, "FATAL") {
		t.Errorf("cleanup reported a fatal error:\n%s", res.Output)
	}
	rows, err := db.QueryContext(ctx, "SHOW TABLES")
	if err != nil {
		t.Fatalf("SHOW TABLES: %v", err)
	}
	defer rows.Close()
	var left []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		left = append(left, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("after cleanup: SHOW TABLES lists %v, want none", left)
	}
}

// sbCounts returns COUNT(*) of each sbtest table.
func sbCounts(t *testing.T, ctx context.Context, db *sql.DB) []int64 {
	t.Helper()
	out := make([]int64, sbTables)
	for i := range out {
		out[i] = queryInt(t, ctx, db, fmt.Sprintf("SELECT COUNT(*) FROM sbtest%d", i+1))
	}
	return out
}

// sbSumK returns SUM(k) of each sbtest table.
func sbSumK(t *testing.T, ctx context.Context, db *sql.DB) []int64 {
	t.Helper()
	out := make([]int64, sbTables)
	for i := range out {
		out[i] = queryInt(t, ctx, db, fmt.Sprintf("SELECT CAST(SUM(k) AS SIGNED) FROM sbtest%d", i+1))
	}
	return out
}
