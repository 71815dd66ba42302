package storage

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
	"petrel/storage/lock"
)

// RowChange is one row event of a transaction, in statement order.
// Before is nil for an insert, After is nil for a delete.
type RowChange struct {
	Table  *Table
	Before sql.Row
	After  sql.Row
}

// undoRec restores one key to its state before a statement wrote it.
type undoRec struct {
	key     []byte
	prev    []byte
	existed bool
}

// Txn is a transaction. Not safe for concurrent use: one session drives it.
type Txn struct {
	e  *Engine
	id uint64

	batch *pebble.Batch // created on the first write
	// lazy: batch is not indexed yet; spaces are the tables it holds
	// writes of (lazybatch.go).
	lazy   bool
	spaces []lazySpace
	// spill are the lazy batch's writes written to files, oldest first,
	// and spillBytes their batches' sizes (batchspill.go).
	spill      []spillFile
	spillBytes int
	undo       undoLog
	// changes are the row changes, unless the sink caches them
	// (changecache.go): then cache has them, and changes is empty.
	changes []RowChange
	cache   ChangeCache
	// nChanges counts the changes (in changes or cache); runs counts
	// them per table for the commit's statistics.
	nChanges int
	runs     []changeRun
	// queries are statements logged as such (DDL), in order.
	queries []Query
	// bulk are index builds to ingest at commit (bulkindex.go);
	// rangeDeleted says the batch holds a range deletion, which an
	// ingested build would come before.
	bulk         []*bulkIndex
	rangeDeleted bool

	// stmtMark is the state at the current statement's start.
	stmtMark Mark
	// stmtDepth counts nested StatementBegin calls (a trigger's editor
	// begins inside its statement); only the outermost sets the mark.
	stmtDepth int
	// stmtKeys holds the index and primary keys the current statement's
	// UPDATEs moved rows to: its scans skip them, so an UPDATE never meets
	// a row again at the new place it just moved it to (Halloween problem).
	// One set per index (movedSet), most statements having one or two.
	stmtKeys []movedSet
	// deleted holds keys whose last write in the batch is a deletion (at
	// most maxDeletedKeys of them): get answers "none" for them without
	// asking Pebble, whose Get of a key deleted in the batch reads every
	// memtable and level below it for older versions to skip. A key not
	// in it is read as before. The replication applier's UPDATE that
	// moves a row, or DELETE then INSERT of one key, meets this.
	deleted      map[string]struct{}
	catalogDirty bool
	// tempWrites: the transaction wrote rows of a temporary table, which
	// are never recorded as changes (temptables.go); unlogged: its commit
	// has nothing else, so it bypasses the sink.
	tempWrites, unlogged bool
	// lockingReads makes scans lock each row and read its latest version
	// (InnoDB's current read), set for the reads of UPDATE and DELETE.
	lockingReads bool
	// lockWait: what a locking read does at a row another transaction
	// holds (lockwait.go).
	lockWait LockWait
	// currentReads makes non-locking reads read the latest version
	// instead of the read view (snapshot.go).
	currentReads bool
	// strictRows: a missing row's Update or Delete, and an existing
	// key's Upsert, are errors (SetStrictRows).
	strictRows bool
	// locked: the transaction has taken a row lock (HoldsLocks).
	locked bool
	// large: counted in largeTxns (txnsize.go).
	large bool

	// The read view (snapshot.go): iso decides its lifetime; snap is the
	// Pebble snapshot (nil until the first consistent read), snapGen the
	// catalog generation when it was taken, viewTaken fixes iso, oneRead
	// says no view is needed, defOK caches checkTable's answers. ws maps
	// the keys of undo[:wsN] to their number of undo entries.
	iso         Isolation
	snap        *pebble.Snapshot
	pointIt     *pebble.Iterator   // readGet's, on snap
	pointGot    bool               // readGet read once by Get this statement
	scanIts     []*pebble.Iterator // idle scan iterators on snap (keptIter)
	snapGen     uint64
	viewTaken   bool
	oneRead     bool
	defOK       map[uint32]struct{}
	ws          map[string]int
	wsN         int
	lockTimeout time.Duration
	done        bool
	// origin is set when the transaction replays another server's
	// transaction (the replication applier): the sink logs it under the
	// origin's GTID instead of assigning a new one.
	origin  *Origin
	session uint32 // the committing client session, for the binlog
	// compression is the session's binlog transaction compression level
	// (0: off), for the binlog.
	compression int
	// rows are the row iterators handed out and not yet closed; the
	// transaction's end closes them (a failed statement may abandon one,
	// and an iterator left open keeps Pebble from closing).
	rows []*RowIter
	// lockedReads are the values of rows read under their lock
	// (lockedread.go).
	lockedReads lockedReads
	// tail is the largest primary key of the table the transaction
	// inserts into (inserttail.go).
	tail insertTail
	// rowBuf is encodeRow's scratch buffer (rows.go).
	rowBuf []byte
}

