package binlog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/failpoint"
)

// rigWithTail is rigWithRows with the tail log's ring size set.
func rigWithTail(t *testing.T, size int64, n int64) *rig {
	t.Helper()
	r, err := tryOpenRig(t, vfs.NewCrashableMem(), filepath.Join(t.TempDir(), "binlog"), rigMode{}, func(o *Options) { o.TailSize = size })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.log.Close() })
	r.createTable(t)
	insertRange(t, r, 1, n)
	return r
}

// osCrash makes an image of r as an operating-system crash could leave
// it at worst: the current binlog file holds only what was fsynced to it
// (its header, or up to the tail log's last wrap), followed by what the
// lost pages read as (zeros here); the tail log holds what was fsynced
// to it.
func osCrash(t *testing.T, r *rig, junk []byte) (crashImage, string) {
	t.Helper()
	r.log.mu.Lock()
	name, synced, end := r.log.files[r.log.fileIdx], r.log.fileSynced, r.log.pos
	r.log.mu.Unlock()
	if synced >= end {
		t.Fatalf("nothing of %s is only in the tail log (synced %d, end %d): the test would prove nothing", name, synced, end)
	}
	img := takeCrashImage(t, r)
	path := filepath.Join(img.dir, name)
	editFile(t, path, func(b []byte) []byte { return append(b[:synced], junk...) })
	return img, path
}

