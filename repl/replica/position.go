package replica

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"petrel/binlog"
)

// Source positions (file and offset in the source's binary log) are what
// file/position replication (SOURCE_AUTO_POSITION=0) resumes from and
// what SHOW REPLICA STATUS reports in both modes.
//
// They are kept in the relay log itself, so that a position and the
// events before it are always durable together, whatever crashes:
//
//   - the relay log holds the source's events with their headers, whose
//     next-position field is the offset in the source's file after the
//     event, and the source's ROTATE events, which name its files;
//   - every relay file starts with a marker (a ROTATE event with server id
//     0) giving the source position reached when the file was started, so
//     purging applied relay files never loses the position;
//   - CHANGE REPLICATION SOURCE writes a marker too: the position it asks
//     for, or "unknown" when the source changes.
//
// Replaying a relay log's events through a posTracker thus gives the
// source position after its last whole transaction: where a receiver
// resumes (nothing before it is missing from the relay log, nothing after
// it is in it), and, replayed by the applier up to what it applied, the
// executed position. No separate position file can disagree with the log.

// sourcePos is a position in the source's binary log; File "" is unknown.
type sourcePos struct {
	File string
	Pos  uint64
}

func (p sourcePos) String() string {
	if p.File == "" {
		return "(unknown)"
	}
	return fmt.Sprintf("%s:%d", p.File, p.Pos)
}

// before reports whether p is strictly before q in the source's log.
// Files compare by their numeric extension (binlog.000010 after
// binlog.000009, binlog.1000000 after binlog.999999).
func (p sourcePos) before(q sourcePos) bool {
	if p.File != q.File {
		return fileBefore(p.File, q.File)
	}
	return p.Pos < q.Pos
}

func fileBefore(a, b string) bool {
	na, errA := strconv.ParseUint(a[strings.LastIndexByte(a, '.')+1:], 10, 64)
	nb, errB := strconv.ParseUint(b[strings.LastIndexByte(b, '.')+1:], 10, 64)
	if errA == nil && errB == nil && a[:strings.LastIndexByte(a, '.')+1] == b[:strings.LastIndexByte(b, '.')+1] {
		return na < nb
	}
	return a < b
}

// posTracker follows the source position through a stream of relay or
// network events. Source events only move it forward: with
// auto-positioning the source starts each dump at the file holding the
// first transaction the replica may lack and skips what it has, so the
// stream may restart behind the position already reached; no event of a
// stream moves it backwards. Relay markers (server id 0) set it as they
// say. Not safe for concurrent use.
type posTracker struct {
	pos sourcePos
}

// markerServerID marks ROTATE events the replica writes into its relay log.
const markerServerID = 0

// relayMarker is the relay-log event recording position p.
func relayMarker(p sourcePos) []byte {
	return binlog.ArtificialRotate(markerServerID, p.File, p.Pos)
}

// observe moves the tracker past ev.
func (t *posTracker) observe(ev []byte) {
	h, err := binlog.ParseHeader(ev)
	if err != nil {
		return
	}
	switch {
	case h.Type == binlog.RotateEvent:
		pos, name, err := binlog.ParseRotate(binlog.Body(ev))
		if err != nil {
			return
		}
		next := sourcePos{File: name, Pos: pos}
		if h.ServerID == markerServerID || t.pos.File == "" || t.pos.before(next) {
			t.pos = next
		}
	case h.Type == binlog.HeartbeatEvent || h.Flags&binlog.ArtificialFlag != 0 || h.NextPos == 0:
		// Not in the source's file (a format description sent out of
		// place carries 0).
	case t.pos.File != "" && t.pos.Pos < uint64(h.NextPos):
		t.pos.Pos = uint64(h.NextPos)
	}
}

// scanPosition replays one relay file's events into t.
func scanPosition(path string, t *posTracker) error {
	rd, err := binlog.OpenReader(path)
	if err != nil {
		return err
	}
	defer rd.Close()
	for {
		ev, _, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		t.observe(ev)
	}
}