// Origin identifies a transaction that first committed on another server.
type Origin struct {
	GTID     base.GTID
	ServerID uint32
	// CommitTime is the original commit time on the first server.
	CommitTime time.Time
	// RelayDurable says the transaction is already durable where it came
	// from (the replica's relay log, fsynced on receipt, from which a
	// restarted replica re-applies whatever its binlog lost): its commit
	// needs no fsync of its own. The sink's log is still fsynced before
	// storage flushes it (LogIsWAL), so storage never gets ahead of it.
	RelayDurable bool
}

// SetOrigin marks the transaction as a replicated one.
func (t *Txn) SetOrigin(o Origin) { t.origin = &o }

// SetSession records the committing client session (its connection id).
func (t *Txn) SetSession(id uint32) { t.session = id }

// SetCompression records the session's binlog transaction compression
// (a zstd level; 0: off).
func (t *Txn) SetCompression(level int) { t.compression = level }

// Query is a statement recorded in the transaction's change stream (DDL).
type Query struct {
	Database string
	SQL      string
	// NoForeignKeyChecks: the statement ran with foreign_key_checks=0
	// (the binlog's OPTION_NO_FOREIGN_KEY_CHECKS, which a replica applies
	// it with).
	NoForeignKeyChecks bool
}

// Begin starts a transaction.
func (e *Engine) Begin() *Txn {
	return &Txn{e: e, id: e.nextTxnID.Add(1)}
}

// ID is the transaction's id (its lock owner).
func (t *Txn) ID() uint64 { return t.id }

// SetLockTimeout sets this transaction's lock wait timeout
// (session innodb_lock_wait_timeout); <= 0 uses the engine default.
func (t *Txn) SetLockTimeout(d time.Duration) { t.lockTimeout = d }

// SetLockingReads switches InnoDB-style locking reads on or off; off
// also ends current reads (SetCurrentReads): the next statement reads
// through the read view again.
func (t *Txn) SetLockingReads(on bool) {
	t.lockingReads = on
	if !on {
		t.currentReads = false
		t.lockWait = LockWaitBlock
	}
}

// LockingReads reports whether scans lock rows.
func (t *Txn) LockingReads() bool { return t.lockingReads }

// Changes returns the row changes so far, when the sink does not cache
// them (changecache.go).
func (t *Txn) Changes() []RowChange { return t.changes }

// HoldsLocks reports whether the transaction holds row locks (it took
// one, or wrote); until it ends, other transactions may be waiting for it.
func (t *Txn) HoldsLocks() bool { return t.locked || t.HasWrites() }

// HasWrites reports whether the transaction wrote anything.
func (t *Txn) HasWrites() bool { return len(t.spill) > 0 || t.batch != nil && !t.batch.Empty() }

// ChangesRows reports whether the transaction changed a row of a table
// that is not temporary (a change the binlog logs): what read_only
// refuses at COMMIT.
func (t *Txn) ChangesRows() bool { return t.nChanges > 0 }

// LogQuery records a statement (DDL) in the change stream.
func (t *Txn) LogQuery(db, q string) { t.queries = append(t.queries, Query{Database: db, SQL: q}) }

// LogQueryOf records statement q (DDL) with its flags.
func (t *Txn) LogQueryOf(q Query) { t.queries = append(t.queries, q) }

