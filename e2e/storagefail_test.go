//go:build linux

package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

const erErrorOnWrite = 1026 // ER_ERROR_ON_WRITE

// TestDatadirRemoved is issue 13's vanished datadir, on a real server
// under a writing client: the datadir is deleted (or moved away, which the
// server cannot tell apart: its path is gone while its open files work
// on). Before issue 13 the server noticed nothing until the next memtable
// flush, then retried it in a hot loop (a core at 80-88%, megabytes of
// log a second), every write hung and SIGTERM could wait forever.
//
// It asserts: the writer's next commits are refused with
// ER_ERROR_ON_WRITE (1026) naming the errno (2, "No such file or
// directory") within a few seconds of the removal, as is every other
// kind of write, each at once; reads answer with every acknowledged row
// and no refused one; the process stays near idle (CPU from
// /proc/<pid>/stat over 5 s, while a client retries a refused write
// every 50 ms) and logs nothing per retry; SIGTERM ends it well within
// shutdown_timeout, with status 1. When the datadir was moved, moving it
// back and restarting recovers every acknowledged row (those acknowledged
// after the removal included: they are in the binlog the server kept
// writing through its open file) and writes resume.
func TestDatadirRemoved(t *testing.T) {
	for _, tc := range []struct {
		name  string
		moved bool
		args  []string
	}{
		{"removed", false, nil},
		{"moved-and-restored", true, nil},
		// Pebble's own WAL instead of the binlog: recovery replays it.
		{"moved-and-restored-skip-log-bin", true, []string{"--skip-log-bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) { testDatadirGone(t, tc.moved, tc.args) })
	}
}

func testDatadirGone(t *testing.T, moved bool, args []string) {
	ctx := testContext(t, 3*time.Minute)
	dir := filepath.Join(t.TempDir(), "petrel")
	p, err := lab.StartPetrel(ctx, lab.PetrelOptions{Datadir: dir, RootPassword: rootPassword, ExtraArgs: args})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("petrel log (tail):\n%s", tail(p.Log(), 16<<10))
		}
	})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE dg", "CREATE TABLE dg.t (id BIGINT PRIMARY KEY, v VARCHAR(64) NOT NULL)")

	// One client inserts until its first error.
	type outcome struct {
		acked []int64
		err   error
		at    time.Time
	}
	done := make(chan outcome, 1)
	progress := make(chan int, 1)
	go func() {
		var o outcome
		for id := int64(1); ; id++ {
			sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			_, err := db.ExecContext(sctx, "INSERT INTO dg.t VALUES (?, ?)", id, fmt.Sprintf("row %d", id))
			cancel()
			if err != nil {
				o.err, o.at = err, time.Now()
				done <- o
				return
			}
			o.acked = append(o.acked, id)
			if len(o.acked) == 200 {
				progress <- 200
			}
		}
	}()
	select {
	case <-progress:
	case o := <-done:
		t.Fatalf("the writer failed before the datadir was removed: %v", o.err)
	case <-ctx.Done():
		t.Fatal("the writer made no progress")
	}

	logBefore := len(p.Log())
	removed := time.Now()
	if moved {
		err = os.Rename(dir, dir+".away")
	} else {
		err = os.RemoveAll(dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	var o outcome
	select {
	case o = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("writes still succeed 30 s after the datadir was removed")
	}
	toError := o.at.Sub(removed)
	t.Logf("%d rows acknowledged; writes refused %v after the removal: %v", len(o.acked), toError.Round(time.Millisecond), o.err)
	wantWriteRefused(t, "the writer's insert after the removal", o.err)
	if toError > 5*time.Second {
		t.Errorf("writes were refused %v after the datadir was removed, want within 5 s (the watcher looks every second)", toError)
	}

	// Every kind of write is refused, at once.
	for _, q := range []string{
		"INSERT INTO dg.t VALUES (1000000, 'x')",
		"UPDATE dg.t SET v = 'y' WHERE id = 1",
		"DELETE FROM dg.t WHERE id = 2",
		"CREATE TABLE dg.u (id INT PRIMARY KEY)",
		"CREATE USER 'gone'@'%' IDENTIFIED BY 'x'",
		"DROP TABLE dg.t",
	} {
		start := time.Now()
		qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := db.ExecContext(qctx, q)
		cancel()
		wantWriteRefused(t, q, err)
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s took %v to be refused, want at once", q, took)
		}
	}
	// Reads answer from what is open: every acknowledged row, nothing else.
	checkIDs(t, ctx, db, o.acked)

	// Near idle, and quiet in the log, while a client retries.
	cpu, retries := cpuWhileRetrying(t, ctx, p, db, 5*time.Second, "INSERT INTO dg.t VALUES (2000000, 'retry')", func(err error) {
		wantWriteRefused(t, "a retried insert", err)
	})
	lines := errorLines(p.Log()[logBefore:])
	t.Logf("after the removal: CPU %.1f%% of a core over 5 s while %d refused retries were sent; %d ERROR/WARN lines in all:\n%s",
		cpu, retries, len(lines), strings.Join(lines, "\n"))
	if cpu > 15 {
		t.Errorf("CPU %.1f%% of a core with the datadir removed, want near idle (< 15%%)", cpu)
	}
	if len(lines) > 4 {
		t.Errorf("%d ERROR/WARN lines since the removal, want a few (not one per retry)", len(lines))
	}
	if log := p.Log(); strings.Contains(log, "stack trace") || strings.Contains(log, "panic") {
		t.Errorf("the log has a stack trace or a panic:\n%s", tail(log, 8<<10))
	}

	code, took := sdTerm(t, ctx, p)
	t.Logf("SIGTERM: exit %d after %v", code, took.Round(time.Millisecond))
	if took > sdDeadline {
		t.Errorf("the server took %v to exit after SIGTERM, want within shutdown_timeout %v", took, sdDeadline)
	}
	if code != 1 {
		t.Errorf("exit code %d after a shutdown with the datadir gone, want 1 (not a clean stop)", code)
	}
	if !moved {
		return
	}

	if err := os.Rename(dir+".away", dir); err != nil {
		t.Fatal(err)
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatalf("restart on the restored datadir: %v", err)
	}
	db = rootDB(t, p, "")
	checkIDs(t, ctx, db, o.acked)
	next := o.acked[len(o.acked)-1] + 1
	mustExec(t, ctx, db, fmt.Sprintf("INSERT INTO dg.t VALUES (%d, 'after the restart')", next))
	checkIDs(t, ctx, db, append(o.acked, next))
	sctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	if err := p.Stop(sctx); err != nil {
		t.Errorf("clean stop after the restart: %v", err)
	}
}

