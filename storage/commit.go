package storage

import (
	"context"
	"errors"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"petrel/internal/base"
	"petrel/internal/failpoint"
)

// CommitRecord is what a committing transaction hands to the sink.
type CommitRecord struct {
	// Seq is the commit sequence number: dense, starting at 1, in commit order.
	Seq uint64
	// Changes are the row changes in statement order, unless Cache
	// holds them (changecache.go).
	Changes []RowChange
	// Cache is the sink's own cache of the changes (nil: none); it is
	// the sink's to read until the transaction finishes, which closes it.
	Cache ChangeCache
	// Queries are statements logged as such (DDL), before the row changes.
	Queries []Query
	// Time is the commit timestamp.
	Time time.Time
	// SinkPos is set by the sink in Append: an opaque position (for the
	// binlog, the GTID state) stored in the same storage batch as the rows,
	// so recovery knows exactly which sink records storage holds.
	SinkPos []byte
	// GTID is set by the sink in Append.
	GTID base.GTID
	// Origin is set for a replicated transaction: the sink keeps its GTID.
	Origin *Origin
	// Session is the client session that committed (its connection id),
	// 0 for replicated and internal transactions: the binlog's
	// WRITESET_SESSION dependency tracking orders a session's transactions.
	Session uint32
	// Compression is the committing session's binlog transaction
	// compression: the zstd level of its TRANSACTION_PAYLOAD, 0 for none
	// (binlog_transaction_compression OFF). Replicated transactions take
	// the sink's global setting instead.
	Compression int
	// Prepared is the sink's own work done by its Prepare, before the
	// commit turn (the binlog: the encoded events); Append uses it.
	Prepared any
}

// CommitSink receives every committing transaction. The binary log is the
// production sink; it makes itself the commit point.
type CommitSink interface {
	// Append is called in commit order, under the engine's ordering lock:
	// it must be quick (buffer the record, assign positions), never wait on
	// I/O completion or the network.
	Append(rec *CommitRecord) error
	// Wait returns once rec is durable (and, with semi-sync, acknowledged).
	// It is called concurrently by many committers, outside any global
	// lock, so one fsync or one ack can release a whole group.
	Wait(ctx context.Context, rec *CommitRecord) error
	// Durable reports whether the sink's Wait makes records durable, so
	// storage may apply its batch without its own fsync.
	Durable() bool
}

// Preparer is implemented by sinks that do the costly, order-independent
// part of Append (encoding the record) in Prepare, which runs before the
// commit turn and outside the ordering lock, so that committers encode
// in parallel and the lock is held only to place and write the record.
// A Prepare error fails only its transaction: nothing was written.
type Preparer interface {
	Prepare(rec *CommitRecord) error
}

// ErrNotAcknowledged is returned (wrapped) by a sink's Wait when the
// record is durable in the sink but the wait for replicas was interrupted
// (the session was killed): storage still applies the transaction, which
// is committed, and the client gets an error instead of OK.
var ErrNotAcknowledged = errors.New("the transaction is committed locally, but the wait for its acknowledgement by replicas was interrupted")

// AfterApplyWaiter is implemented by sinks that wait after the rows are
// visible and the locks released (semi-sync AFTER_COMMIT).
type AfterApplyWaiter interface {
	AfterApply(ctx context.Context, rec *CommitRecord) error
}

// AppliedNotifier is implemented by sinks that want to know when a
// record's rows became visible in storage (called in commit order): the
// binlog publishes gtid_executed then, so a reader who sees a GTID there
// also sees its rows.
type AppliedNotifier interface {
	Applied(rec *CommitRecord)
}

// Commit commits the transaction: sink append (ordered), sink wait
// (grouped), storage apply (ordered), lock release. The transaction is
// finished whatever the outcome; on error nothing of it is visible.
func (t *Txn) Commit(ctx context.Context) error {
	finish, err := t.CommitStart(ctx)
	if err != nil || finish == nil {
		return err
	}
	return finish(ctx)
}