// PutMeta writes a metadata blob (as SetMetaSync does) inside the
// transaction, so that the blob and the statement the transaction logs
// commit together (accounts: the users blob and its CREATE USER). Like a
// catalog change, the commit makes storage durable in its turn: recovery
// replays rows, not statements.
func (t *Txn) PutMeta(name string, value []byte) error {
	return t.put(metaKey(metaBlob, name), value)
}

// writable readies the transaction for a write: it must be open, storage
// must take writes, and its pending writes must be within the size limit
// (txnsize.go).
func (t *Txn) writable() error {
	if err := t.ready(); err != nil {
		return err
	}
	if err := t.checkSize(); err != nil {
		return err
	}
	return t.maybeSpill()
}

// ready is writable without the size limit: the commit's own bookkeeping
// writes, after the transaction is already in the binlog.
func (t *Txn) ready() error {
	if t.done {
		return base.Errorf(base.ClassInternal, "storage: transaction already finished")
	}
	if err := t.e.WriteError(); err != nil {
		return err
	}
	if t.batch == nil {
		if lazyBatches {
			t.batch, t.lazy = t.e.db.NewBatch(), true
		} else {
			t.batch = t.e.db.NewIndexedBatch()
		}
		t.undo.files = t.e.undoFiles
	}
	return nil
}

// StatementBegin marks the start of a statement for statement rollback.
// Nested calls (triggers) join the outer statement.
func (t *Txn) StatementBegin() {
	if t.stmtDepth == 0 {
		t.stmtMark = t.Savepoint()
		t.clearMoved()
	}
	t.stmtDepth++
}

// Mark is a savepoint: the transaction's state at one moment.
type Mark struct {
	undo, changes, queries int
	// bulk is the number of index builds to ingest.
	bulk int
	// cache is the change cache's mark (zero without a cache); runs
	// and runN the length of Txn.runs and its last run's count.
	cache CacheMark
	runs  int
	runN  int64
}

// After reports whether m was taken after o.
func (m Mark) After(o Mark) bool { return m.undo > o.undo || m.changes > o.changes }

// Savepoint returns the current state, for RollbackTo.
func (t *Txn) Savepoint() Mark {
	m := Mark{undo: t.undo.len(), changes: t.nChanges, queries: len(t.queries), runs: len(t.runs), bulk: len(t.bulk)}
	if m.runs > 0 {
		m.runN = t.runs[m.runs-1].n
	}
	if t.cache != nil {
		m.cache = t.cache.Mark()
	}
	return m
}

// RollbackTo undoes every write after m (SAVEPOINT / trigger rollback).
// Locks taken since stay held, as in InnoDB.
func (t *Txn) RollbackTo(m Mark) error {
	if err := t.forgetWrites(m.undo); err != nil {
		return err
	}
	clear(t.deleted) // restored keys are no longer deleted
	if t.batch != nil {
		for i := t.undo.len() - 1; i >= m.undo && i < t.undo.len(); i-- {
			u, err := t.undo.at(i)
			if err != nil {
				return err
			}
			if u.existed {
				err = t.batch.Set(u.key, u.prev, nil)
			} else {
				err = t.batch.Delete(u.key, nil)
			}
			if err != nil {
				return err
			}
		}
	}
	if err := t.undo.truncate(m.undo); err != nil {
		return err
	}
	if err := t.truncateChanges(m); err != nil {
		return err
	}
	if m.queries < len(t.queries) {
		t.queries = t.queries[:m.queries]
	}
	if m.bulk < len(t.bulk) {
		later := t.bulk[m.bulk:]
		t.bulk = t.bulk[:m.bulk]
		for _, b := range later {
			b.remove(t.e.opts.FS)
		}
	}
	return nil
}

// StatementComplete ends a statement (or a nested part of one).
func (t *Txn) StatementComplete() {
	if len(t.stmtKeys) > 0 {
		t.forgetMoved(t.stmtDepth)
	}
	if t.stmtDepth > 0 {
		t.stmtDepth--
	}
}

// ResetStatement forgets any statement left open (a new client command
// starts).
func (t *Txn) ResetStatement() {
	t.stmtDepth = 0
	t.clearMoved()
}

// Done reports whether the transaction committed or rolled back.
func (t *Txn) Done() bool { return t.done }