// wantWriteRefused fails the test unless err is ER_ERROR_ON_WRITE with
// the errno of a missing datadir.
func wantWriteRefused(t *testing.T, what string, err error) {
	t.Helper()
	if errNo(err) != erErrorOnWrite || !strings.Contains(err.Error(), "errno: 2 - No such file or directory") {
		t.Fatalf("%s: %v, want error %d with errno 2 (No such file or directory)", what, err, erErrorOnWrite)
	}
}

// checkIDs fails the test unless dg.t holds exactly the ids want.
func checkIDs(t *testing.T, ctx context.Context, db *sql.DB, want []int64) {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SELECT id, v FROM dg.t ORDER BY id")
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	defer rows.Close()
	var got []int64
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		if v != fmt.Sprintf("row %d", id) && v != "after the restart" {
			t.Errorf("row %d holds %q", id, v)
		}
		got = append(got, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read: %v", err)
	}
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		missing, extra := diffIDs(want, got), diffIDs(got, want)
		t.Fatalf("dg.t has %d rows, want the %d acknowledged: missing %v, extra %v", len(got), len(want), head(missing), head(extra))
	}
}

func diffIDs(a, b []int64) []int64 {
	var out []int64
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			out = append(out, x)
		}
	}
	return out
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 10)] }

// cpuWhileRetrying measures p's CPU (user + system, % of one core) over
// d while a client sends the refused write q every 50 ms, checking each
// error with refused; it returns the CPU and the retries sent.
func cpuWhileRetrying(t *testing.T, ctx context.Context, p *lab.Petrel, db *sql.DB, d time.Duration, q string, refused func(error)) (float64, int) {
	t.Helper()
	before, start := procCPUTicks(t, p.Pid()), time.Now()
	n := 0
	for time.Since(start) < d {
		_, err := db.ExecContext(ctx, q)
		refused(err)
		n++
		time.Sleep(50 * time.Millisecond)
	}
	ticks, elapsed := procCPUTicks(t, p.Pid())-before, time.Since(start)
	const clkTck = 100 // USER_HZ, 100 on every Linux platform Go supports
	return float64(ticks) / clkTck / elapsed.Seconds() * 100, n
}

// procCPUTicks is utime + stime of pid, in clock ticks (/proc/<pid>/stat).
func procCPUTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name, in parentheses, may hold spaces: fields are
	// counted after its closing one (field 3, state, comes first).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		t.Fatalf("short /proc/%d/stat: %s", pid, b)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %s", pid, b)
	}
	return utime + stime
}

// errorLines are the ERROR and WARN lines of a server log.
func errorLines(log string) []string {
	var out []string
	for _, ln := range strings.Split(log, "\n") {
		if strings.Contains(ln, "level=ERROR") || strings.Contains(ln, "level=WARN") {
			out = append(out, ln)
		}
	}
	return out
}
