package replica

import (
	"errors"
	"testing"

	"petrel/binlog"
	"petrel/internal/base"
)

// fakeSink records what the receiver hands a relay's sink.
type fakeSink struct {
	headers []byte
	txns    []int64
	refuse  error
}

func (s *fakeSink) Connected(string) error { return nil }
func (s *fakeSink) Header(ev []byte) error { s.headers = append(s.headers, ev[4]); return nil }
func (s *fakeSink) Txn(evs [][]byte, g base.GTID) error {
	if s.refuse != nil {
		return s.refuse
	}
	s.txns = append(s.txns, g.GNO)
	return nil
}
func (s *fakeSink) Sync(bool) error { return nil }
func (s *fakeSink) Reset() error    { return nil }

type errnoErr struct{ n int }

func (e errnoErr) Error() string { return "refused" }
func (e errnoErr) Errno() int    { return e.n }

// TestReceiverFeedsSink: with a Sink (a relay), whole transactions go to
// it and nothing to the relay log; headers go to Header; a transaction cut
// short or with a bad checksum never reaches it; a refusal stops the
// receiver with the Sink's error number (others: a relay log failure).
func TestReceiverFeedsSink(t *testing.T) {
	r := newTestReplica(t)
	s := &fakeSink{}
	r.opts.Sink = s
	fde := binlog.Frame(binlog.FormatDescriptionEvent, 0, 1, 0, 120, make([]byte, 90))
	if _, err := feed(r, fde, gtidEvent(t, 1), queryEvent("BEGIN"), xidEvent(), gtidEvent(t, 2), queryEvent("CREATE TABLE x (a INT)")); err != nil {
		t.Fatal(err)
	}
	bad := xidEvent()
	bad[len(bad)-1] ^= 0xff
	if _, err := feed(r, gtidEvent(t, 3), queryEvent("BEGIN"), bad); err == nil {
		t.Fatal("a bad checksum was accepted")
	}
	if txn, err := feed(r, gtidEvent(t, 4), queryEvent("BEGIN")); err != nil || txn == nil {
		t.Fatalf("partial: %v %v", txn, err)
	}
	if len(s.txns) != 2 || s.txns[0] != 1 || s.txns[1] != 2 || len(s.headers) != 1 || s.headers[0] != binlog.FormatDescriptionEvent {
		t.Errorf("sink got transactions %v, headers %v; want [1 2] and one FORMAT_DESCRIPTION", s.txns, s.headers)
	}
	if got := r.relay.retrievedSet(); !got.IsEmpty() {
		t.Errorf("the relay log got %s; with a Sink it gets nothing", got)
	}
	var ie *ioError
	s.refuse = errnoErr{1595}
	_, err := feed(r, gtidEvent(t, 5), queryEvent("BEGIN"), xidEvent())
	if !errors.As(err, &ie) || ie.errno != 1595 || !ie.fatal {
		t.Errorf("refusal: %v, want a fatal 1595", err)
	}
	s.refuse = errors.New("disk on fire")
	_, err = feed(r, gtidEvent(t, 5), queryEvent("BEGIN"), xidEvent())
	if !errors.As(err, &ie) || ie.errno != ErrRelayLogFailure || !ie.fatal {
		t.Errorf("write failure: %v, want a fatal %d", err, ErrRelayLogFailure)
	}
}
