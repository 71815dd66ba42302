package binlog

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
	"petrel/storage"
)

// fixedClock is a base.Clock stopped at one instant.
type fixedClock struct{ at time.Time }

func (c fixedClock) Now() time.Time                         { return c.at }
func (c fixedClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (c fixedClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	return base.RealClock{}.NewTimer(d)
}

// TestInjectedClock: storage and the log take time from the clock they
// are given, never the wall clock: every event a commit writes (and the
// file's FORMAT_DESCRIPTION) carries the clock's time.
func TestInjectedClock(t *testing.T) {
	clk := fixedClock{at: time.Date(2001, 9, 9, 1, 46, 40, 0, time.UTC)}
	dir, fs := t.TempDir(), vfs.NewMem()
	st, err := storage.Open(storage.Options{Dir: "db", FS: fs, Logger: quiet, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Open(Options{Dir: dir, ServerUUID: testSID, Logger: quiet, Store: st, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSink(l)
	r := &rig{fs: fs, dir: dir, store: st, log: l}
	defer l.Close()
	r.createTable(t)
	for i := int64(1); i <= 3; i++ {
		if err := insert(st, i); err != nil {
			t.Fatal(err)
		}
	}
	rd, err := OpenReader(l.path(l.Files()[0].Name))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	events := 0
	for {
		ev, _, err := rd.Next()
		if err != nil {
			break
		}
		events++
		if ts := binary.LittleEndian.Uint32(ev[0:4]); int64(ts) != clk.at.Unix() {
			t.Errorf("event type %d stamped %d, want the clock's %d", ev[4], ts, clk.at.Unix())
		}
	}
	if events < 10 {
		t.Fatalf("read %d events; want the FORMAT_DESCRIPTION, the CREATE TABLE and three row transactions", events)
	}
}
