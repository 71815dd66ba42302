package binlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"petrel/internal/base"
)

// EventDesc is one row of SHOW BINLOG EVENTS.
type EventDesc struct {
	Pos      uint64
	Type     string
	ServerID uint32
	EndPos   uint64
	Info     string
}

// TypeName is the event type as SHOW BINLOG EVENTS names it.
func TypeName(t byte) string {
	switch t {
	case QueryEvent:
		return "Query"
	case StopEvent:
		return "Stop"
	case RotateEvent:
		return "Rotate"
	case FormatDescriptionEvent:
		return "Format_desc"
	case XIDEvent:
		return "Xid"
	case TableMapEvent:
		return "Table_map"
	case WriteRowsEventV1, WriteRowsEventV2:
		return "Write_rows"
	case UpdateRowsEventV1, UpdateRowsEventV2:
		return "Update_rows"
	case DeleteRowsEventV1, DeleteRowsEventV2:
		return "Delete_rows"
	case GTIDEvent:
		return "Gtid"
	case AnonymousGTIDEvent:
		return "Anonymous_Gtid"
	case PreviousGTIDsEvent:
		return "Previous_gtids"
	case HeartbeatEvent:
		return "Heartbeat"
	case RowsQueryEvent:
		return "Rows_query"
	case TransactionPayloadEvent:
		return "Transaction_payload"
	}
	return fmt.Sprintf("Unknown(%d)", t)
}

// Info summarises an event as SHOW BINLOG EVENTS does.
func Info(ev []byte) string {
	body := Body(ev)
	switch ev[4] {
	case FormatDescriptionEvent:
		if len(body) >= 52 {
			return fmt.Sprintf("Server ver: %s, Binlog ver: 4", strings.TrimRight(string(body[2:52]), "\x00"))
		}
	case PreviousGTIDsEvent:
		if s, err := base.DecodeGTIDSet(body); err == nil {
			return s.String()
		}
	case GTIDEvent:
		if g, err := ParseGTID(body); err == nil {
			return fmt.Sprintf("SET @@SESSION.GTID_NEXT= '%s'", g.GTID)
		}
	case QueryEvent:
		if q, err := ParseQuery(body); err == nil {
			if q.Database != "" && q.Query != "BEGIN" {
				return fmt.Sprintf("use `%s`; %s", q.Database, q.Query)
			}
			return q.Query
		}
	case XIDEvent:
		if len(body) >= 8 {
			return fmt.Sprintf("COMMIT /* xid=%d */", uint64(body[0])|uint64(body[1])<<8|uint64(body[2])<<16|uint64(body[3])<<24|uint64(body[4])<<32|uint64(body[5])<<40|uint64(body[6])<<48|uint64(body[7])<<56)
		}
	case TransactionPayloadEvent:
		if p, err := ParsePayload(body); err == nil {
			return fmt.Sprintf("compression='%s', decompressed_size=%d bytes", p.CompressionName(), p.UncompressedSize)
		}
	case TableMapEvent:
		if tm, err := ParseTableMap(body); err == nil {
			return fmt.Sprintf("table_id: %d (%s.%s)", tm.TableID, tm.Database, tm.Table)
		}
	case RotateEvent:
		if pos, name, err := ParseRotate(body); err == nil {
			return fmt.Sprintf("%s;pos=%d", name, pos)
		}
	case WriteRowsEventV2, UpdateRowsEventV2, DeleteRowsEventV2, WriteRowsEventV1, UpdateRowsEventV1, DeleteRowsEventV1:
		if len(body) >= 8 {
			s := fmt.Sprintf("table_id: %d", readTableID(body))
			if body[6]&stmtEndFlag != 0 {
				s += " flags: STMT_END_F"
			}
			return s
		}
	}
	return ""
}

// DescribeEvents lists a file's events from position from, skipping
// offset events and returning at most limit (<0: all). A file in use (the
// log's current file) ends where the events written so far end: an event
// being appended is not listed.
func DescribeEvents(path, name string, from uint64, offset, limit int) ([]EventDesc, error) {
	inUse := false
	if h, err := ReadFileHeader(path); err == nil {
		inUse = h.InUse
	}
	r, err := OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if from > 4 {
		if err := r.Seek(from); err != nil {
			return nil, err
		}
	}
	var out []EventDesc
	for limit < 0 || len(out) < limit {
		ev, at, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				if inUse {
					break
				}
				return out, fmt.Errorf("%w: %s at offset %d: truncated event", ErrCorrupt, name, at)
			}
			return out, err
		}
		if offset > 0 {
			offset--
			continue
		}
		h, _ := ParseHeader(ev)
		end := at + uint64(len(ev))
		out = append(out, EventDesc{Pos: at, Type: TypeName(ev[4]), ServerID: h.ServerID, EndPos: end, Info: Info(ev)})
		if ev[4] == TransactionPayloadEvent {
			// As MySQL: the events it holds follow, at its position.
			inner, err := ExpandPayload(ev)
			if err != nil {
				return out, fmt.Errorf("%s at offset %d: %w", name, at, err)
			}
			for _, ie := range inner {
				ih, _ := ParseHeader(ie)
				out = append(out, EventDesc{Pos: at, Type: TypeName(ie[4]), ServerID: ih.ServerID, EndPos: end, Info: Info(ie)})
			}
		}
	}
	return out, nil
}

