package binlog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
)

// logBuffer collects a logger's output; safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *logBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *logBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (w *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// crashImage is a rig's state as kill -9 leaves it: storage as synced,
// the log directory as written, copied to a new directory.
type crashImage struct {
	fs  *vfs.MemFS
	dir string
}

func takeCrashImage(t *testing.T, r *rig) crashImage {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "binlog")
	copyDir(t, r.dir, dir)
	return crashImage{fs: r.fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0}), dir: dir}
}

// clone copies an image, so one image can be recovered several ways.
func (c crashImage) clone(t *testing.T) crashImage {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "binlog")
	copyDir(t, c.dir, dir)
	return crashImage{fs: c.fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0}), dir: dir}
}

// dropTail removes the image's tail log: the damage a test makes is then
// beyond its reach, as that of a transaction logged before the ring's
// last wrap, or (with sync_binlog=0) never fsynced to it. With the tail
// log in place Open restores the damaged transactions from it
// (tail_test.go).
func (c crashImage) dropTail(t *testing.T) {
	t.Helper()
	if err := os.Remove(filepath.Join(c.dir, "binlog.tail")); err != nil {
		t.Fatal(err)
	}
}

func (c crashImage) open(t *testing.T, edit func(*Options)) (*rig, error) {
	t.Helper()
	return tryOpenRig(t, c.fs, c.dir, rigMode{}, edit)
}

// rigWithRows opens a rig on a crashable filesystem, creates the table
// and inserts ids 1..n (GTIDs 1 for the DDL, 2..n+1 for the rows).
func rigWithRows(t *testing.T, n int64) *rig {
	t.Helper()
	r := openRig(t, vfs.NewCrashableMem(), filepath.Join(t.TempDir(), "binlog"))
	t.Cleanup(func() { r.log.Close() })
	r.createTable(t)
	insertRange(t, r, 1, n)
	return r
}

func insertRange(t *testing.T, r *rig, from, to int64) {
	t.Helper()
	for i := from; i <= to; i++ {
		if err := insert(r.store, i); err != nil {
			t.Fatal(err)
		}
	}
}