// CommitStart does the ordered part of a commit: the sink append, which
// fixes the transaction's place in commit order. The returned finish
// completes it (durability wait, storage apply in order, lock release)
// and must be called exactly once; nil when there was nothing to commit.
// A caller may start the next transaction's commit before finishing this
// one (the replication applier pipelines its commits so that they share
// fsyncs); row locks keep dependent transactions in order.
func (t *Txn) CommitStart(ctx context.Context) (func(context.Context) error, error) {
	if t.done {
		return nil, base.Errorf(base.ClassInternal, "storage: transaction already finished")
	}
	if !t.HasWrites() && len(t.queries) == 0 {
		t.release()
		return nil, nil
	}
	e := t.e
	if err := e.WriteError(); err != nil {
		t.finish()
		return nil, err
	}
	// Index builds' table files are written before the commit takes its
	// place: a failure fails this transaction alone (bulkindex.go).
	if err := t.writeBulk(); err != nil {
		t.finish()
		return nil, err
	}
	rec := &CommitRecord{Changes: t.changes, Cache: t.cache, Queries: t.queries, Time: e.opts.Clock.Now(), Origin: t.origin, Session: t.session, Compression: t.compression}
	// A transaction that wrote temporary tables' rows only has nothing to
	// log: the sink never sees it (MySQL's binlog has no event for it
	// under ROW format) and storage applies it without syncing (the rows
	// do not outlive the server).
	t.unlogged = t.tempWrites && t.nChanges == 0 && len(t.queries) == 0 && !t.catalogDirty && t.origin == nil
	if p := e.preparer.Load(); p != nil && !t.unlogged {
		if err := (*p).Prepare(rec); err != nil {
			t.finish()
			return nil, base.Wrap(base.ClassInternal, err, "storage: commit")
		}
	}

	e.commitMu.Lock()
	rec.Seq = e.nextSeq
	sink := e.sink
	if t.unlogged {
		sink = nil
	}
	var err error
	if sink != nil {
		err = sink.Append(rec)
	}
	if err == nil {
		e.nextSeq++
	}
	e.commitMu.Unlock()
	if err != nil {
		t.finish()
		if c := base.ClassOf(err); c == base.ClassDuplicate || c == base.ClassBadInput || c == base.ClassReadOnly || c == base.ClassShutdown {
			// The sink refused this record (a GTID it already has, or the
			// engine is closing) without writing anything: only this
			// transaction fails.
			return nil, err
		}
		e.refuseWrites(err)
		if c := base.ClassOf(err); c == base.ClassWritesRefused || c == base.ClassDiskFull {
			return nil, err // the refusal at the gate: it says what and why
		}
		return nil, base.Wrap(classifyWriteErr(err), err, "storage: commit")
	}
	return func(ctx context.Context) error {
		defer t.finish()
		return t.commitFinish(ctx, sink, rec)
	}, nil
}

// dropBatch lets the transaction's batch go once a sorted copy of it is
// to be applied (sortedcommit.go): nothing reads it again, and the
// collector may take it (as large as the copy) while the copy is applied
// and flushed. Its row iterators and read view, which may read it, end
// first, as at the transaction's end.
func (t *Txn) dropBatch() {
	t.closeRows()
	t.dropView()
	t.batch.Close()
	t.batch = nil
}

// finish ends the transaction: its batch is dropped and its locks released.
func (t *Txn) finish() {
	t.done = true
	t.closeRows()
	t.dropView()
	if t.batch != nil {
		t.batch.Close()
		t.batch = nil
	}
	t.dropChanges()
	t.e.locks.ReleaseAll(t.id)
}