// relayReader reads whole transactions from one relay file, as
// binlog.TxnReader does, following the source position: Pos is the
// position after the last whole transaction or event outside a
// transaction returned or passed.
type relayReader struct {
	rd   *binlog.Reader
	file string
	tr   *posTracker // shared by the files one applier reads
}

func newRelayReader(rd *binlog.Reader, file string, tr *posTracker) *relayReader {
	return &relayReader{rd: rd, file: file, tr: tr}
}

// next returns the next whole transaction and the source position after
// it; io.EOF at the end of the file (events outside transactions were
// passed), io.ErrUnexpectedEOF when the file ends inside a transaction
// (the caller seeks back to its start and retries: the tracker has not
// moved past the transaction's start).
func (r *relayReader) next() (*binlog.Txn, sourcePos, error) {
	var cur *binlog.Txn
	inTxn := false
	track := *r.tr // moves with the transaction; committed when it is whole
	for {
		ev, at, err := r.rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) && cur != nil {
				return nil, r.tr.pos, io.ErrUnexpectedEOF
			}
			return nil, r.tr.pos, err
		}
		switch ev[4] {
		case binlog.GTIDEvent:
			g, err := binlog.ParseGTID(binlog.Body(ev))
			if err != nil {
				return nil, r.tr.pos, fmt.Errorf("%s at offset %d: %w", r.file, at, err)
			}
			cur = &binlog.Txn{File: r.file, Start: at, GTID: g, Events: [][]byte{ev}}
			inTxn = false
			track = *r.tr
			track.observe(ev)
			continue
		case binlog.FormatDescriptionEvent, binlog.PreviousGTIDsEvent, binlog.RotateEvent, binlog.StopEvent, binlog.HeartbeatEvent:
			if cur == nil {
				r.tr.observe(ev)
			}
			continue
		}
		if cur == nil {
			continue // events outside a GTID transaction (not Petrel's)
		}
		track.observe(ev)
		end := at + uint64(len(ev))
		if ev[4] == binlog.TransactionPayloadEvent {
			// Relay logs keep it compressed: the applier expands it.
			inner, err := binlog.ExpandPayload(ev)
			if err != nil {
				return nil, r.tr.pos, fmt.Errorf("%s at offset %d: %w", r.file, at, err)
			}
			cur.Events = append(cur.Events, inner...)
			cur.End = end
			*r.tr = track
			return cur, track.pos, nil
		}
		cur.Events = append(cur.Events, ev)
		switch ev[4] {
		case binlog.QueryEvent:
			q, err := binlog.ParseQuery(binlog.Body(ev))
			if err != nil {
				return nil, r.tr.pos, fmt.Errorf("%s at offset %d: %w", r.file, at, err)
			}
			if q.Query == "BEGIN" {
				inTxn = true
			} else if !inTxn {
				cur.End, cur.DDL = end, true
				*r.tr = track
				return cur, track.pos, nil
			}
		case binlog.XIDEvent:
			cur.End = end
			*r.tr = track
			return cur, track.pos, nil
		}
	}
}

// position is the source position after the relay log's last whole
// transaction (or event outside transactions): where a file/position
// receiver resumes.
func (rl *relayLog) position() sourcePos {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.track.pos
}

// mark records p (File "": unknown) as the position reached, durably.
func (rl *relayLog) mark(p sourcePos) error {
	if err := rl.append([][]byte{relayMarker(p)}, nil); err != nil {
		return err
	}
	return rl.sync()
}

// resetTo empties the relay log and starts it at p (CHANGE REPLICATION
// SOURCE TO SOURCE_LOG_FILE/SOURCE_LOG_POS).
func (rl *relayLog) resetTo(p sourcePos) error {
	if err := rl.reset(); err != nil {
		return err
	}
	return rl.mark(p)
}
