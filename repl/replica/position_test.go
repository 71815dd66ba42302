package replica

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"testing"

	"petrel/binlog"
)

// at returns a copy of ev with its next-position field set.
func at(ev []byte, next uint32) []byte { return binlog.WithNextPos(ev, next) }

// sourceTxn is one whole transaction whose last event ends at next.
func sourceTxn(t *testing.T, gno int64, next uint32) [][]byte {
	t.Helper()
	return [][]byte{at(gtidEvent(t, gno), next-150), at(queryEvent("BEGIN"), next-100), at(xidEvent(), next)}
}

func realRotate(file string) []byte {
	body := binary.LittleEndian.AppendUint64(nil, 4)
	return binlog.Frame(binlog.RotateEvent, 0, 1, 0, 9999, append(body, file...))
}

func fde(next uint32) []byte {
	return binlog.Frame(binlog.FormatDescriptionEvent, 0, 1, 0, next, make([]byte, 90))
}

// TestPosTrackerFollowsTheSource: the tracked position follows ROTATEs
// and next-positions forward, ignores a dump that restarts behind it
// (auto-positioning starts at an earlier file and skips), and obeys the
// relay log's own markers.
func TestPosTrackerFollowsTheSource(t *testing.T) {
	var tr posTracker
	step := func(ev []byte, want sourcePos) {
		t.Helper()
		tr.observe(ev)
		if tr.pos != want {
			t.Fatalf("after event type %d: position %s, want %s", ev[4], tr.pos, want)
		}
	}
	step(at(xidEvent(), 500), sourcePos{}) // nothing known yet
	step(binlog.ArtificialRotate(1, "binlog.000002", 4), sourcePos{"binlog.000002", 4})
	step(fde(126), sourcePos{"binlog.000002", 126})
	step(binlog.WithNextPos(fde(126), 0), sourcePos{"binlog.000002", 126}) // out of place: 0
	for _, ev := range sourceTxn(t, 1, 400) {
		tr.observe(ev)
	}
	step(binlog.Heartbeat(1, "binlog.000002", 900), sourcePos{"binlog.000002", 400})
	// A new dump with auto-positioning starts at an earlier file.
	step(binlog.ArtificialRotate(1, "binlog.000001", 4), sourcePos{"binlog.000002", 400})
	step(fde(126), sourcePos{"binlog.000002", 400})
	step(realRotate("binlog.000002"), sourcePos{"binlog.000002", 400})
	step(at(xidEvent(), 650), sourcePos{"binlog.000002", 650})
	step(realRotate("binlog.000003"), sourcePos{"binlog.000003", 4})
	step(fde(126), sourcePos{"binlog.000003", 126})
	// Markers: "unknown" (another source), then whatever comes first.
	step(relayMarker(sourcePos{}), sourcePos{})
	step(at(xidEvent(), 900), sourcePos{})
	step(binlog.ArtificialRotate(1, "binlog.000001", 4), sourcePos{"binlog.000001", 4})
	// A marker moves it anywhere, even backwards (CHANGE ... SOURCE_LOG_POS).
	step(relayMarker(sourcePos{"binlog.000001", 2}), sourcePos{"binlog.000001", 2})

	for _, c := range []struct {
		a, b string
		want bool
	}{{"binlog.000009", "binlog.000010", true}, {"binlog.999999", "binlog.1000000", true}, {"binlog.000010", "binlog.000009", false}} {
		if got := fileBefore(c.a, c.b); got != c.want {
			t.Errorf("fileBefore(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// TestRelayPositionIsDurableWithTheLog: the relay log's position is the
// end of its last whole transaction; it survives relay files being
// purged (each file starts with a marker), a torn tail, reopening, and is
// set by resetTo and mark.
func TestRelayPositionIsDurableWithTheLog(t *testing.T) {
	dir := t.TempDir()
	rl, err := openRelay(dir, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if p := rl.position(); p.File != "" {
		t.Fatalf("empty relay log at %s", p)
	}
	if err := rl.append([][]byte{binlog.ArtificialRotate(1, "binlog.000004", 4)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := rl.append([][]byte{fde(126)}, nil); err != nil {
		t.Fatal(err)
	}
	next := uint32(126)
	for i := int64(1); i <= 60; i++ {
		next += 300
		evs := sourceTxn(t, i, next)
		g, _ := binlog.ParseGTID(binlog.Body(evs[0]))
		if err := rl.append(evs, &g.GTID); err != nil {
			t.Fatal(err)
		}
	}
	want := sourcePos{"binlog.000004", uint64(next)}
	if p := rl.position(); p != want {
		t.Fatalf("position %s, want %s", p, want)
	}
	if len(rl.files) < 4 {
		t.Fatalf("%d relay files: the test needs rotations", len(rl.files))
	}
	// Every file after the first starts with a marker at the position
	// reached when it was started.
	for _, f := range rl.files[1:] {
		rd, err := binlog.OpenReader(rl.path(f))
		if err != nil {
			t.Fatal(err)
		}
		ev, _, err := rd.Next()
		rd.Close()
		if err != nil {
			t.Fatal(err)
		}
		h, _ := binlog.ParseHeader(ev)
		if h.Type != binlog.RotateEvent || h.ServerID != markerServerID {
			t.Fatalf("%s starts with event type %d (server %d), want a relay marker", f, h.Type, h.ServerID)
		}
	}
	// The applier purges what it applied.
	for len(rl.files) > 2 {
		rl.purge(rl.files[0])
	}
	// A crash leaves half a transaction after the last whole one.
	name, end := rl.current()
	part := sourceTxn(t, 61, next+300)
	f, err := os.OpenFile(rl.path(name), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(append(part[0], part[1]...), int64(end)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rl.f.Close()
	rl.f = nil

	rl2, err := openRelay(dir, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if p := rl2.position(); p != want {
		t.Fatalf("reopened after purges and a torn tail at %s, want %s", p, want)
	}
	// Reopened once more (the new file starts with a marker).
	rl2.close()
	rl3, err := openRelay(dir, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if p := rl3.position(); p != want {
		t.Fatalf("reopened twice at %s, want %s", p, want)
	}
	set := sourcePos{"binlog.000002", 157}
	if err := rl3.resetTo(set); err != nil {
		t.Fatal(err)
	}
	if p := rl3.position(); p != set || len(rl3.files) != 1 {
		t.Fatalf("after resetTo: %s in %d files, want %s in 1", p, len(rl3.files), set)
	}
	if err := rl3.mark(sourcePos{}); err != nil {
		t.Fatal(err)
	}
	rl3.close()
	rl4, err := openRelay(dir, 2048)
	if err != nil {
		t.Fatal(err)
	}
	defer rl4.close()
	if p := rl4.position(); p.File != "" {
		t.Fatalf("after a mark of an unknown position, reopened at %s", p)
	}
}

// TestRelayReaderPositions: the applier's reader returns each whole
// transaction with the source position after it, passes events outside
// transactions, and does not move past a transaction it could not read
// whole.
func TestRelayReaderPositions(t *testing.T) {
	dir := t.TempDir()
	rl, err := openRelay(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.close()
	appendAll := func(evs [][]byte, g bool) {
		t.Helper()
		var gp *binlog.GTIDInfo
		if g {
			x, _ := binlog.ParseGTID(binlog.Body(evs[0]))
			gp = &x
		}
		if gp != nil {
			err = rl.append(evs, &gp.GTID)
		} else {
			err = rl.append(evs, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	appendAll([][]byte{binlog.ArtificialRotate(1, "binlog.000007", 4), fde(126)}, false)
	appendAll(sourceTxn(t, 1, 500), true)
	appendAll(sourceTxn(t, 2, 800), true)
	appendAll([][]byte{realRotate("binlog.000008"), fde(126)}, false)
	name, end := rl.current()
	rd, err := binlog.OpenReader(rl.path(name))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.SetLimit(int64(end))
	var tr posTracker
	r := newRelayReader(rd, name, &tr)
	for _, want := range []sourcePos{{"binlog.000007", 500}, {"binlog.000007", 800}} {
		txn, p, err := r.next()
		if err != nil || txn == nil || p != want {
			t.Fatalf("next: %v %v %s, want a transaction ending at %s", txn, err, p, want)
		}
	}
	if _, _, err := r.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %v, want EOF", err)
	}
	if want := (sourcePos{"binlog.000008", 126}); tr.pos != want {
		t.Fatalf("after the events outside transactions: %s, want %s", tr.pos, want)
	}
	// Half a transaction: not returned, position unchanged.
	part := sourceTxn(t, 3, 1100)
	f, _ := os.OpenFile(rl.path(name), os.O_WRONLY, 0)
	f.WriteAt(append(part[0], part[1]...), int64(end))
	f.Close()
	rd.SetLimit(int64(end) + int64(len(part[0])+len(part[1])))
	if _, _, err := r.next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("half a transaction: %v, want ErrUnexpectedEOF", err)
	}
	if want := (sourcePos{"binlog.000008", 126}); tr.pos != want {
		t.Fatalf("after half a transaction: %s, want %s", tr.pos, want)
	}
}