// TestTailLogRestoresAfterOSCrash: every transaction a commit waited for
// is in the tail log; after an operating-system crash cut the binlog
// file back to what was fsynced to it, Open writes the rest back from the
// tail log, and storage gets every row.
func TestTailLogRestoresAfterOSCrash(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int64
		rows int64
		junk []byte
	}{
		{"default ring", 0, 40, nil},
		{"lost pages read as zeros", 0, 40, make([]byte, 8192)},
		// 8 KiB: the ring wraps every few dozen transactions, each wrap
		// fsyncing the binlog file first.
		{"small ring wrapping", 8 << 10, 300, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rigWithTail(t, tc.size, tc.rows)
			// The last transaction must not itself have wrapped the ring
			// (that fsyncs the file): one more row until it did not.
			rows := tc.rows
			for r.log.Current().Pos == r.log.fileSyncedPos() {
				rows++
				insertRange(t, r, rows, rows)
			}
			img, path := osCrash(t, r, tc.junk)
			var logs logBuffer
			r2, err := img.open(t, func(o *Options) { o.TailSize = tc.size; o.Logger = logs.logger() })
			if err != nil {
				t.Fatalf("recovery: %v\n%s", err, logs.String())
			}
			defer r2.log.Close()
			wantIDs(t, r2, rows)
			wantGTIDs(t, r2, rows+1)
			if !strings.Contains(logs.String(), "restored the binlog file's end from the tail log") {
				t.Fatalf("the restore is not logged:\n%s", logs.String())
			}
			// The restored file is a whole, finished binlog file again.
			if _, err := checkFile(path); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Bytes the binlog file holds that differ from the tail log's verified
// copy (damage, not an interrupted write) are rewritten from it, with a
// WARN naming the file and offset: no acknowledged transaction is lost.
// Beyond the tail log's reach the same damage is refused as corruption
// (TestCorruptionMidFileIsRefused).
func TestTailLogRepairsDamage(t *testing.T) {
	r := rigWithRows(t, 40)
	image := takeCrashImage(t, r)
	name := r.log.Current().File
	victim := txnEvents(t, filepath.Join(image.dir, name), 15)
	at := victim[len(victim)-2].Pos + HeaderLen + 2
	editFile(t, filepath.Join(image.dir, name), func(b []byte) []byte { b[at] ^= 0x10; return b })
	var logs logBuffer
	r2, err := image.open(t, func(o *Options) { o.Logger = logs.logger() })
	if err != nil {
		t.Fatalf("recovery: %v", err)
	}
	defer r2.log.Close()
	wantIDs(t, r2, 40)
	l := logs.String()
	if !strings.Contains(l, "level=WARN") || !strings.Contains(l, "differed from the tail log") || !strings.Contains(l, "offset="+strconv.FormatUint(at, 10)) {
		t.Fatalf("the repair is not logged at WARN with the offset %d:\n%s", at, l)
	}
	wantGTIDs(t, r2, 41)
}

// A transaction that failed after its tail record was written (here at
// the binlog.afterWrite point) is withdrawn from the tail log too: the
// replay after a crash does not bring back what its client was told
// failed.
func TestTailLogForgetsFailedTransactions(t *testing.T) {
	r := rigWithRows(t, 10)
	failpoint.Enable("binlog.afterWrite", func() error { return errors.New("injected") })
	err := insert(r.store, 11)
	failpoint.Disable("binlog.afterWrite")
	if err == nil {
		t.Fatal("the injected failure did not fail the commit")
	}
	img, _ := osCrash(t, r, nil)
	r2, err := img.open(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.log.Close()
	ids := storageIDs(t, r2.store)
	want := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if len(ids) != len(want) {
		t.Fatalf("rows %v after the replay, want %v (11 failed)", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("rows %v after the replay, want %v (11 failed)", ids, want)
		}
	}
}

// Records of an earlier epoch never replay: after RESET MASTER the new
// binlog.000001 gets nothing of the old one's records, and after a
// restart nothing of the previous run's.
func TestTailLogEpochs(t *testing.T) {
	r := rigWithRows(t, 20)
	// As RESET MASTER does it (node/binlog.go): storage flushed first, its
	// position moved to the new file.
	if err := r.store.FlushLogged(); err != nil {
		t.Fatal(err)
	}
	if err := r.log.Reset(); err != nil {
		t.Fatal(err)
	}
	p := r.log.Current()
	if err := r.store.SetSinkPos(EncodeSinkPos(p.File, p.Pos, 0)); err != nil {
		t.Fatal(err)
	}
	insertRange(t, r, 21, 22)
	img, _ := osCrash(t, r, nil)
	r2, err := img.open(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Only the new file's two transactions are replayed: a record of the
	// old binlog.000001 would have put its bytes back at their offsets.
	if got := r2.log.Executed().String(); got != testSID.String()+":1-2" {
		t.Fatalf("gtid_executed %q after RESET MASTER and a crash, want %s:1-2", got, testSID)
	}
	wantIDs(t, r2, 22)
	// And a restart starts a new epoch: the previous run's records are
	// ignored.
	r2.log.Close()
	r2.store.Close()
	img2 := crashImage{fs: img.fs, dir: img.dir}
	r3, err := img2.open(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r3.log.Close()
	wantIDs(t, r3, 22)
	if st, err := os.Stat(filepath.Join(img.dir, "binlog.tail")); err != nil || st.Size() != defaultTailSize {
		t.Fatalf("tail log: %v %v", st, err)
	}
}

// TestSpilledTransactionInTailLog: a transaction whose cache spilled to a
// file is copied into the tail log like any other (one of at most 1 MiB
// as writeSpilled wrote it in one piece, a larger one read back from the
// log), so that its commit shares the group's fsync instead of
// fdatasyncing the binlog file inside the commit order (osCrash fails if
// the file was synced past it); after an operating-system crash cut the
// file back to what was fsynced to it, Open writes the transaction back
// from the tail log, and storage gets every row of it.
func TestSpilledTransactionInTailLog(t *testing.T) {
	for _, n := range []int64{3000, 100000} {
		t.Run(strconv.FormatInt(n, 10), func(t *testing.T) {
			r, _ := spillRig(t)
			txn, want := bigTxn(t, r, n)
			if err := txn.Commit(context.Background()); err != nil {
				t.Fatal(err)
			}
			if _, disk := r.log.CacheStats(); disk != 1 {
				t.Fatalf("Binlog_cache_disk_use = %d, want 1 (the transaction did not spill)", disk)
			}
			if size := r.log.Current().Pos; (n > 3000) != (size > spillWriteChunk) {
				t.Fatalf("log of %d bytes: the case does not test what it says", size)
			}
			img, path := osCrash(t, r, make([]byte, 8192))
			var logs logBuffer
			r2, err := img.open(t, func(o *Options) { o.Logger = logs.logger() })
			if err != nil {
				t.Fatalf("recovery: %v\n%s", err, logs.String())
			}
			defer r2.log.Close()
			if !strings.Contains(logs.String(), "restored the binlog file's end from the tail log") {
				t.Fatalf("the restore is not logged:\n%s", logs.String())
			}
			if got := logRows(t, r2.log); !slices.Equal(got, want) {
				t.Fatalf("log has %d changes, want %d; first differences: %v", len(got), len(want), firstDiff(got, want))
			}
			if ids := storageIDs(t, r2.store); int64(len(ids)) != n-50 {
				t.Fatalf("storage has %d rows after recovery, want %d", len(ids), n-50)
			}
			if _, err := checkFile(path); err != nil {
				t.Fatal(err)
			}
		})
	}
}
