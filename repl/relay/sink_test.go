package relay

import (
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"testing"

	"petrel/binlog"
	"petrel/internal/base"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// txn is a DDL transaction as a source sends it: GTID event (with its
// logical clock) and QUERY event.
func txn(sid base.SID, gno, last, seq int64) [][]byte {
	b := []byte{1}
	b = append(b, sid[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(gno))
	b = append(b, 2)
	b = binary.LittleEndian.AppendUint64(b, uint64(last))
	b = binary.LittleEndian.AppendUint64(b, uint64(seq))
	q := binary.LittleEndian.AppendUint32(nil, 1)
	q = binary.LittleEndian.AppendUint32(q, 0)
	q = append(q, 0)
	q = binary.LittleEndian.AppendUint16(q, 0)
	q = binary.LittleEndian.AppendUint16(q, 0)
	q = append(q, 0)
	q = append(q, "CREATE DATABASE d"...)
	return [][]byte{binlog.Frame(binlog.GTIDEvent, 0, 5, 0, 999, b), binlog.Frame(binlog.QueryEvent, 0, 5, 0, 1999, q)}
}

// TestSink: over a real binary log, the sink writes transactions that
// follow, refuses a gap and a duplicate writing nothing, renumbers the
// logical clock, remembers the source across a reopen and forgets it at
// Reset.
func TestSink(t *testing.T) {
	dir := t.TempDir()
	relaySID, _ := base.ParseSID("9a9a9a9a-71ca-11e1-9e33-c80aa9429562")
	src, _ := base.ParseSID("3e11fa47-71ca-11e1-9e33-c80aa9429562")
	l, err := binlog.Open(binlog.Options{Dir: dir + "/binlog", ServerUUID: relaySID, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s, err := New(Options{Log: l, Dir: dir, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Connected("A"); err != nil {
		t.Fatal(err)
	}
	// The source's file: transactions 1..3, the third depending on the second.
	for i, c := range [][2]int64{{0, 1}, {0, 2}, {2, 3}} {
		if err := s.Txn(txn(src, int64(i+1), c[0], c[1]), base.GTID{SID: src, GNO: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	end := l.Current()
	var e *Error
	if err := s.Txn(txn(src, 5, 3, 4), base.GTID{SID: src, GNO: 5}); !errors.As(err, &e) || e.Errno() != 1595 {
		t.Errorf("gap: %v, want 1595", err)
	}
	if err := s.Txn(txn(src, 2, 3, 4), base.GTID{SID: src, GNO: 2}); !errors.As(err, &e) || e.Errno() != 1595 {
		t.Errorf("duplicate: %v, want 1595", err)
	}
	if l.Current() != end || l.Executed().Last(src) != 3 {
		t.Errorf("refusals wrote: log at %v (was %v), gtid_executed %s", l.Current(), end, l.Executed())
	}
	if err := s.Sync(true); err != nil {
		t.Fatal(err)
	}
	p, _ := l.Path(end.File)
	res, err := binlog.ScanFile(p, false)
	if err != nil || len(res.Transactions) != 3 {
		t.Fatalf("relay file: %d transactions, %v", len(res.Transactions), err)
	}
	r, _ := binlog.OpenReader(p)
	defer r.Close()
	tr := binlog.NewTxnReader(r, end.File)
	var clocks [][2]int64
	for {
		x, err := tr.Next()
		if err != nil {
			break
		}
		clocks = append(clocks, [2]int64{x.GTID.LastCommitted, x.GTID.SeqNo})
	}
	if len(clocks) != 3 || clocks[0] != [2]int64{0, 1} || clocks[1] != [2]int64{0, 2} || clocks[2] != [2]int64{2, 3} {
		t.Errorf("relay clocks %v, want [0 1] [0 2] [2 3]", clocks)
	}

	// The source is remembered across a reopen, and forgotten by Reset.
	s2, err := New(Options{Log: l, Dir: dir, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Connected("B"); !errors.As(err, &e) || e.Errno() != 1593 {
		t.Errorf("another source after a reopen: %v, want 1593", err)
	}
	if err := s2.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := s2.Connected("B"); err != nil {
		t.Errorf("after Reset: %v", err)
	}
}