// StatementRollback undoes the writes of the current statement; the
// transaction stays open and keeps its locks, as InnoDB does.
func (t *Txn) StatementRollback() error {
	if err := t.RollbackTo(t.stmtMark); err != nil {
		return err
	}
	if len(t.stmtKeys) > 0 {
		t.forgetMoved(t.stmtDepth)
	}
	if t.stmtDepth > 0 {
		t.stmtDepth--
	}
	return nil
}

// lock takes the row lock on key for this transaction.
func (t *Txn) lock(ctx context.Context, key []byte) error {
	_, err := t.lockNew(ctx, key)
	return err
}

// lockNew is lock, also reporting whether the transaction did not hold
// the lock before (lock.Manager.AcquireNew): every write of a row key is
// made under its lock, so a new lock says the transaction has not written
// the key.
func (t *Txn) lockNew(ctx context.Context, key []byte) (bool, error) {
	isNew, err := t.e.locks.AcquireNew(ctx, t.id, key, t.lockTimeout)
	return isNew, t.lockErr(err)
}

func (t *Txn) lockErr(err error) error {
	switch {
	case err == nil:
		t.locked = true
		return nil
	case errors.Is(err, lock.ErrDeadlock):
		return base.Wrap(base.ClassDeadlock, err, "storage")
	case errors.Is(err, lock.ErrLockWaitTimeout):
		return base.Wrap(base.ClassLockTimeout, err, "storage")
	}
	return err
}

// dirtyCatalog records that the transaction changes the catalog (or
// other metadata): its own reads then bypass the read view, and the
// catalog generation moves so other transactions' views check the tables
// they read (checkTable).
func (t *Txn) dirtyCatalog() {
	t.catalogDirty = true
	t.e.cat.gen.Add(1)
}

// dirtyTable is dirtyCatalog for a change of tb's definition; a
// temporary table's is no catalog change (temptables.go).
func (t *Txn) dirtyTable(tb *Table) {
	if tb.Def.Temporary {
		t.tempWrites = true
		return
	}
	t.dirtyCatalog()
}

// put writes key without recording undo (catalog writes: a failed DDL
// rolls back the whole transaction).
func (t *Txn) put(key, val []byte) error {
	if err := t.writable(); err != nil {
		return err
	}
	t.dirtyCatalog()
	t.undelete(key)
	if err := t.indexNow(); err != nil {
		return err
	}
	return t.batch.Set(key, val, nil)
}

func (t *Txn) putJSON(key []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return t.put(key, b)
}

func (t *Txn) del(key []byte) error {
	if err := t.writable(); err != nil {
		return err
	}
	t.dirtyCatalog()
	if err := t.indexNow(); err != nil {
		return err
	}
	return t.batch.Delete(key, nil)
}

// set writes key=val recording its previous state for statement undo.
func (t *Txn) set(key, val []byte, prev []byte, existed bool) error {
	if err := t.noteLazy(key); err != nil {
		return err
	}
	t.undo.add(key, prev, existed)
	t.undelete(key)
	before := t.batchMark()
	err := t.batch.Set(key, val, nil)
	t.noteWrite(key, before)
	return err
}

// maxDeletedKeys bounds Txn.deleted: a transaction that deletes more keys
// reads the rest from Pebble.
const maxDeletedKeys = 4096

// undelete forgets that key was deleted: it is written again.
func (t *Txn) undelete(key []byte) {
	if len(t.deleted) > 0 {
		delete(t.deleted, string(key))
	}
}

func (t *Txn) delete(key []byte, prev []byte) error {
	if err := t.noteLazy(key); err != nil {
		return err
	}
	t.undo.add(key, prev, true)
	before := t.batchMark()
	err := t.batch.Delete(key, nil)
	t.noteWrite(key, before)
	if err != nil {
		return err
	}
	if len(t.deleted) < maxDeletedKeys {
		if t.deleted == nil {
			t.deleted = map[string]struct{}{}
		}
		t.deleted[string(key)] = struct{}{}
	}
	return nil
}