// commitFinish is the grouped and ordered rest of a commit.
func (t *Txn) commitFinish(ctx context.Context, sink CommitSink, rec *CommitRecord) error {
	e := t.e
	var err error
	var notAcked error
	if sink != nil {
		if err := sink.Wait(ctx, rec); errors.Is(err, ErrNotAcknowledged) {
			notAcked = err
		} else if err != nil {
			// The record may be in the sink: storage must still take its
			// place in the sequence (or recovery would see a gap), and the
			// client must not hear of a definite failure: the record may
			// be durable, and recovery replays it. Further writes are
			// refused until the sink recovers.
			e.turn.do(rec.Seq, nil)
			e.refuseWrites(err)
			return base.Wrap(base.ClassOutcomeUnknown, err, "storage: commit outcome unknown")
		}
	}

	if err := t.ready(); err != nil {
		return err
	}
	if err := t.batch.Set(metaKey(metaLastSeq), u64(rec.Seq), nil); err != nil {
		return err
	}
	if rec.SinkPos != nil {
		if err := t.batch.Set(metaKey(metaSinkPos), rec.SinkPos, nil); err != nil {
			return err
		}
	}
	// Storage fsyncs its own WAL unless a durable sink can replay the
	// transaction after a crash. Catalog changes are always synced: recovery
	// replays rows, not DDL. When the sink's log is storage's WAL, only
	// catalog changes (and commits with no log attached) make storage
	// durable, by a flush inside their turn.
	syncStorage := sink == nil || !sink.Durable() || t.catalogDirty
	if e.opts.LogIsWAL && !t.unlogged {
		syncStorage = t.catalogDirty || !hasLog(sink)
		if !syncStorage && !sink.Durable() && (rec.Origin == nil || !rec.Origin.RelayDurable) {
			// sync_binlog 0 or N: the log is not synced for its own sake,
			// but it is storage's WAL, and storage is durable per commit.
			if err := e.syncLog(); err != nil {
				e.turn.do(rec.Seq, nil)
				e.refuseWrites(err)
				return base.Wrap(base.ClassOutcomeUnknown, err, "storage: commit outcome unknown")
			}
			e.stats.StorageSyncs.Add(1)
		}
	}

	if t.unlogged {
		syncStorage = false
	}

	// A large batch is applied as a sorted copy (sortedcommit.go), made
	// before the turn so that committers sort in parallel; the batch
	// applied is the one waited for.
	// A very large one is written to a table file and ingested
	// (ingestcommit.go).
	file, ferr := t.largeCommitFile()
	if ferr != nil {
		// In the sink, not in storage: as a failed apply.
		e.turn.do(rec.Seq, nil)
		e.refuseWrites(ferr)
		return base.Wrap(base.ClassOutcomeUnknown, ferr, "storage: commit outcome unknown")
	}
	apply := t.batch // with its spilled writes loaded back, if not ingested
	if file != "" {
		apply = nil
		t.dropBatch()
		defer func() { _ = e.opts.FS.Remove(file) }() // Pebble's after an ingestion
	} else if sb := e.sortedBatch(t.batch); sb != nil {
		apply = sb
		defer sb.Close()
		t.dropBatch()
	}
	if err := failpoint.Inject("storage.beforeApply"); err != nil {
		e.turn.do(rec.Seq, nil)
		return err
	}
	waitSync := false
	var flushErr error
	e.turn.do(rec.Seq, func() {
		e.appliesBegun.Add(1)
		defer e.appliesEnded.Add(1)
		if err = t.ingestBulk(); err != nil {
			return
		}
		if file != "" {
			// Durable when it returns, but for a file stacked on the
			// memtables without Pebble's WAL: flushed as applyDurable's.
			if err = e.ingestCommit(file); err == nil && syncStorage && e.opts.LogIsWAL {
				flushErr = e.flushWait()
			}
		} else if syncStorage {
			waitSync, flushErr, err = e.applyDurable(apply)
		} else {
			err = e.db.Apply(apply, pebble.NoSync)
		}
		if n, ok := sink.(AppliedNotifier); ok && err == nil {
			n.Applied(rec)
		}
	})
	if err == nil && flushErr != nil {
		// Applied and logged, but not durable in storage, and the log
		// cannot complete it (a catalog change): it survives if a later
		// flush succeeds (Pebble retries), not if the server stops first.
		e.refuseWrites(flushErr)
		return base.Wrap(base.ClassOutcomeUnknown, flushErr, "storage: commit outcome unknown")
	}
	if err == nil && waitSync {
		if err = apply.SyncWait(); err != nil {
			// The batch is applied and in Pebble's WAL, which failed to
			// sync: the commit may survive a restart or not.
			e.refuseWrites(err)
			return base.Wrap(base.ClassOutcomeUnknown, err, "storage: commit outcome unknown")
		}
	}
	if err == nil && syncStorage {
		e.stats.StorageSyncs.Add(1)
	}
	if err != nil {
		e.refuseWrites(err)
		return base.Wrap(classifyWriteErr(err), err, "storage: commit")
	}
	if t.catalogDirty {
		e.cat.gen.Add(1)
	}
	countRuns(t.runs)
	if err := failpoint.Inject("storage.afterApply"); err != nil {
		return err
	}
	e.stats.Commits.Add(1)
	if notAcked != nil {
		return base.Wrap(base.ClassInterrupted, notAcked, "Query execution was interrupted")
	}
	if w, ok := sink.(AfterApplyWaiter); ok {
		// The rows are visible: release the locks before waiting.
		e.locks.ReleaseAll(t.id)
		if err := w.AfterApply(ctx, rec); err != nil {
			return base.Wrap(base.ClassInterrupted, err, "Query execution was interrupted")
		}
	}
	return nil
}

