package replica

import (
	"context"
	"errors"
	"io"

	"petrel/binlog"
	"petrel/internal/base"
)

// The applier's first stage: the relay log read in order, as a stream of
// items. It does I/O only; what to do with each item (schedule, apply,
// drain, purge) is the applier's.

// streamKind says what a streamItem is.
type streamKind int

const (
	// streamTxn: a whole transaction and the source position after it.
	streamTxn streamKind = iota
	// streamPos: events outside transactions moved the source position.
	streamPos
	// streamFileEnd: the current relay file is read to its end and a
	// next one exists; the caller makes what it held durable, then calls
	// advance.
	streamFileEnd
	// streamIdle: nothing more until the receiver writes; the caller
	// calls wait.
	streamIdle
)

type streamItem struct {
	kind streamKind
	txn  *binlog.Txn
	end  sourcePos // streamTxn, streamPos: the executed source position after it
}

// relayStream reads the relay log files one after another. Not safe for
// concurrent use: the applier owns it.
type relayStream struct {
	relay *relayLog
	file  string
	rd    *binlog.Reader
	tr    *relayReader
	// track follows the source position through the relay files (their
	// markers and the source's events): the executed position.
	track    posTracker
	reported sourcePos // the last position handed out

	// One pass over what the file holds at a time: limit and next are
	// read at the pass's start, changed is the receiver's signal for the
	// pass after it.
	passOpen   bool
	passDone   bool
	progressed bool
	limit      int64
	next       string
	changed    <-chan struct{}
}

// openStream starts at the oldest relay file.
func openStream(relay *relayLog) (*relayStream, error) {
	s := &relayStream{relay: relay, file: relay.first()}
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *relayStream) open() error {
	rd, err := binlog.OpenReader(s.relay.path(s.file))
	if err != nil {
		return err
	}
	s.rd = rd
	s.tr = newRelayReader(rd, s.file, &s.track)
	s.passOpen = false
	return nil
}

// Next returns the next item.
func (s *relayStream) Next() (streamItem, error) {
	for {
		if !s.passOpen {
			s.changed = s.relay.changed()
			limit, next, ok := s.relay.limit(s.file)
			if !ok {
				return streamItem{}, errors.New("relay log file " + s.file + " disappeared")
			}
			s.limit, s.next = limit, next
			s.rd.SetLimit(limit) // the file is preallocated past its end
			s.passOpen, s.passDone, s.progressed = true, false, false
		}
		if !s.passDone && (s.limit < 0 || int64(s.rd.Pos()) < s.limit) {
			start := s.rd.Pos()
			t, end, err := s.tr.next()
			switch {
			case errors.Is(err, io.EOF):
				s.passDone = true
				// Only events outside transactions were left.
				if s.track.pos != s.reported {
					s.reported = s.track.pos
					return streamItem{kind: streamPos, end: s.reported}, nil
				}
			case errors.Is(err, io.ErrUnexpectedEOF):
				if s.limit < 0 {
					return streamItem{}, base.Errorf(base.ClassCorrupt, "relay log %s ends inside a transaction at %d", s.file, start)
				}
				// The receiver is writing the next transaction: retry it
				// once it is whole.
				if err := s.rd.Seek(start); err != nil {
					return streamItem{}, err
				}
				s.passDone = true
			case err != nil:
				return streamItem{}, err
			default:
				s.reported, s.progressed = end, true
				return streamItem{kind: streamTxn, txn: t, end: end}, nil
			}
			continue
		}
		if s.limit < 0 && s.next != "" {
			return streamItem{kind: streamFileEnd}, nil
		}
		if s.progressed {
			s.passOpen = false // the receiver may have written more meanwhile
			continue
		}
		return streamItem{kind: streamIdle}, nil
	}
}

// File is the relay file being read.
func (s *relayStream) File() string { return s.file }

// Advance removes the finished file (after streamFileEnd, once what it
// held is durable elsewhere) and opens the next.
func (s *relayStream) Advance() error {
	if err := s.Close(); err != nil {
		return err
	}
	s.relay.purge(s.file)
	s.file = s.next
	return s.open()
}

// Wait blocks (after streamIdle) until the receiver writes or ctx ends.
func (s *relayStream) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.changed:
		s.passOpen = false
		return nil
	}
}

// Close closes the open file.
func (s *relayStream) Close() error {
	if s.rd == nil {
		return nil
	}
	err := s.rd.Close()
	s.rd = nil
	return err
}