// events lists a file's events.
func events(t *testing.T, path string) []EventDesc {
	t.Helper()
	evs, err := DescribeEvents(path, filepath.Base(path), 4, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// txnEvents returns the events of the n-th transaction (0-based) that
// inserts a row: GTID .. XID.
func txnEvents(t *testing.T, path string, n int) []EventDesc {
	t.Helper()
	evs := events(t, path)
	k := -1
	for i, ev := range evs {
		if ev.Type != "Gtid" {
			continue
		}
		j := i
		for j < len(evs) && evs[j].Type != "Xid" && !(j > i && evs[j].Type == "Query" && !strings.HasPrefix(evs[j].Info, "BEGIN")) {
			j++
		}
		if j == len(evs) || evs[j].Type != "Xid" {
			continue // DDL
		}
		if k++; k == n {
			return evs[i : j+1]
		}
	}
	t.Fatalf("%s has no row transaction #%d", path, n)
	return nil
}

func editFile(t *testing.T, path string, fn func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fn(b), 0o640); err != nil {
		t.Fatal(err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func wantIDs(t *testing.T, r *rig, n int64) {
	t.Helper()
	ids := storageIDs(t, r.store)
	if int64(len(ids)) != n || (n > 0 && ids[n-1] != n) {
		t.Fatalf("storage holds %d rows (%v), want ids 1..%d", len(ids), ids, n)
	}
}

// wantGTIDs checks gtid_executed is exactly testSID:1-last, and that the
// next commit takes last+1.
func wantGTIDs(t *testing.T, r *rig, last int64) {
	t.Helper()
	want := base.NewGTIDSet()
	want.AddRange(testSID, 1, last)
	if got := r.log.Executed(); !got.Equal(want) {
		t.Fatalf("gtid_executed %q, want %q", got, want)
	}
	if err := insert(r.store, 1<<40); err != nil {
		t.Fatal(err)
	}
	want.Add(base.GTID{SID: testSID, GNO: last + 1})
	if got := r.log.Executed(); !got.Equal(want) {
		t.Fatalf("after one more commit gtid_executed %q, want %q (a GTID issued twice?)", got, want)
	}
}

// The file being written is a plain binlog file: its size is where its
// data ends, every event is valid, and its FORMAT_DESCRIPTION says it is
// in use; rotation and Close clear the flag.
func TestLiveFileIsAPlainBinlogFile(t *testing.T) {
	r := rigWithRows(t, 20)
	cur := r.log.Current()
	path := filepath.Join(r.dir, cur.File)
	if size := fileSize(t, path); uint64(size) != cur.Pos {
		t.Fatalf("the live file is %d bytes, its data ends at %d", size, cur.Pos)
	}
	c, err := checkFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.bad != nil || !c.inUse || c.validEnd != c.size || c.gtids.Last(testSID) != 21 {
		t.Fatalf("live file: damage %+v, in use %v, valid end %d of %d, GTIDs %s", c.bad, c.inUse, c.validEnd, c.size, c.gtids)
	}
	var out bytes.Buffer
	sum, err := Print(&out, path, PrintOptions{})
	if err != nil || sum.Transactions != 21 {
		t.Fatalf("Print of the live file: %d transactions, err %v", sum.Transactions, err)
	}
	if !strings.Contains(out.String(), "in use") {
		t.Errorf("Print does not say the file is in use:\n%s", out.String())
	}
	// A copy taken while a transaction is being appended ends inside an
	// event: readers stop there, without error, since the file is in use.
	cut := filepath.Join(t.TempDir(), "cut")
	editFile(t, path, func(b []byte) []byte {
		if err := os.WriteFile(cut, b[:len(b)-5], 0o640); err != nil {
			t.Fatal(err)
		}
		return b
	})
	out.Reset()
	if sum, err := Print(&out, cut, PrintOptions{}); err != nil || sum.Transactions != 20 || !strings.Contains(out.String(), "ends inside an event") {
		t.Fatalf("Print of a live file cut inside an event: %d transactions, err %v\n%s", sum.Transactions, err, out.String())
	}
	if evs, err := DescribeEvents(cut, "cut", 4, 0, -1); err != nil || evs[len(evs)-1].Type != "Write_rows" {
		t.Fatalf("SHOW BINLOG EVENTS of a live file cut inside an event: %v", err)
	}
	if err := r.log.Rotate(); err != nil {
		t.Fatal(err)
	}
	if c, _ := checkFile(path); c.inUse || !c.whole() {
		t.Fatalf("after rotation %s: in use %v, whole %v", cur.File, c.inUse, c.whole())
	}
	next := filepath.Join(r.dir, r.log.Current().File)
	if c, _ := checkFile(next); !c.inUse {
		t.Fatalf("the new file %s is not marked in use", next)
	}
	if err := r.log.Close(); err != nil {
		t.Fatal(err)
	}
	if c, _ := checkFile(next); c.inUse || !c.whole() {
		t.Fatalf("after Close %s: in use %v, whole %v", next, c.inUse, c.whole())
	}
	// A finished file cut inside an event is damaged.
	editFile(t, path, func(b []byte) []byte { return b[:len(b)-5] })
	if _, err := Print(&out, path, PrintOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Print of a finished file cut inside an event: %v, want ErrCorrupt", err)
	}
}

// A torn tail, whatever its bytes, is cut at the end of the last whole
// transaction, with a WARN line naming file and offset; every whole
// transaction is kept and GTIDs continue from the last one.
func TestTornTailIsTruncated(t *testing.T) {
	r := rigWithRows(t, 20)
	image := takeCrashImage(t, r)
	name := r.log.Current().File
	last := txnEvents(t, filepath.Join(image.dir, name), 19) // id 20
	lastStart, xid := last[0].Pos, last[len(last)-1]
	cases := []struct {
		name string
		edit func([]byte) []byte
		rows int64 // rows left
	}{
		{"partial event", func(b []byte) []byte { return b[:xid.Pos+7] }, 19},
		{"partial header", func(b []byte) []byte { return b[:lastStart+5] }, 19},
		{"garbage after the last event", func(b []byte) []byte {
			return append(b, bytes.Repeat([]byte{0xa5, 0x17, 0x3c}, 200)...)
		}, 20},
		{"zeros after the last event (preallocation of older versions)", func(b []byte) []byte {
			return append(b, make([]byte, 1<<20)...)
		}, 20},
		{"flipped byte in the last event", func(b []byte) []byte { b[xid.Pos+HeaderLen] ^= 0x40; return b }, 19},
		{"flipped size field of the last event", func(b []byte) []byte { b[xid.Pos+10] ^= 0x10; return b }, 19},
		{"last transaction overwritten with garbage", func(b []byte) []byte {
			for i := lastStart; i < uint64(len(b)); i++ {
				b[i] = byte(i*31 + 7)
			}
			return b
		}, 19},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img := image.clone(t)
			img.dropTail(t)
			path := filepath.Join(img.dir, name)
			editFile(t, path, tc.edit)
			var logs logBuffer
			r2, err := img.open(t, func(o *Options) { o.Logger = logs.logger() })
			if err != nil {
				t.Fatalf("recovery refused a torn tail: %v", err)
			}
			defer r2.log.Close()
			wantIDs(t, r2, tc.rows)
			wantEnd := xid.EndPos
			if tc.rows == 19 {
				wantEnd = lastStart
			}
			if size := fileSize(t, path); uint64(size) != wantEnd {
				t.Fatalf("%s is %d bytes after recovery, want %d", name, size, wantEnd)
			}
			if !strings.Contains(logs.String(), "truncating torn tail") || !strings.Contains(logs.String(), fmt.Sprintf("offset=%d", wantEnd)) {
				t.Fatalf("no WARN naming offset %d:\n%s", wantEnd, logs.String())
			}
			wantGTIDs(t, r2, tc.rows+1)
		})
	}
}

// A damaged event with valid events after it is corruption: Open refuses,
// naming the file and the offset; with TruncateCorrupt it cuts the log
// there, keeps the rest aside and says so at ERROR level.
func TestCorruptionMidFileIsRefused(t *testing.T) {
	r := rigWithRows(t, 40)
	image := takeCrashImage(t, r)
	name := r.log.Current().File
	victim := txnEvents(t, filepath.Join(image.dir, name), 15) // id 16
	var rows *EventDesc
	for i := range victim {
		if victim[i].Type == "Write_rows" {
			rows = &victim[i]
		}
	}
	cases := []struct {
		name string
		at   uint64 // the offset the error must name
		edit func([]byte) []byte
	}{
		{"flipped byte in a rows event", rows.Pos, func(b []byte) []byte { b[rows.Pos+HeaderLen+3] ^= 0x01; return b }},
		{"size field claiming past the end", rows.Pos, func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[rows.Pos+9:], uint32(len(b)))
			return b
		}},
		{"zeroed block", victim[0].Pos, func(b []byte) []byte {
			copy(b[victim[0].Pos:victim[len(victim)-1].EndPos], make([]byte, victim[len(victim)-1].EndPos-victim[0].Pos))
			return b
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img := image.clone(t)
			img.dropTail(t)
			path := filepath.Join(img.dir, name)
			editFile(t, path, tc.edit)
			size := fileSize(t, path)
			_, err := img.open(t, nil)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("%s at offset %d", name, tc.at)) ||
				!strings.Contains(err.Error(), "binlog_recovery_truncate_corrupt") {
				t.Fatalf("Open: %v; want corruption in %s at offset %d and the override named", err, name, tc.at)
			}
			if got := fileSize(t, path); got != size {
				t.Fatalf("the refused start changed %s from %d to %d bytes", name, size, got)
			}
			var logs logBuffer
			r2, err := img.open(t, func(o *Options) { o.TruncateCorrupt = true; o.Logger = logs.logger() })
			if err != nil {
				t.Fatalf("with TruncateCorrupt: %v", err)
			}
			defer r2.log.Close()
			wantIDs(t, r2, 15)
			if got := fileSize(t, path); uint64(got) != victim[0].Pos {
				t.Fatalf("%s cut at %d, want %d (the damaged transaction's start)", name, got, victim[0].Pos)
			}
			kept, _ := filepath.Glob(path + ".corrupt-*")
			if len(kept) != 1 || fileSize(t, kept[0]) != size-int64(victim[0].Pos) {
				t.Fatalf("kept aside: %v, want one file of %d bytes", kept, size-int64(victim[0].Pos))
			}
			if l := logs.String(); !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "binlog_recovery_truncate_corrupt") ||
				!strings.Contains(l, fmt.Sprintf("offset=%d", tc.at)) || !strings.Contains(l, "transactions_after_damage=24") {
				t.Fatalf("the cut was not logged at ERROR with the offset and what it dropped:\n%s", l)
			}
			wantGTIDs(t, r2, 16)
		})
	}
}

