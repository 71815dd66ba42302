package binlog

// Relayed transactions: a relay (repl/relay) keeps the transactions it
// receives from its source in its own log, byte for byte but for what a
// file of its own must change (each event's next position and checksum,
// the GTID event's logical clock), instead of encoding storage's rows.

import (
	"context"
	"encoding/binary"
	"fmt"

	"petrel/internal/base"
)

// Relayed is one whole transaction received from a source.
type Relayed struct {
	// Events are the transaction's events, GTID event first, each whole
	// with its CRC32 trailer (verified by the receiver).
	Events [][]byte
	// GTID is the GTID event's.
	GTID base.GTID
	// LastCommitted gives the transaction's last_committed in this log,
	// given the file it is written to and its sequence number there. It
	// is called under the log's lock and must be quick. nil: the
	// transaction depends on every earlier one in the file.
	LastCommitted func(file string, seq int64) int64
}

// AppendRelayed writes t at the end of the log (rotating first past
// max_binlog_size) and returns the end of the transaction. The events are
// copied; only their next-position fields, checksums and the GTID event's
// last_committed and sequence_number change. t.GTID joins gtid_executed at
// once: nothing is applied to storage. A failed write leaves no part of
// the transaction in the file.
func (l *Log) AppendRelayed(t Relayed) (Position, error) {
	if len(t.Events) == 0 || len(t.Events[0]) < HeaderLen || t.Events[0][4] != GTIDEvent {
		return Position{}, base.Errorf(base.ClassBadInput, "binlog: a relayed transaction starts with its GTID event")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return Position{}, errClosed
	}
	if err := l.failure(); err != nil {
		return Position{}, err
	}
	if l.executed.Contains(t.GTID) {
		return Position{}, base.Errorf(base.ClassDuplicate, "binlog: GTID %s is already in gtid_executed", t.GTID)
	}
	if l.pos >= uint64(l.opts.MaxSize) {
		if err := l.rotate(); err != nil {
			return Position{}, err
		}
	}
	seq := l.seqNo + 1
	last := seq - 1
	if t.LastCommitted != nil {
		last = min(max(t.LastCommitted(l.files[l.fileIdx], seq), 0), seq-1)
	}
	n := 0
	for _, ev := range t.Events {
		n += len(ev)
	}
	buf := make([]byte, 0, n)
	at := l.pos
	for i, ev := range t.Events {
		start := len(buf)
		buf = append(buf, ev...)
		e := buf[start:]
		if i == 0 {
			setLogicalClock(e, last, seq)
		}
		at += uint64(len(e))
		setNextPos(e, uint32(at))
	}
	rec := int64(-1)
	err := l.writeAt(buf)
	if err == nil {
		if rec, err = l.logTail(buf); err != nil {
			if terr := l.f.Truncate(int64(l.pos)); terr == nil {
				err = base.Wrap(base.ClassOutcomeUnknown, err, "binlog")
			}
			l.broken = fmt.Errorf("binlog: the tail log failed; restart the server to recover: %w", err)
			return Position{}, err
		}
	}
	if err != nil {
		if terr := l.f.Truncate(int64(l.pos)); terr != nil {
			l.broken = fmt.Errorf("binlog: cannot remove a partly written transaction from %s: %w", l.files[l.fileIdx], terr)
		}
		if rec >= 0 {
			if terr := l.tail.invalidate(rec); terr != nil {
				l.broken = fmt.Errorf("binlog: cannot withdraw a failed transaction from the tail log: %w", terr)
			}
		}
		return Position{}, fmt.Errorf("binlog: write %s at %d: %w", l.files[l.fileIdx], l.pos, err)
	}
	l.seqNo = seq
	l.pos = at
	if t.GTID.SID == l.opts.ServerUUID && t.GTID.GNO >= l.nextGNO {
		l.nextGNO = t.GTID.GNO + 1
	}
	l.executed.Add(t.GTID)
	l.visMu.Lock()
	l.visible.Add(t.GTID)
	l.visMu.Unlock()
	l.stats.Commits.Add(1)
	l.stats.BytesWritten.Add(uint64(len(buf)))
	l.syncMu.Lock()
	l.written = logPos{file: l.fileIdx, pos: at}
	l.syncMu.Unlock()
	if l.syncBinlog.Load() != 1 {
		l.wake()
	}
	return Position{File: l.files[l.fileIdx], Pos: at}, nil
}

// setLogicalClock rewrites a GTID event's last_committed and
// sequence_number (MySQL 8.0 layout: they follow the flags, SID, GNO and
// the logical timestamp typecode 2). The checksum is set by setNextPos.
func setLogicalClock(ev []byte, last, seq int64) {
	const at = HeaderLen + 1 + 16 + 8
	if len(ev) < at+17+ChecksumLen || ev[at] != 2 {
		return
	}
	binary.LittleEndian.PutUint64(ev[at+1:], uint64(last))
	binary.LittleEndian.PutUint64(ev[at+9:], uint64(seq))
}

// SyncWritten makes everything written durable: always with force, else
// only under sync_binlog=1 (other values leave it to later groups or the
// operating system, as for commits).
func (l *Log) SyncWritten(ctx context.Context, force bool) error {
	if !force && l.syncBinlog.Load() != 1 {
		return nil
	}
	l.syncMu.Lock()
	target := l.written
	l.syncMu.Unlock()
	return l.syncTo(ctx, target)
}
