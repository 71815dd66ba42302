package replica

import (
	"errors"
	"io"
	"os"
	"testing"

	"petrel/binlog"
	"petrel/internal/base"
)

// A relay file is zero-filled ahead of its end while written. Readers see
// only whole transactions; a crash leaves the zeros, and reopening cuts
// them and keeps every synced transaction.
func TestRelayPreallocationAndCrash(t *testing.T) {
	dir := t.TempDir()
	rl, err := openRelay(dir, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	for i := int64(1); i <= n; i++ {
		evs := [][]byte{gtidEvent(t, i), queryEvent("BEGIN"), xidEvent()}
		g, err := binlog.ParseGTID(binlog.Body(evs[0]))
		if err != nil {
			t.Fatal(err)
		}
		if err := rl.append(evs, &g.GTID); err != nil {
			t.Fatal(err)
		}
	}
	if err := rl.sync(); err != nil {
		t.Fatal(err)
	}
	// Nothing appended since: no second fdatasync.
	if err := rl.sync(); err != nil || rl.syncs != 1 {
		t.Fatalf("syncs %d (err %v) after two syncs with one burst between, want 1", rl.syncs, err)
	}
	name, end := rl.current()
	st, err := os.Stat(rl.path(name))
	if err != nil {
		t.Fatal(err)
	}
	if uint64(st.Size()) < end+relayChunk/2 {
		t.Fatalf("relay file is %d bytes for %d written: not preallocated", st.Size(), end)
	}
	if got := rl.space(); got != end {
		t.Fatalf("Relay_Log_Space %d, want %d (zeros do not count)", got, end)
	}

	// A reader limited to the end sees the n transactions and then a
	// clean end, not the zeros.
	rd, err := binlog.OpenReader(rl.path(name))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.SetLimit(int64(end))
	tr := binlog.NewTxnReader(rd, name)
	for i := 0; i < n; i++ {
		if _, err := tr.Next(); err != nil {
			t.Fatalf("transaction %d: %v", i+1, err)
		}
	}
	if _, err := tr.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end of the relay log: %v, want EOF", err)
	}
	// The writer goes on; the reader, its limit raised, follows.
	for i := int64(n + 1); i <= 2*n; i++ {
		evs := [][]byte{gtidEvent(t, i), queryEvent("BEGIN"), xidEvent()}
		g, _ := binlog.ParseGTID(binlog.Body(evs[0]))
		if err := rl.append(evs, &g.GTID); err != nil {
			t.Fatal(err)
		}
	}
	_, end = rl.current()
	rd.SetLimit(int64(end))
	for i := n + 1; i <= 2*n; i++ {
		if _, err := tr.Next(); err != nil {
			t.Fatalf("transaction %d after the limit moved: %v", i, err)
		}
	}
	if err := rl.sync(); err != nil {
		t.Fatal(err)
	}

	// Crash: the file is never closed. Reopening cuts the zeros.
	rl2, err := openRelay(dir, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	defer rl2.close()
	if st, err := os.Stat(rl.path(name)); err != nil || uint64(st.Size()) != end {
		t.Fatalf("after reopening, %s is %v bytes (err %v), want %d", name, st.Size(), err, end)
	}
	sid, _ := base.ParseSID(testSource)
	if got := rl2.retrievedSet(); got.Last(sid) != 2*n || !got.Contains(base.GTID{SID: sid, GNO: 1}) {
		t.Fatalf("retrieved %s after the crash, want GNOs 1-%d", got, 2*n)
	}
}