// Every file but the last must be whole: damage there is refused at
// start, whatever follows it. With TruncateCorrupt, a file storage still
// needs is cut (and the later files set aside); a file storage already
// holds leaves the log with the files before it, as a purge would; damage
// before storage's position in the file it names is refused even then.
func TestOldFileCorruptionIsRefused(t *testing.T) {
	// Four files: ids 1-20, 21-40, 41-60, 61-70 (GNO 1 is the DDL).
	// flush makes storage durable up to id 60 (the end of the third).
	build := func(t *testing.T, flush bool, file, txn int) (crashImage, []string, []EventDesc) {
		r := rigWithRows(t, 20)
		for _, ids := range [][2]int64{{21, 40}, {41, 60}, {61, 70}} {
			if ids[0] == 61 && flush {
				if err := r.store.FlushApplied(); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.log.Rotate(); err != nil {
				t.Fatal(err)
			}
			insertRange(t, r, ids[0], ids[1])
		}
		var names []string
		for _, f := range r.log.Files() {
			names = append(names, f.Name)
		}
		img := takeCrashImage(t, r)
		victim := txnEvents(t, filepath.Join(img.dir, names[file]), txn)
		editFile(t, filepath.Join(img.dir, names[file]), func(b []byte) []byte { b[victim[1].Pos+HeaderLen] ^= 0x08; return b })
		return img, names, victim
	}
	t.Run("storage needs it", func(t *testing.T) {
		img, names, victim := build(t, false, 0, 10)
		_, err := img.open(t, nil)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("%s at offset %d", names[0], victim[1].Pos)) {
			t.Fatalf("Open: %v; want corruption in %s at offset %d", err, names[0], victim[1].Pos)
		}
		r2, err := img.open(t, func(o *Options) { o.TruncateCorrupt = true })
		if err != nil {
			t.Fatal(err)
		}
		defer r2.log.Close()
		wantIDs(t, r2, 10)
		if n := len(r2.log.Files()); n != 2 {
			t.Fatalf("%d files after the cut, want the cut one and the new one", n)
		}
		for _, later := range names[1:] {
			if kept, _ := filepath.Glob(filepath.Join(img.dir, later+".corrupt-*")); len(kept) != 1 {
				t.Fatalf("%s, after the cut, not kept aside: %v", later, kept)
			}
		}
		wantGTIDs(t, r2, 11)
	})
	t.Run("storage holds it", func(t *testing.T) {
		img, names, _ := build(t, true, 1, 10)
		_, err := img.open(t, nil)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), names[1]) {
			t.Fatalf("Open: %v; want corruption in %s", err, names[1])
		}
		r2, err := img.open(t, func(o *Options) { o.TruncateCorrupt = true })
		if err != nil {
			t.Fatal(err)
		}
		defer r2.log.Close()
		wantIDs(t, r2, 70)
		if files := r2.log.Files(); files[0].Name != names[2] {
			t.Fatalf("the log starts with %s, want %s: %v", files[0].Name, names[2], files)
		}
		purgedAside, _ := filepath.Glob(filepath.Join(img.dir, names[0]+".purged-*"))
		corruptAside, _ := filepath.Glob(filepath.Join(img.dir, names[1]+".corrupt-*"))
		if len(purgedAside) != 1 || len(corruptAside) != 1 {
			t.Fatalf("kept aside: %v and %v, want %s as purged and %s as corrupt", purgedAside, corruptAside, names[0], names[1])
		}
		purged := base.NewGTIDSet()
		purged.AddRange(testSID, 1, 41)
		if got := r2.log.Purged(); !got.Equal(purged) {
			t.Fatalf("gtid_purged %q, want %q", got, purged)
		}
		wantGTIDs(t, r2, 71)
	})
	t.Run("storage holds what follows it", func(t *testing.T) {
		img, names, _ := build(t, true, 2, 5)
		_, err := img.open(t, func(o *Options) { o.TruncateCorrupt = true })
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), names[2]) || !strings.Contains(err.Error(), "Refusing to start even with binlog_recovery_truncate_corrupt") {
			t.Fatalf("Open with TruncateCorrupt: %v; want a refusal", err)
		}
	})
}