// AfterApply forwards to the wrapped sink.
func (g gatedSink) AfterApply(ctx context.Context, rec *CommitRecord) error {
	if w, ok := g.inner.(AfterApplyWaiter); ok {
		return w.AfterApply(ctx, rec)
	}
	return nil
}

// CommitReplayed commits a transaction replayed from the sink's own log
// (crash recovery, replication apply of an already-logged transaction): it
// bypasses the sink, records sinkPos with the rows, and syncs.
func (t *Txn) CommitReplayed(ctx context.Context, sinkPos []byte) error {
	if t.done {
		return base.Errorf(base.ClassInternal, "storage: transaction already finished")
	}
	e := t.e
	defer t.release()
	if err := t.ready(); err != nil {
		return err
	}
	e.commitMu.Lock()
	seq := e.nextSeq
	e.nextSeq++
	e.commitMu.Unlock()
	if err := t.batch.Set(metaKey(metaLastSeq), u64(seq), nil); err != nil {
		return err
	}
	if err := t.batch.Set(metaKey(metaSinkPos), sinkPos, nil); err != nil {
		return err
	}
	var err error
	// Without Pebble's WAL the replayed rows stay in the memtable: a crash
	// now replays them again from the same log.
	opts := pebble.Sync
	if e.opts.LogIsWAL {
		opts = pebble.NoSync
	}
	file, err := t.largeCommitFile()
	if err != nil {
		e.turn.do(seq, nil)
		e.refuseWrites(err)
		return base.Wrap(base.ClassStorageIO, err, "storage: commit")
	}
	apply := t.batch
	if file != "" {
		t.dropBatch()
		defer func() { _ = e.opts.FS.Remove(file) }()
	} else if sb := e.sortedBatch(t.batch); sb != nil {
		apply = sb
		defer sb.Close()
		t.dropBatch()
	}
	e.turn.do(seq, func() {
		e.appliesBegun.Add(1)
		defer e.appliesEnded.Add(1)
		if file != "" {
			err = e.ingestCommit(file)
			return
		}
		err = e.db.Apply(apply, opts)
	})
	if err != nil {
		e.refuseWrites(err)
		return base.Wrap(classifyWriteErr(err), err, "storage: commit")
	}
	e.stats.Commits.Add(1)
	return nil
}

// SinkPos returns the sink position stored with the last applied commit.
func (e *Engine) SinkPos() ([]byte, error) {
	v, closer, err := e.db.Get(metaKey(metaSinkPos))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, base.Wrap(base.ClassCorrupt, err, "storage: read sink position")
	}
	defer closer.Close()
	return append([]byte(nil), v...), nil
}

// WithCommitsPaused runs fn with no commit in flight and none starting
// (RESET MASTER, consistent snapshots of the sink).
func (e *Engine) WithCommitsPaused(fn func() error) error {
	e.commitMu.Lock()
	defer e.commitMu.Unlock()
	e.turn.waitPassed(e.nextSeq - 1)
	return fn()
}

// SetSinkPos durably records a new sink position (after the sink was
// reset, so recovery does not look for files that no longer exist).
func (e *Engine) SetSinkPos(pos []byte) error {
	return e.durableSet(metaKey(metaSinkPos), pos)
}

// Applied forwards to the wrapped sink.
func (g gatedSink) Applied(rec *CommitRecord) {
	if n, ok := g.inner.(AppliedNotifier); ok {
		n.Applied(rec)
	}
}

// hasLog reports whether a real sink sits behind the engine's gate.
func hasLog(s CommitSink) bool {
	g, ok := s.(gatedSink)
	return !ok || g.inner != nil
}
