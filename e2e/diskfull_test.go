//go:build linux

package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"petrel/lab"
)

// TestDiskFull runs Petrel on a small tmpfs, fills it, and checks that a
// commit that cannot be made durable fails with ER_DISK_FULL and leaves
// nothing behind, that further writes are refused with the same error
// while reads go on, that writes resume by themselves once space returns,
// and that every acknowledged row, and nothing else, survives a restart.
// With the binlog on, the binlog write is usually what fails; without it
// Pebble's write-ahead log runs into the full disk and storage's space
// reserve must keep Pebble alive. Needs root (mount); CI is root.
func TestDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv(strictEnv) == "1" {
			t.Fatalf("TestDiskFull needs root to mount a tmpfs, and %s=1", strictEnv)
		}
		t.Skip("needs root to mount a tmpfs")
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"binlog", nil},
		{"skip-log-bin", []string{"--skip-log-bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) { testDiskFull(t, tc.args) })
	}
}

func testDiskFull(t *testing.T, args []string) {
	start := time.Now()
	ctx := testContext(t, 2*time.Minute)
	mnt := t.TempDir()
	if out, err := exec.CommandContext(ctx, "mount", "-t", "tmpfs", "-o", "size=160m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	p := startPetrel(t, ctx, lab.PetrelOptions{Datadir: filepath.Join(mnt, "petrel"), ExtraArgs: args})
	t.Cleanup(func() {
		if log := p.Log(); strings.Contains(log, "panic") || strings.Contains(log, "fatal error") {
			t.Errorf("server log shows a panic:\n%s", tail(log, 16<<10))
		}
	})
	const writers = 4
	db := rootDB(t, p, "")
	db.SetMaxOpenConns(writers)
	mustExec(t, ctx, db, "CREATE DATABASE dfull", "CREATE TABLE dfull.t (id INT PRIMARY KEY, pad LONGBLOB)")

	// Leave 2 MiB free: a handful of 256 KiB rows fit. Concurrent writers
	// insert until each has had a commit fail; commits in flight when the
	// disk fills must either succeed or leave nothing behind.
	filler := fillDisk(t, mnt, 2<<20)
	pad := func(id int64) string { return strings.Repeat(string(rune('a'+id%26)), 256<<10) }
	type result struct {
		acked    []int64
		failedID int64
		err      error
	}
	results := make([]result, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[w]
			for i := int64(1); i <= 40; i++ {
				id := int64(w)*100 + i
				if _, err := db.ExecContext(ctx, "INSERT INTO dfull.t VALUES (?, ?)", id, pad(id)); err != nil {
					r.failedID, r.err = id, err
					return
				}
				r.acked = append(r.acked, id)
			}
		}()
	}
	wg.Wait()
	want := map[int64]string{}
	for _, r := range results {
		if r.err == nil {
			t.Fatal("40 inserts of 256 KiB fit in 2 MiB: the disk never filled")
		}
		wantDiskFull(t, fmt.Sprintf("insert %d on a full disk", r.failedID), r.err)
		for _, id := range r.acked {
			want[id] = pad(id)
		}
	}
	if len(want) == 0 {
		t.Fatal("no insert succeeded: the disk was full from the start")
	}
	t.Logf("%d rows acknowledged before the disk filled; then: %v", len(want), results[0].err)
	checkRows(t, ctx, db, want)

	// Still full: reads work, every kind of write is refused the same way.
	some := slices.Min(slices.Collect(maps.Keys(want)))
	for _, q := range []string{
		"INSERT INTO dfull.t VALUES (1000, 'small')",
		fmt.Sprintf("UPDATE dfull.t SET pad = 'y' WHERE id = %d", some),
		fmt.Sprintf("DELETE FROM dfull.t WHERE id = %d", some),
		"CREATE TABLE dfull.u (id INT PRIMARY KEY)",
	} {
		_, err := db.ExecContext(ctx, q)
		wantDiskFull(t, q+" while the disk is full", err)
	}
	checkRows(t, ctx, db, want)

	// Still full: near idle, and no log line per refused retry.
	logBefore := len(p.Log())
	cpu, retries := cpuWhileRetrying(t, ctx, p, db, 3*time.Second, "INSERT INTO dfull.t VALUES (1002, 'retry')", func(err error) {
		wantDiskFull(t, "a retried insert on a full disk", err)
	})
	lines := errorLines(p.Log()[logBefore:])
	t.Logf("disk full: CPU %.1f%% of a core over 3 s while %d refused retries were sent; %d ERROR/WARN lines", cpu, retries, len(lines))
	if cpu > 15 {
		t.Errorf("CPU %.1f%% of a core while the disk is full, want near idle (< 15%%)", cpu)
	}
	if len(lines) > 3 {
		t.Errorf("%d ERROR/WARN lines in 3 s of refused retries, want at most one per second:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if args == nil {
		// PURGE BINARY LOGS needs storage flushed first (the binlog is its
		// WAL): on a full disk it answers within a bound, done (the space
		// reserve let the flush through) or refused as disk full, instead
		// of waiting for space with every commit paused.
		file, _ := binlogPosition(t, ctx, db)
		start := time.Now()
		_, err := db.ExecContext(ctx, fmt.Sprintf("PURGE BINARY LOGS TO '%s'", file))
		took := time.Since(start)
		t.Logf("PURGE BINARY LOGS on a full disk: %v after %v", err, took.Round(time.Millisecond))
		if err != nil {
			wantDiskFull(t, "PURGE BINARY LOGS on a full disk", err)
		}
		if took > 15*time.Second {
			t.Errorf("PURGE BINARY LOGS on a full disk took %v, want an answer within 15 s", took)
		}
		checkRows(t, ctx, db, want)
	}

	// Space returns: the disk-full watcher lets writes in again.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	resumed := time.Now()
	var err error
	for time.Since(resumed) < 30*time.Second {
		if _, err = db.ExecContext(ctx, "INSERT INTO dfull.t VALUES (1001, 'after')"); err == nil {
			break
		}
		wantDiskFull(t, "insert while space returns", err)
		time.Sleep(250 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("writes did not resume within 30 s of freeing space: %v", err)
	}
	t.Logf("writes resumed %v after space was freed", time.Since(resumed).Round(100*time.Millisecond))
	want[1001] = "after"
	mustExec(t, ctx, db, fmt.Sprintf("UPDATE dfull.t SET pad = 'updated' WHERE id = %d", some))
	want[some] = "updated"
	checkRows(t, ctx, db, want)

	if err := p.Restart(ctx); err != nil {
		t.Fatalf("restart after the disk-full episode: %v", err)
	}
	checkRows(t, ctx, rootDB(t, p, ""), want)
	t.Logf("took %v", time.Since(start).Round(100*time.Millisecond))
}

// fillDisk allocates a file in dir that leaves about free bytes available,
// and returns its path.
func fillDisk(t *testing.T, dir string, free int64) string {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	avail := int64(st.Bavail) * st.Bsize
	if avail <= free {
		t.Fatalf("only %d bytes free in %s before filling", avail, dir)
	}
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Fallocate(int(f.Fd()), 0, 0, avail-free); err != nil {
		t.Fatalf("fill %s: %v", dir, err)
	}
	return p
}

// wantDiskFull fails the test unless err is ER_DISK_FULL (1021) saying so.
func wantDiskFull(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: succeeded, want error 1021 (disk full)", what)
	}
	if errNo(err) != 1021 || !strings.Contains(err.Error(), "Disk full") {
		t.Fatalf("%s: %v, want error 1021 (disk full)", what, err)
	}
}

// checkRows compares dfull.t with want (id -> pad), exactly.
func checkRows(t *testing.T, ctx context.Context, q querier, want map[int64]string) {
	t.Helper()
	rows, err := q.QueryContext(ctx, "SELECT id, pad FROM dfull.t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[int64]string{}
	for rows.Next() {
		var id int64
		var pad sql.RawBytes
		if err := rows.Scan(&id, &pad); err != nil {
			t.Fatal(err)
		}
		got[id] = string(pad)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for id, w := range want {
		g, ok := got[id]
		switch {
		case !ok:
			t.Errorf("row %d missing", id)
		case g != w:
			t.Errorf("row %d holds %d bytes starting %.8q, want %d bytes starting %.8q", id, len(g), g, len(w), w)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("row %d present, but it was never acknowledged", id)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}
