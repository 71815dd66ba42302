package binlog

// The log as storage's commit sink (storage.CommitSink): Prepare encodes
// a transaction outside the ordering lock, Append places and writes it,
// Wait and AfterApply wait for its durability and acknowledgement.

import (
	"context"
	"encoding/binary"
	"fmt"

	"petrel/internal/base"
	"petrel/internal/failpoint"
	"petrel/storage"
)

// EncodeSinkPos is a position for storage to record without a
// transaction (RESET MASTER): recovery replays what follows it. Each
// applied transaction records more (encodeSinkRecord): its GTID and the
// highest GNO this server had issued, which Open checks the log's GTID
// history against.
func EncodeSinkPos(file string, end uint64, gno int64) []byte {
	b := binary.BigEndian.AppendUint64(nil, end)
	b = binary.BigEndian.AppendUint64(b, uint64(gno))
	return append(b, file...)
}

// DecodeSinkPos parses storage's record of the last applied transaction:
// its end in the log and its GNO.
func DecodeSinkPos(b []byte) (Position, int64, error) {
	r, err := decodeSinkRecord(b)
	return r.pos, r.gtid.GNO, err
}

// Prepare implements storage.Preparer: it encodes the transaction before
// its commit turn, so Append, under storage's ordering lock, only places
// and writes it.
func (l *Log) Prepare(rec *storage.CommitRecord) error {
	x, err := l.encode(rec, l.sidFor(rec))
	if err != nil {
		return err
	}
	x.by = l
	rec.Prepared = x
	return nil
}

// encode encodes rec's events and, unless dependency tracking is
// COMMIT_ORDER, extracts its write set.
func (l *Log) encode(rec *storage.CommitRecord, sid base.SID) (*encodedTxn, error) {
	level := rec.Compression
	if rec.Origin != nil {
		level = int(l.comp.replLevel.Load())
	}
	var xid uint64
	if level > 0 {
		xid = l.comp.xid.Add(1)
	}
	if c, ok := rec.Cache.(*txnCache); ok && c.l == l && len(rec.Queries) == 0 {
		x, err := encodeCached(l.opts, &l.cols, rec, c, sid, level, xid)
		if err != nil {
			return nil, err
		}
		x.ws = c.writeset(rec.Session)
		return x, nil
	}
	x, err := encodeCompressed(l.opts, &l.cols, rec, sid, level, xid)
	if err != nil {
		return nil, err
	}
	if l.trackWritesets.Load() {
		ws, err := extractWriteset(rec)
		if err != nil {
			return nil, err
		}
		x.ws = &ws
	}
	return x, nil
}

// SetDependencyTracking sets binlog_transaction_dependency_tracking
// (TrackCommitOrder, TrackWriteset, TrackWritesetSession); a change of
// mode forgets the write-set history, as MySQL does.
func (l *Log) SetDependencyTracking(mode string) error {
	mode, err := ParseTracking(mode)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deps.setMode(mode, l.deps.historySize)
	l.trackWritesets.Store(mode != TrackCommitOrder)
	return nil
}

// SetDependencyHistorySize sets binlog_transaction_dependency_history_size.
func (l *Log) SetDependencyHistorySize(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deps.setMode(l.deps.mode, n)
}

// sidFor is the source id of rec's GTID.
func (l *Log) sidFor(rec *storage.CommitRecord) base.SID {
	if rec.Origin != nil {
		return rec.Origin.GTID.SID
	}
	return l.opts.ServerUUID
}

