package binlog

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/storage"
)

// TestGroupCommitSharesFsyncs: concurrent committers share fsyncs, and
// every transaction gets the next GTID.
func TestGroupCommitSharesFsyncs(t *testing.T) {
	r := openRig(t, vfs.NewMem(), t.TempDir())
	defer r.log.Close()
	r.createTable(t)
	var wg sync.WaitGroup
	const writers, per = 16, 40
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				if err := insert(r.store, int64(w*per+i+1)); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	commits, groups, _ := r.log.StatsSnapshot()
	if commits != writers*per+1 {
		t.Fatalf("Binlog_commits %d, want %d", commits, writers*per+1)
	}
	if groups >= commits {
		t.Fatalf("Binlog_group_commits %d for %d commits: fsyncs were not shared", groups, commits)
	}
	t.Logf("%d commits, %d fsyncs (%.2f fsyncs per commit)", commits, groups, float64(groups)/float64(commits))
	if got := r.log.Executed().Last(testSID); got != writers*per+1 {
		t.Fatalf("gtid_executed ends at %d, want %d", got, writers*per+1)
	}
	if ids := logIDs(t, r.log); len(ids) != writers*per {
		t.Fatalf("log holds %d rows, want %d", len(ids), writers*per)
	}
}

// TestRotatePurgeReopen: rotation by size, the index, PURGE, and GTID
// continuity across a restart.
func TestRotatePurgeReopen(t *testing.T) {
	dir := t.TempDir()
	fs := vfs.NewMem()
	st, err := storage.Open(storage.Options{Dir: "db", FS: fs, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Open(Options{Dir: dir, ServerUUID: testSID, Logger: quiet, Store: st, MaxSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSink(l)
	r := &rig{fs: fs, dir: dir, store: st, log: l}
	r.createTable(t)
	for i := int64(1); i <= 200; i++ {
		if err := insert(st, i); err != nil {
			t.Fatal(err)
		}
	}
	files := l.Files()
	if len(files) < 5 {
		t.Fatalf("%d files after 200 commits with max_binlog_size 4096", len(files))
	}
	idx, err := os.ReadFile(filepath.Join(dir, "binlog.index"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(idx), "\n"); n != len(files) {
		t.Fatalf("index lists %d files, log has %d", n, len(files))
	}
	if err := l.PurgeTo(files[3].Name); err != nil {
		t.Fatal(err)
	}
	if got := l.Files(); got[0].Name != files[3].Name {
		t.Fatalf("after PURGE TO %s first file is %s", files[3].Name, got[0].Name)
	}
	if _, err := os.Stat(filepath.Join(dir, files[0].Name)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("purged file still there: %v", err)
	}
	purged := l.Purged()
	if purged.IsEmpty() || purged.Last(testSID) < 2 {
		t.Fatalf("gtid_purged %q after purge", purged)
	}
	executed := l.Executed()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()

	r2 := openRig(t, fs, dir)
	defer r2.log.Close()
	if !r2.log.Executed().Equal(executed) {
		t.Fatalf("gtid_executed after reopen %q, before %q", r2.log.Executed(), executed)
	}
	if err := insert(r2.store, 1000); err != nil {
		t.Fatal(err)
	}
	if got := r2.log.Executed().Last(testSID); got != executed.Last(testSID)+1 {
		t.Fatalf("next GTID %d, want %d", got, executed.Last(testSID)+1)
	}
}

// closedLogOfFiveRows writes a table and five rows through a log and
// closes it: the file's name and path.
func closedLogOfFiveRows(t *testing.T) (name, path string) {
	t.Helper()
	dir := t.TempDir()
	r := openRig(t, vfs.NewMem(), dir)
	r.createTable(t)
	for i := int64(1); i <= 5; i++ {
		if err := insert(r.store, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.log.Close(); err != nil {
		t.Fatal(err)
	}
	name = r.log.Files()[0].Name
	return name, filepath.Join(dir, name)
}

// TestCorruptionIsReportedWithFileAndOffset flips a byte inside an event:
// the printer and reader name the file and the event's offset.
func TestCorruptionIsReportedWithFileAndOffset(t *testing.T) {
	name, path := closedLogOfFiveRows(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := DescribeEvents(path, name, 4, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	victim := evs[len(evs)/2]
	b[victim.Pos+HeaderLen+1] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err = Print(&out, path, PrintOptions{Verbose: true})
	if err == nil || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Print of a corrupt file: %v", err)
	}
	want := name + " at offset " + itoa(victim.Pos)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not name %q", err, want)
	}
	// Truncated file: reported as truncated at the partial event.
	if err := os.WriteFile(path, b[:victim.Pos+7], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ScanFile(path, false); err == nil || !strings.Contains(err.Error(), "offset "+itoa(victim.Pos)) {
		t.Fatalf("ScanFile of a truncated file: %v", err)
	}
}

// A zeroed event header with data after it is damage, not the
// preallocated tail of a live file.
func TestZeroedHeaderInsideDataIsCorruption(t *testing.T) {
	name, path := closedLogOfFiveRows(t)
	evs, err := DescribeEvents(path, name, 4, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	victim := evs[len(evs)/2]
	copy(b[victim.Pos:victim.Pos+HeaderLen], make([]byte, HeaderLen))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ScanFile(path, false); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "offset "+itoa(victim.Pos)) {
		t.Fatalf("strict scan: %v, want corruption at offset %d", err, victim.Pos)
	}
	res, err := ScanFile(path, true)
	if err != nil || !res.Torn || res.ZeroTail != 0 {
		t.Fatalf("tolerant scan: torn %v, zero tail %d, err %v; want torn", res.Torn, res.ZeroTail, err)
	}
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

// fakeWaiter is semi-sync as the log sees it, with switchable durability.
type fakeWaiter struct{ network bool }

func (fakeWaiter) Admit() error                                      { return nil }
func (fakeWaiter) WaitAcked(ctx context.Context, pos Position) error { return nil }
func (fakeWaiter) AfterSync() bool                                   { return true }
func (w fakeWaiter) NetworkDurable() bool                            { return w.network }

// TestSendablePosition: dump threads may send what is written before its
// fsync only while semi-sync acknowledgements make commits durable, so the
// ack round trip overlaps the local fsync.
func TestSendablePosition(t *testing.T) {
	r := openRig(t, vfs.NewMem(), t.TempDir())
	defer r.log.Close()
	appendOne := func() *storage.CommitRecord {
		t.Helper()
		rec := &storage.CommitRecord{Queries: []storage.Query{{Database: "d", SQL: "CREATE DATABASE d2"}}, Time: time.Now()}
		if err := r.log.Append(rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	for _, network := range []bool{false, true} {
		r.log.SetCommitWaiter(fakeWaiter{network: network})
		changed := r.log.Changed()
		rec := appendOne() // written, not yet fsynced: nobody waited for it
		cur, synced, sendable := r.log.Current(), r.log.SyncedPosition(), r.log.SendablePosition()
		if synced == cur {
			t.Fatalf("network=%v: the append was fsynced at once (%v)", network, synced)
		}
		if network && sendable != cur {
			t.Fatalf("semi-sync network-durable: sendable %v, want the written end %v", sendable, cur)
		}
		if !network && sendable != synced {
			t.Fatalf("async: sendable %v, want the durable end %v", sendable, synced)
		}
		select {
		case <-changed:
			if !network {
				t.Fatal("async: dump threads were woken for an unsynced append")
			}
		default:
			if network {
				t.Fatal("semi-sync: dump threads were not woken by the append")
			}
		}
		if err := r.log.Wait(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		if got := r.log.SyncedPosition(); got != cur {
			t.Fatalf("after Wait the durable end is %v, want %v", got, cur)
		}
	}
}

// TestOnRotateWorker: callbacks run after rotations on the log's own
// worker (they may take the log's lock: here, by purging), and Close
// stops the worker (the package's leak check fails otherwise).
func TestOnRotateWorker(t *testing.T) {
	r := openRig(t, vfs.NewMem(), t.TempDir())
	r.createTable(t)
	ran := make(chan int, 16)
	r.log.OnRotate(func() {
		files := r.log.Files()
		if err := r.log.PurgeTo(files[len(files)-1].Name); err != nil {
			t.Error(err)
		}
		ran <- len(r.log.Files())
	})
	for i := 0; i < 3; i++ {
		if err := r.log.Rotate(); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-ran:
			if n != 1 {
				t.Fatalf("after the callback's purge %d files remain, want 1", n)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("rotation %d: the callback did not run", i+1)
		}
	}
	if err := r.log.Close(); err != nil {
		t.Fatal(err)
	}
	r.log.OnRotate(func() { t.Error("a callback ran after Close") })
}

// TestBeforeSyncRunsPerGroupFsync: Options.BeforeSync (the lab's injected
// disk latency) runs once before every group fsync, and the commits wait
// for it: with a 2 ms hook, 10 sequential commits take 20 ms at least.
func TestBeforeSyncRunsPerGroupFsync(t *testing.T) {
	fs := vfs.NewMem()
	st, err := storage.Open(storage.Options{Dir: "db", FS: fs, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var calls atomic.Int64
	const delay = 2 * time.Millisecond
	l, err := Open(Options{Dir: t.TempDir(), ServerUUID: testSID, Logger: quiet, Store: st,
		BeforeSync: func() { calls.Add(1); time.Sleep(delay) }})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	st.SetSink(l)
	r := &rig{fs: fs, store: st, log: l}
	r.createTable(t)
	_, groups0, _ := l.StatsSnapshot()
	calls0 := calls.Load()
	start := time.Now()
	const commits = 10
	for i := int64(1); i <= commits; i++ {
		if err := insert(st, i); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < commits*delay {
		t.Errorf("%d commits took %v with a %v hook before each fsync", commits, d, delay)
	}
	_, groups, _ := l.StatsSnapshot()
	if got, want := calls.Load()-calls0, int64(groups-groups0); got != want || got < commits {
		t.Errorf("BeforeSync ran %d times for %d group fsyncs of %d sequential commits", got, want, commits)
	}
}
