package clone

import (
	"errors"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/storage"
)

// manualClock is a Clock the test moves by hand.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}
func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
func (c *manualClock) After(time.Duration) <-chan time.Time { return nil }
func (c *manualClock) NewTimer(time.Duration) (<-chan time.Time, func() bool) {
	return nil, func() bool { return true }
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// openInstance opens storage with the binary log as its WAL and sink, as
// node does.
func openInstance(t testing.TB, dir string) (*storage.Engine, *binlog.Log) {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: filepath.Join(dir, "data"), Logger: quiet, LogIsWAL: true, ReserveSize: -1, CacheSize: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	sid, _ := base.ParseSID("3e11fa47-71ca-11e1-9e33-c80aa9429562")
	l, err := binlog.Open(binlog.Options{Dir: filepath.Join(dir, "binlog"), ServerUUID: sid, Store: st, Logger: quiet, TailSize: 1 << 20})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	st.SetSink(l)
	t.Cleanup(func() {
		l.Close()
		st.Close()
	})
	return st, l
}

// TestDonorSnapshots: a snapshot holds storage as it was (a value written
// before it, not one written after) and the header of a freshly rotated
// binlog file whose PREVIOUS_GTIDS is the announced set; reads return the
// files' bytes with their CRC-32C and nothing outside the snapshot;
// snapshots are bounded in number, expire after their lease, end, and are
// removed at Close and by the next NewDonor.
func TestDonorSnapshots(t *testing.T) {
	dir := t.TempDir()
	st, l := openInstance(t, dir)
	if err := st.SetMetaSync("clone-test", []byte("before")); err != nil {
		t.Fatal(err)
	}
	clk := &manualClock{now: time.Unix(1_000_000, 0)}
	// A leftover of an earlier run goes at NewDonor.
	if err := os.MkdirAll(filepath.Join(dir, DonorDir, "dead"), 0o750); err != nil {
		t.Fatal(err)
	}
	d, err := NewDonor(DonorOptions{Datadir: dir, Store: st, Log: l, Clock: clk, Logger: quiet, Lease: time.Minute, MaxSnapshots: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DonorDir, "dead")); !os.IsNotExist(err) {
		t.Fatalf("NewDonor kept an earlier run's snapshot (%v)", err)
	}
	before := l.Current()
	m, err := d.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetMetaSync("clone-test", []byte("after")); err != nil {
		t.Fatal(err)
	}
	if cur := l.Current(); m.Binlog == before.File || cur.File != m.Binlog {
		t.Fatalf("the snapshot's binlog file %s: the log was at %s before and is at %s", m.Binlog, before, cur)
	}
	if m.GTIDs != l.Executed().String() || m.Format != Format {
		t.Fatalf("manifest GTIDs %q format %d; log %q", m.GTIDs, m.Format, l.Executed())
	}

	// Copy the snapshot through Read, in small chunks.
	out := t.TempDir()
	names := map[string]bool{}
	for _, f := range m.Files {
		names[f.Name] = true
		var b []byte
		for off := int64(0); off < f.Size; {
			chunk, sum, err := d.Read(m.ID, f.Name, off, 1000)
			if err != nil {
				t.Fatalf("read %s at %d: %v", f.Name, off, err)
			}
			if len(chunk) == 0 || crc32.Checksum(chunk, castagnoli) != sum {
				t.Fatalf("read %s at %d: %d bytes, checksum mismatch", f.Name, off, len(chunk))
			}
			b = append(b, chunk...)
			off += int64(len(chunk))
		}
		p := filepath.Join(out, filepath.FromSlash(f.Name))
		os.MkdirAll(filepath.Dir(p), 0o750)
		if err := os.WriteFile(p, b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if !names["binlog/"+m.Binlog] || !names["binlog/binlog.index"] {
		t.Fatalf("the manifest lacks the binary log: %v", names)
	}
	h, err := binlog.ReadFileHeader(filepath.Join(out, "binlog", m.Binlog))
	if err != nil || h.PreviousGTIDs.String() != m.GTIDs {
		t.Fatalf("the copied binlog header: %v, PREVIOUS_GTIDS %v, want %q", err, h.PreviousGTIDs, m.GTIDs)
	}
	copied, err := storage.Open(storage.Options{Dir: filepath.Join(out, "data"), Logger: quiet, ReserveSize: -1, CacheSize: 8 << 20, LogIsWAL: true})
	if err != nil {
		t.Fatalf("the copied storage does not open: %v", err)
	}
	v, err := copied.GetMeta("clone-test")
	copied.Close()
	if err != nil || string(v) != "before" {
		t.Fatalf("the copied storage holds %q (%v), want the value from before the snapshot", v, err)
	}

	// Nothing outside the snapshot is readable.
	for _, bad := range []string{"../../etc/passwd", "data/../../petrel.json", "binlog/binlog.000001x", "petrel.json"} {
		if _, _, err := d.Read(m.ID, bad, 0, 10); err == nil {
			t.Errorf("read of %q succeeded", bad)
		}
	}
	if _, _, err := d.Read("0123", m.Files[0].Name, 0, 10); !errors.Is(err, ErrNoSnapshot) {
		t.Errorf("read of an unknown snapshot: %v", err)
	}
	if _, _, err := d.Read(m.ID, m.Files[0].Name, 0, MaxChunk+1); err == nil {
		t.Errorf("a read of more than MaxChunk succeeded")
	}

	// Two at once at most; a lease that passes frees the slot.
	m2, err := d.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Begin(); !errors.Is(err, ErrBusy) {
		t.Fatalf("a third snapshot: %v, want ErrBusy", err)
	}
	clk.advance(30 * time.Second)
	if _, _, err := d.Read(m2.ID, m2.Files[0].Name, 0, 10); err != nil { // renews m2's lease
		t.Fatal(err)
	}
	clk.advance(45 * time.Second) // m's lease passed, m2's not
	m3, err := d.Begin()
	if err != nil {
		t.Fatalf("a snapshot after a lease passed: %v", err)
	}
	if _, _, err := d.Read(m.ID, m.Files[0].Name, 0, 10); !errors.Is(err, ErrNoSnapshot) {
		t.Errorf("read of an expired snapshot: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DonorDir, m.ID)); !os.IsNotExist(err) {
		t.Errorf("the expired snapshot's files are still there (%v)", err)
	}
	if err := d.End(m2.ID); err != nil {
		t.Fatal(err)
	}
	if err := d.End(m2.ID); !errors.Is(err, ErrNoSnapshot) {
		t.Errorf("a second End: %v", err)
	}
	if d.Active() != 1 {
		t.Errorf("%d snapshots held, want 1 (%s)", d.Active(), m3.ID)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DonorDir)); !os.IsNotExist(err) {
		t.Errorf("Close left %s (%v)", DonorDir, err)
	}
	if _, err := d.Begin(); err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("Begin after Close: %v", err)
	}
}