// Append implements storage.CommitSink: it assigns the transaction its
// GTID and logical clock and writes its events (encoded by Prepare) to
// the current file, not yet synced. Called in commit order under
// storage's ordering lock.
func (l *Log) Append(rec *storage.CommitRecord) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errClosed
	}
	if err := l.failure(); err != nil {
		return err
	}
	if l.waiter != nil {
		if err := l.waiter.Admit(); err != nil {
			return base.Wrap(base.ClassReadOnly, err, "binlog")
		}
	}
	if l.pos >= uint64(l.opts.MaxSize) {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	gtid := base.GTID{SID: l.opts.ServerUUID, GNO: l.nextGNO}
	if rec.Origin != nil {
		gtid = rec.Origin.GTID
		if l.executed.Contains(gtid) {
			return base.Errorf(base.ClassDuplicate, "binlog: GTID %s is already in gtid_executed", gtid)
		}
	}
	x, _ := rec.Prepared.(*encodedTxn)
	if x == nil || x.by != l || x.sid != gtid.SID {
		var err error
		if x, err = l.encode(rec, gtid.SID); err != nil {
			return err
		}
	}
	l.seqNo++
	last := l.committedIn(l.fileIdx)
	if last >= l.seqNo {
		last = l.seqNo - 1
	}
	last = l.deps.lastCommitted(l.seqNo, last, x.ws)
	x.place(gtid.GNO, last, l.seqNo, l.pos)
	x.file, x.seq = l.fileIdx, l.seqNo
	buf := x.buf
	total, err := uint64(len(buf)), error(nil)
	var whole []byte // a spilled transaction's bytes, when writeSpilled kept them
	if x.spill != nil {
		total, whole, err = l.writeSpilled(x, gtid.GNO)
	} else {
		err = l.writeAt(buf)
	}
	p := l.pos + total
	rec0 := int64(-1)
	if err == nil {
		if x.spill != nil {
			rec0, err = l.logSpilled(total, whole)
		} else {
			rec0, err = l.logTail(buf)
		}
		if err != nil {
			// The record may be whole in the tail log, and a restart would
			// bring the transaction back: its outcome is unknown.
			if terr := l.f.Truncate(int64(l.pos)); terr == nil {
				err = base.Wrap(base.ClassOutcomeUnknown, err, "binlog")
			}
			l.broken = fmt.Errorf("binlog: the tail log failed; restart the server to recover: %w", err)
			l.seqNo--
			return err
		}
		err = failpoint.Inject("binlog.afterWrite")
	}
	if err != nil {
		// Leave no torn transaction behind for later appends; if that
		// fails too, the log stays broken until a restart (recovery then
		// truncates the torn tail).
		if terr := l.f.Truncate(int64(l.pos)); terr != nil {
			l.broken = fmt.Errorf("binlog: cannot remove a partly written transaction from %s: %w", l.files[l.fileIdx], terr)
		}
		if rec0 >= 0 {
			if terr := l.tail.invalidate(rec0); terr != nil {
				l.broken = fmt.Errorf("binlog: cannot withdraw a failed transaction from the tail log: %w", terr)
			}
		}
		l.seqNo--
		return fmt.Errorf("binlog: write %s at %d: %w", l.files[l.fileIdx], l.pos, err)
	}
	l.pos = p
	if gtid.SID == l.opts.ServerUUID && gtid.GNO >= l.nextGNO {
		l.nextGNO = gtid.GNO + 1
	}
	l.executed.Add(gtid)
	l.stats.Commits.Add(1)
	l.stats.BytesWritten.Add(total)
	if x.compressed {
		l.comp.note(x, gtid, l.opts.Clock.Now())
	}
	rec.SinkPos = encodeSinkRecord(l.files[l.fileIdx], p, gtid, l.nextGNO-1)
	rec.GTID = gtid
	relayDurable := rec.Origin != nil && rec.Origin.RelayDurable
	l.syncMu.Lock()
	l.written = logPos{file: l.fileIdx, pos: p}
	if !relayDurable {
		l.localEnd = l.written
	} else if !l.synced.less(l.localEnd) {
		l.relaySent = l.written
	}
	l.syncMu.Unlock()
	if l.syncBinlog.Load() != 1 || l.sendEarly() || relayDurable {
		l.wake()
	}
	return nil
}

// sendEarly reports whether dump threads may send what is written before
// it is fsynced: while semi-sync acknowledgements make commits durable
// (ON, AFTER_SYNC). A commit then waits for its local fsync and for the
// acknowledgement, and the two overlap instead of following each other.
// The price: after an operating-system crash of this server (not a
// process crash: the page cache keeps the tail), a replica may hold
// transactions whose clients never got OK and that this server lost; it
// is the server to fail over to, and it refuses to replicate from this
// one again (it has GTIDs the source lacks). Caller holds mu.
func (l *Log) sendEarly() bool {
	return l.waiter != nil && l.waiter.NetworkDurable()
}

// SendablePosition is how far dump threads may read the log: its durable
// end, or everything written while sendEarly holds. A replica's log
// also sends, before its fsync, the replicated transactions that follow
// its durable end (Origin.RelayDurable, which skip the fsync): they are
// durable in its relay log, and if an operating-system crash cuts them
// from this log the replica applies them again under the same GTIDs, so a
// downstream replica that already holds them holds the same transactions
// (a replica of this one by file and position could then see them at
// other offsets). Without it an intermediate replica would feed its own
// replicas only at its next fsync.
func (l *Log) SendablePosition() Position { return l.endPosition(true) }

// failure is why nothing more may be appended: a failed write that could
// not be undone, or a failed fsync. Caller holds mu (syncMu is taken
// after mu, never before).
func (l *Log) failure() error {
	if l.broken != nil {
		return l.broken
	}
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	return l.syncErr
}