// OnRotate registers fn to run after rotations, on the log's own worker
// (never under the log's lock; one run may follow several rotations).
func (l *Log) OnRotate(fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onRotate = append(l.onRotate, fn)
	if !l.rotateStarted {
		l.rotateStarted = true
		go l.runOnRotate()
	}
}

// PurgeTo deletes the files before name (PURGE BINARY LOGS TO).
func (l *Log) PurgeTo(name string) error {
	if err := l.storageFlushed(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	idx := -1
	for i, f := range l.files {
		if f == name {
			idx = i
		}
	}
	if idx < 0 {
		return fmt.Errorf("Target log not found in binlog index")
	}
	return l.purgeLocked(idx)
}

// PurgeBefore deletes files last modified before t, never the current one.
func (l *Log) PurgeBefore(t time.Time) error {
	if l.expiredBefore(t) == 0 {
		return nil // the common case (expiry after each rotation): no flush
	}
	if err := l.storageFlushed(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.purgeLocked(l.expiredBeforeLocked(t))
}

// expiredBefore counts the leading files last modified before t, never
// the current one.
func (l *Log) expiredBefore(t time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.expiredBeforeLocked(t)
}

func (l *Log) expiredBeforeLocked(t time.Time) int {
	idx := 0
	for i, f := range l.files[:l.fileIdx] {
		st, err := os.Stat(l.path(f))
		if err != nil || !st.ModTime().Before(t) {
			break
		}
		idx = i + 1
	}
	return idx
}

// storageFlushed makes storage hold durably every transaction logged so
// far, so no file it may still need for recovery is purged (when this log
// is storage's only WAL).
func (l *Log) storageFlushed() error {
	if l.opts.Store == nil {
		return nil
	}
	return l.opts.Store.FlushApplied()
}

// purgeLocked removes files [0, idx). Caller holds mu.
func (l *Log) purgeLocked(idx int) error {
	if idx <= 0 {
		return nil
	}
	if idx > l.fileIdx {
		idx = l.fileIdx
	}
	if l.readers != nil {
		if name := l.readers(); name != "" {
			for i, f := range l.files[:idx] {
				if f == name {
					idx = i
					break
				}
			}
		}
	}
	removed := l.files[:idx]
	l.files = append([]string(nil), l.files[idx:]...)
	l.fileIdx -= idx
	if err := l.writeIndex(); err != nil {
		return err
	}
	l.syncMu.Lock()
	l.written.file -= idx
	l.synced.file -= idx
	l.localEnd.file -= idx
	l.relaySent.file -= idx
	l.syncMu.Unlock()
	for _, f := range removed {
		if err := os.Remove(l.path(f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	h, err := ReadFileHeader(l.path(l.files[0]))
	if err != nil {
		return err
	}
	l.purged = h.PreviousGTIDs
	l.opts.Logger.Info("binlog: purged files", "count", len(removed), "first_kept", l.files[0])
	return nil
}

// Reset deletes every file and GTID history and starts binlog.000001
// (RESET MASTER). The caller pauses commits.
func (l *Log) Reset() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.f.Sync(); err != nil {
		return err
	}
	l.f.Close()
	for _, f := range l.files {
		if err := os.Remove(l.path(f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	l.files = nil
	l.maxNum = 0 // numbering starts again at 1
	// binlog.000001 starts again: no record of the old one may be
	// replayed into the new one.
	if err := l.tail.newEpoch(); err != nil {
		return err
	}
	l.f = nil
	l.executed = base.NewGTIDSet()
	l.resetVisible()
	l.purged = base.NewGTIDSet()
	l.nextGNO = 1
	if err := l.openNewFile(); err != nil {
		return err
	}
	l.wake()
	return nil
}

// WaitExecuted waits until gtid_executed contains want; timeout <= 0
// waits until ctx ends. It reports whether the set was reached.
func (l *Log) WaitExecuted(ctx context.Context, want *base.GTIDSet, timeout time.Duration) bool {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	for {
		ch := l.Changed()
		l.visMu.Lock()
		ok := l.visible.ContainsSet(want)
		l.visMu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// SetReaderHorizon installs a function returning the oldest file name a
// reader (dump thread) still needs, or ""; purge never removes it. fn is
// called with the log's lock held: it must not call into the log.
func (l *Log) SetReaderHorizon(fn func() string) {
	l.mu.Lock()
	l.readers = fn
	l.mu.Unlock()
}