// A newest file whose header was cut (a crash while it was being started:
// after a restart or a rotation) is removed, and gtid_executed comes from
// the files before it: the next GTID is not one already issued.
func TestTruncatedNewestHeader(t *testing.T) {
	r := rigWithRows(t, 20)
	if err := r.log.Rotate(); err != nil { // the newest file: only a header
		t.Fatal(err)
	}
	image := takeCrashImage(t, r)
	newest := r.log.Current().File
	evs := events(t, filepath.Join(image.dir, newest))
	fdEnd := evs[0].EndPos
	for _, cut := range []int64{0, 2, 4, 40, int64(fdEnd), int64(fdEnd) + 10, int64(evs[1].EndPos) - 1} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			img := image.clone(t)
			if err := os.Truncate(filepath.Join(img.dir, newest), cut); err != nil {
				t.Fatal(err)
			}
			var logs logBuffer
			r2, err := img.open(t, func(o *Options) { o.Logger = logs.logger() })
			if err != nil {
				t.Fatal(err)
			}
			defer r2.log.Close()
			if !strings.Contains(logs.String(), "header is incomplete") {
				t.Fatalf("the removal is not logged:\n%s", logs.String())
			}
			wantIDs(t, r2, 20)
			wantGTIDs(t, r2, 21)
		})
	}
	// A crash between creating the next file and naming it in the index
	// leaves a file the index does not name: it is removed too.
	t.Run("unindexed", func(t *testing.T) {
		img := image.clone(t)
		editFile(t, filepath.Join(img.dir, "binlog.index"), func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte("./"+newest+"\n"), nil)
		})
		r2, err := img.open(t, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r2.log.Close()
		wantGTIDs(t, r2, 21)
	})
}

