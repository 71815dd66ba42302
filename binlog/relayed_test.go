package binlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
)

// sourceTxns reads every transaction of a log's files.
func sourceTxns(t *testing.T, l *Log) []*Txn {
	t.Helper()
	var out []*Txn
	for _, f := range l.Files() {
		p, _ := l.Path(f.Name)
		r, err := OpenReader(p)
		if err != nil {
			t.Fatal(err)
		}
		tr := NewTxnReader(r, f.Name)
		for {
			x, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, x)
		}
		r.Close()
	}
	return out
}

// TestAppendRelayed: a relay's log holds the source's transactions with
// their GTIDs, server ids and bodies; its own files rotate, every event's
// position and checksum is its own, the logical clock is what the
// callback gave, and a reopen (no storage) recovers the same GTID set.
func TestAppendRelayed(t *testing.T) {
	r := openRig(t, vfs.NewMem(), t.TempDir())
	defer r.log.Close()
	r.createTable(t)
	for i := int64(1); i <= 60; i++ {
		if err := insert(r.store, i); err != nil {
			t.Fatal(err)
		}
	}
	src := sourceTxns(t, r.log)
	if len(src) != 61 {
		t.Fatalf("source holds %d transactions, want 61", len(src))
	}

	relaySID, _ := base.ParseSID("9a9a9a9a-71ca-11e1-9e33-c80aa9429562")
	dir := t.TempDir()
	rl, err := Open(Options{Dir: dir, ServerUUID: relaySID, ServerID: 7, Logger: quiet, MaxSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		file string
		seq  int64
	}
	var calls []call
	for _, x := range src {
		_, err := rl.AppendRelayed(Relayed{Events: x.Events, GTID: x.GTID.GTID, LastCommitted: func(file string, seq int64) int64 {
			calls = append(calls, call{file, seq})
			return 0
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A duplicate is refused and writes nothing.
	before := rl.Current()
	if _, err := rl.AppendRelayed(Relayed{Events: src[3].Events, GTID: src[3].GTID.GTID}); base.ClassOf(err) != base.ClassDuplicate {
		t.Fatalf("duplicate GTID: %v, want ClassDuplicate", err)
	}
	if rl.Current() != before {
		t.Fatalf("a refused transaction moved the log from %v to %v", before, rl.Current())
	}
	if err := rl.SyncWritten(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if !rl.Executed().Equal(r.log.Executed()) {
		t.Fatalf("relay gtid_executed %s, source %s", rl.Executed(), r.log.Executed())
	}
	got := sourceTxns(t, rl)
	if len(got) != len(src) || len(rl.Files()) < 3 {
		t.Fatalf("relay holds %d transactions in %d files; want %d in several", len(got), len(rl.Files()), len(src))
	}
	wantSeq := map[string]int64{}
	for i, x := range got {
		s := src[i]
		if x.GTID.GTID != s.GTID.GTID || len(x.Events) != len(s.Events) {
			t.Fatalf("txn %d: %v with %d events, source %v with %d", i, x.GTID.GTID, len(x.Events), s.GTID.GTID, len(s.Events))
		}
		wantSeq[x.File]++
		if x.GTID.SeqNo != wantSeq[x.File] || x.GTID.LastCommitted != 0 || calls[i].seq != x.GTID.SeqNo || calls[i].file != x.File {
			t.Fatalf("txn %d in %s: clock %d/%d, callback %v", i, x.File, x.GTID.LastCommitted, x.GTID.SeqNo, calls[i])
		}
		for j, ev := range x.Events {
			se := s.Events[j]
			if _, err := ParseHeader(ev); err != nil {
				t.Fatalf("txn %d event %d: %v", i, j, err)
			}
			// Same type, server id, timestamp, size and body (the GTID
			// event's clock aside).
			if !bytes.Equal(ev[:13], se[:13]) || (j > 0 && !bytes.Equal(Body(ev), Body(se))) {
				t.Fatalf("txn %d event %d differs from the source's", i, j)
			}
		}
	}
	for _, f := range rl.Files()[:len(rl.Files())-1] {
		p, _ := rl.Path(f.Name)
		if _, err := ScanFile(p, false); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
	}
	want := rl.Executed()
	if err := rl.Close(); err != nil {
		t.Fatal(err)
	}
	rl, err = Open(Options{Dir: dir, ServerUUID: relaySID, Logger: quiet, MaxSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	if !rl.Executed().Equal(want) || !rl.Logged().Equal(want) {
		t.Fatalf("reopened relay log: %s, want %s", rl.Executed(), want)
	}
}