// Healthy reports whether appends can resume (no failed write left a
// torn transaction in the current file).
func (l *Log) Healthy() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failure() == nil && !l.closed
}

// Durable implements storage.CommitSink: the log makes commits durable
// with sync_binlog=1, or, with semi-sync on (AFTER_SYNC), by a replica's
// acknowledgement (network durability: no local fsync needed at all).
func (l *Log) Durable() bool {
	if l.syncBinlog.Load() == 1 {
		return true
	}
	w := l.commitWaiter()
	return w != nil && w.NetworkDurable()
}

// SetSyncBinlog changes sync_binlog (SET GLOBAL): 0 never fsyncs, 1 every
// group, N every N groups.
func (l *Log) SetSyncBinlog(n int) {
	if n == 0 {
		n = -1
	}
	l.syncMu.Lock()
	l.groupsLeft = 0
	l.syncMu.Unlock()
	l.syncBinlog.Store(int64(n))
}

// CommitWaiter is semi-synchronous replication as the log sees it.
type CommitWaiter interface {
	// Admit may refuse a commit before anything is written.
	Admit() error
	// WaitAcked waits until replicas acknowledged the log up to pos (or
	// the source fell back to asynchronous).
	WaitAcked(ctx context.Context, pos Position) error
	// AfterSync: wait before storage applies (AFTER_SYNC), else after
	// (AFTER_COMMIT).
	AfterSync() bool
	// NetworkDurable: acknowledgements currently stand in for a local
	// fsync (semi-sync ON, AFTER_SYNC).
	NetworkDurable() bool
}

// SetCommitWaiter installs semi-sync (nil removes it).
func (l *Log) SetCommitWaiter(w CommitWaiter) {
	l.mu.Lock()
	l.waiter = w
	l.mu.Unlock()
}

func (l *Log) commitWaiter() CommitWaiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiter
}

// Wait implements storage.CommitSink: it returns once rec's events are
// durable under sync_binlog and, with semi-sync AFTER_SYNC, acknowledged.
// One committer (the leader) fsyncs for all transactions written so far;
// the others wait on that fsync; one acknowledgement releases them all.
func (l *Log) Wait(ctx context.Context, rec *storage.CommitRecord) error {
	pos, _, err := DecodeSinkPos(rec.SinkPos)
	if err != nil {
		return err
	}
	// A replicated transaction durable in the relay log needs no fsync:
	// after a crash the replica re-applies what this log lost.
	if rec.Origin == nil || !rec.Origin.RelayDurable {
		if err := l.waitSync(ctx, pos); err != nil {
			return err
		}
	}
	// Replicated transactions (the applier's) do not wait: they were
	// acknowledged where they were first committed.
	if w := l.commitWaiter(); w != nil && w.AfterSync() && rec.Origin == nil {
		if err := waitAcked(ctx, w, pos); err != nil {
			return err
		}
	}
	if x, ok := rec.Prepared.(*encodedTxn); ok && x.by == l {
		l.noteCommitted(x.file, x.seq)
	}
	return nil
}

// packCommitted orders (file, sequence number) pairs in one int64.
func packCommitted(file int, seq int64) int64 { return int64(file)<<40 | seq&(1<<40-1) }

// noteCommitted records that the transaction numbered seq in file
// committed.
func (l *Log) noteCommitted(file int, seq int64) {
	v := packCommitted(file, seq)
	for {
		cur := l.committed.Load()
		if cur >= v || l.committed.CompareAndSwap(cur, v) {
			return
		}
	}
}

// committedIn is the newest committed transaction's number in file (0:
// none yet).
func (l *Log) committedIn(file int) int64 {
	v := l.committed.Load()
	if int(v>>40) != file {
		return 0
	}
	return v & (1<<40 - 1)
}

// AfterApply implements storage.AfterApplyWaiter (semi-sync AFTER_COMMIT).
func (l *Log) AfterApply(ctx context.Context, rec *storage.CommitRecord) error {
	w := l.commitWaiter()
	if w == nil || w.AfterSync() || rec.SinkPos == nil || rec.Origin != nil {
		return nil
	}
	pos, _, err := DecodeSinkPos(rec.SinkPos)
	if err != nil {
		return err
	}
	return waitAcked(ctx, w, pos)
}

func waitAcked(ctx context.Context, w CommitWaiter, pos Position) error {
	if err := w.WaitAcked(ctx, pos); err != nil {
		return fmt.Errorf("%w: %v", storage.ErrNotAcknowledged, err)
	}
	return nil
}