// A log that lost transactions storage recorded is refused: their GTIDs
// would be issued again.
func TestLostTransactionsAreRefused(t *testing.T) {
	r := rigWithRows(t, 20)
	if err := r.log.Rotate(); err != nil {
		t.Fatal(err)
	}
	insertRange(t, r, 21, 30)
	if err := r.store.FlushApplied(); err != nil {
		t.Fatal(err)
	}
	img := takeCrashImage(t, r)
	lost := r.log.Current().File
	if err := os.Remove(filepath.Join(img.dir, lost)); err != nil {
		t.Fatal(err)
	}
	editFile(t, filepath.Join(img.dir, "binlog.index"), func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte("./"+lost+"\n"), nil)
	})
	_, err := img.open(t, nil)
	if base.ClassOf(err) != base.ClassCorrupt || !strings.Contains(err.Error(), "lost transactions") || !strings.Contains(err.Error(), testSID.String()+":31") {
		t.Fatalf("Open of a log missing the GTIDs storage holds: %v", err)
	}
}

// RESET MASTER starts again at binlog.000001 with an empty GTID history.
func TestResetStartsAgainAtOne(t *testing.T) {
	r := rigWithRows(t, 5)
	for i := 0; i < 2; i++ {
		if err := r.log.Rotate(); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.log.Reset(); err != nil {
		t.Fatal(err)
	}
	if cur := r.log.Current(); cur.File != "binlog.000001" || len(r.log.Files()) != 1 {
		t.Fatalf("after RESET MASTER: current %s, files %v", cur, r.log.Files())
	}
	if !r.log.Executed().IsEmpty() {
		t.Fatalf("gtid_executed %q after RESET MASTER", r.log.Executed())
	}
	insertRange(t, r, 6, 6)
	if got := r.log.Executed().String(); got != testSID.String()+":1" {
		t.Fatalf("gtid_executed %q after one commit", got)
	}
}

// A file that is not the last, cut short (a copy that stopped early, a
// lost block at its end), is refused: only the last file may be torn.
func TestOldFileCutShortIsRefused(t *testing.T) {
	r := rigWithRows(t, 20)
	first := r.log.Current().File
	if err := r.log.Rotate(); err != nil {
		t.Fatal(err)
	}
	insertRange(t, r, 21, 25)
	img := takeCrashImage(t, r)
	victim := txnEvents(t, filepath.Join(img.dir, first), 12)
	if err := os.Truncate(filepath.Join(img.dir, first), int64(victim[2].Pos)+10); err != nil {
		t.Fatal(err)
	}
	_, err := img.open(t, nil)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("%s at offset %d", first, victim[2].Pos)) ||
		!strings.Contains(err.Error(), "it is not the last file") {
		t.Fatalf("Open: %v; want %s refused at offset %d as an old file cut short", err, first, victim[2].Pos)
	}
}