func (t *Txn) dropTableData(tb *Table) error {
	if err := t.writable(); err != nil {
		return err
	}
	t.dirtyCatalog()
	p := tablePrefix(tb.Def.ID)
	if err := t.indexNow(); err != nil {
		return err
	}
	t.rangeDeleted = true
	if err := t.batch.DeleteRange(p, prefixEnd(p), nil); err != nil {
		return err
	}
	if err := t.batch.Delete(metaTableKey(metaTable, tb.Def.ID), nil); err != nil {
		return err
	}
	return t.batch.Delete(metaTableKey(metaAutoInc, tb.Def.ID), nil)
}

// DropTableRows deletes every row and index entry of a table that is no
// longer in the catalog (the old copy after a rewrite).
func (t *Txn) DropTableRows(tb *Table) error { return t.dropTableData(tb) }

// TruncateTable deletes every row of tb and resets its AUTO_INCREMENT.
func (t *Txn) TruncateTable(tb *Table) error {
	if err := t.writable(); err != nil {
		return err
	}
	t.dirtyCatalog()
	p := tablePrefix(tb.Def.ID)
	if err := t.indexNow(); err != nil {
		return err
	}
	t.rangeDeleted = true
	if err := t.batch.DeleteRange(p, prefixEnd(p), nil); err != nil {
		return err
	}
	tb.ctr.rowID.Store(0)
	return t.e.cat.PersistAutoIncrement(t, tb, 1)
}

// get reads key as this transaction sees it (its own writes over the
// latest committed state).
func (t *Txn) get(key []byte) ([]byte, bool, error) {
	v, closer, ok, err := t.getRaw(key)
	if !ok || err != nil {
		return nil, false, err
	}
	out := append([]byte(nil), v...)
	closer.Close()
	return out, true, nil
}

// getRaw is get's read: v is valid until closer is closed (found only).
func (t *Txn) getRaw(key []byte) (v []byte, closer io.Closer, found bool, err error) {
	b, err := t.batchFor(key, nil, true)
	if err != nil {
		return nil, nil, false, err
	}
	if b != nil {
		if _, ok := t.deleted[string(key)]; ok {
			return nil, nil, false, nil
		}
		v, closer, err = b.Get(key)
	} else {
		v, closer, err = t.e.db.Get(key)
	}
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, readErr(err)
	}
	return v, closer, true, nil
}

func (t *Txn) newIter(lo, hi []byte) (*pebble.Iterator, error) {
	o := &pebble.IterOptions{LowerBound: lo, UpperBound: hi}
	var it *pebble.Iterator
	b, err := t.batchFor(lo, hi, false)
	if err != nil {
		return nil, err
	}
	if b != nil {
		it, err = b.NewIter(o)
	} else {
		it, err = t.e.db.NewIter(o)
	}
	return it, readErr(err)
}

// release finishes the transaction without applying anything.
func (t *Txn) release() error {
	t.done = true
	t.closeRows()
	t.dropView()
	var err error
	if t.batch != nil {
		err = t.batch.Close()
		t.batch = nil
	}
	t.dropChanges()
	t.e.locks.ReleaseAll(t.id)
	return err
}

// dropChanges lets go of what a finished transaction recorded (row
// images, undo records): a session may keep its last transaction object
// until its next statement, and a row image can be as large as
// max_allowed_packet.
func (t *Txn) dropChanges() {
	t.undo.release()
	t.undo, t.changes, t.queries, t.stmtKeys, t.deleted = undoLog{}, nil, nil, nil, nil
	t.dropBulk()
	t.dropSpill()
	t.rangeDeleted = false
	t.spaces = nil
	t.runs, t.nChanges, t.stmtMark = nil, 0, Mark{}
	t.forgetLockedReads()
	t.forgetTail()
	if cap(t.rowBuf) > 64<<10 {
		t.rowBuf = nil // a large row's buffer is not kept with the session
	}
	if t.large {
		t.large = false
		largeTxns.Add(-1)
	}
	if t.cache != nil {
		t.cache.Close()
		t.cache = nil
	}
}

// Rollback discards the transaction and releases its locks.
func (t *Txn) Rollback() error {
	if t.done {
		return nil
	}
	wrote := t.HasWrites()
	err := t.release()
	if wrote {
		t.e.stats.Rollbacks.Add(1)
	}
	if t.catalogDirty {
		if rerr := t.e.cat.Reload(); rerr != nil && err == nil {
			err = rerr
		}
		t.e.cat.gen.Add(1)
	}
	return err
}
