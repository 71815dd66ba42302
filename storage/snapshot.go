package storage

import (
	"bytes"
	"context"
	"errors"

	"github.com/cockroachdb/pebble/v2"

	"petrel/internal/base"
)

// Isolation and read views.
//
// A transaction reads in one of three ways, as InnoDB does:
//   - consistent reads (plain SELECT) see a read view: a Pebble snapshot
//     with the transaction's own writes over it;
//   - locking reads (SELECT ... FOR UPDATE / FOR SHARE, the reads of
//     UPDATE and DELETE) lock each row and read its latest committed
//     version (SetLockingReads);
//   - current reads without locks (the SELECT of INSERT ... SELECT, unique
//     checks, the writes' own lookups) read the latest committed version
//     (SetCurrentReads).
//
// The read view's lifetime is the isolation level: under RepeatableRead it
// is taken at the transaction's first consistent read (or StartSnapshot)
// and kept until the transaction ends; under ReadCommitted each statement
// takes its own (NewStatement ends it). An autocommit statement is a
// transaction of its own, so it reads one view whatever the level. A
// transaction known to make a single read (BeginSingleRead) takes no view:
// one Pebble Get or iterator is consistent by itself.
//
// The transaction's own writes live in its indexed batch. Pebble reads a
// batch over the latest state only, so a consistent read combines the
// snapshot with the batch itself: a row the transaction wrote (a key of
// its undo log, which savepoint and statement rollbacks shorten) is read
// as the transaction left it, every other row from the snapshot, in the
// primary index and in secondary indexes alike (overlayIter). A
// transaction that changed the catalog (DDL) reads the latest state:
// MySQL's DDL commits implicitly and reads current data.

// Isolation is a transaction isolation level as storage provides it.
type Isolation uint8

const (
	// RepeatableRead: one read view from the first consistent read to
	// the end of the transaction (the zero value, MySQL's default).
	RepeatableRead Isolation = iota
	// ReadCommitted: a read view per statement.
	ReadCommitted
)

func (l Isolation) String() string {
	if l == ReadCommitted {
		return "READ-COMMITTED"
	}
	return "REPEATABLE-READ"
}

// BeginSingleRead starts a transaction for a statement that makes exactly
// one storage read (one Point, or one Scan on the primary index without
// locking): that read sees one state by itself, so the transaction takes
// no snapshot.
func (e *Engine) BeginSingleRead() *Txn {
	t := e.Begin()
	t.oneRead = true
	return t
}

// SetIsolation sets the transaction's isolation level. Once the
// transaction has read through a read view its level is fixed, as
// InnoDB's is, and later calls are ignored.
func (t *Txn) SetIsolation(l Isolation) {
	if !t.viewTaken {
		t.iso = l
	}
}

// Isolation reports the transaction's isolation level.
func (t *Txn) Isolation() Isolation { return t.iso }

// StartSnapshot takes the read view now (START TRANSACTION WITH CONSISTENT
// SNAPSHOT). It reports false, taking nothing, under ReadCommitted, where
// MySQL ignores the clause with a warning.
func (t *Txn) StartSnapshot() bool {
	if t.iso != RepeatableRead {
		return false
	}
	if t.snap == nil && !t.done {
		t.takeView()
	}
	return true
}

// Active reports whether the transaction has read through a read view or
// written: whether it has started in MySQL's sense, fixing its level.
func (t *Txn) Active() bool { return t.viewTaken || t.HasWrites() }

// HasSnapshot reports whether the transaction holds a read view.
func (t *Txn) HasSnapshot() bool { return t.snap != nil }

// NewStatement marks the start of a client statement: under
// ReadCommitted the previous statement's read view ends, so the next
// consistent read sees the latest commits.
func (t *Txn) NewStatement() {
	t.closePointIt()
	if t.iso == ReadCommitted && t.snap != nil {
		t.dropView()
	}
}

// SetCurrentReads makes non-locking reads read the latest committed
// version instead of the read view (the SELECT of INSERT ... SELECT, as
// InnoDB's current read). SetLockingReads(false) clears it too.
func (t *Txn) SetCurrentReads(on bool) { t.currentReads = on }

// takeView takes the snapshot. The catalog generation is read first: a
// catalog change that the snapshot might miss then shows as a newer
// generation, and checkTable looks at the table.
func (t *Txn) takeView() {
	t.snapGen = t.e.cat.gen.Load()
	t.snap = t.e.db.NewSnapshot()
	t.e.openViews.Add(1)
	t.viewTaken = true
	clear(t.defOK)
}

func (t *Txn) dropView() {
	t.closePointIt()
	if t.snap != nil {
		_ = t.snap.Close()
		t.snap = nil
		t.e.openViews.Add(-1)
	}
}

// consistent reports whether a non-locking read goes through the read view.
func (t *Txn) consistent() bool { return !t.lockingReads && !t.currentReads }

// readView returns the snapshot consistent reads use, taking it at the
// first one; nil means "read the latest state".
func (t *Txn) readView() *pebble.Snapshot {
	if t.catalogDirty {
		return nil
	}
	if t.snap == nil {
		if t.oneRead || t.done {
			return nil
		}
		t.takeView()
	}
	return t.snap
}

// ownWrite reports whether the transaction's batch holds the live value
// of key (a write not rolled back).
func (t *Txn) ownWrite(key []byte) (bool, error) {
	if t.batch == nil || t.undo.len() == 0 {
		return false, nil
	}
	ws, err := t.writeSet()
	if err != nil {
		return false, err
	}
	_, ok := ws[string(key)]
	return ok, nil
}

// writeSet maps each key of the undo log to its number of entries. It is
// built lazily, from the first consistent read that needs it, and kept in
// step by RollbackTo.
func (t *Txn) writeSet() (map[string]int, error) {
	if t.ws == nil {
		t.ws = make(map[string]int, t.undo.len())
	}
	for i := t.wsN; i < t.undo.len(); i++ {
		r, err := t.undo.at(i)
		if err != nil {
			return nil, err
		}
		t.ws[string(r.key)]++
		t.wsN = i + 1
	}
	return t.ws, nil
}

// forgetWrites drops undo entries [from, wsN) from the write set, before
// a rollback shortens the undo log.
func (t *Txn) forgetWrites(from int) error {
	if t.ws == nil || from >= t.wsN {
		return nil
	}
	for i := from; i < t.wsN; i++ {
		r, err := t.undo.at(i)
		if err != nil {
			t.ws, t.wsN = nil, 0 // built again at the next read
			return err
		}
		k := string(r.key)
		if n := t.ws[k]; n > 1 {
			t.ws[k] = n - 1
		} else {
			delete(t.ws, k)
		}
	}
	t.wsN = from
	return nil
}

// readGet is a consistent point read: own writes, else the read view.
// Reads of the view go through one Pebble iterator the transaction keeps
// until its statement ends (pointIt), sought to each key: a join's inner
// primary-key lookups and a secondary index's row reads then reuse its
// level and table iterators, where a Get builds them for every key.
// SeekPrefixGE (the default comparer's prefix is the whole key) consults
// the bloom filters as Get does.
//
// A statement's first read is a Get on the view instead: most statements
// read one row (TPC-C's selects by primary key), and a Get stops at the
// first level holding the key where the iterator's seek positions every
// level, besides the iterator's creation and close. The iterator is made
// at the second read.
func (t *Txn) readGet(key []byte) ([]byte, bool, error) {
	snap := t.readView()
	if snap == nil {
		return t.get(key)
	}
	if own, err := t.ownWrite(key); err != nil {
		return nil, false, err
	} else if own {
		return t.get(key)
	}
	if t.pointIt == nil && !t.pointGot {
		t.pointGot = true
		return getFrom(snap, key)
	}
	if t.pointIt == nil {
		it, err := snap.NewIter(nil)
		if err != nil {
			return nil, false, readErr(err)
		}
		t.pointIt = it
	}
	it := t.pointIt
	if !it.SeekPrefixGE(key) || !bytes.Equal(it.Key(), key) {
		return nil, false, readErr(it.Error())
	}
	v, err := it.ValueAndErr()
	if err != nil {
		return nil, false, readErr(err)
	}
	return append([]byte(nil), v...), true, nil
}

// closePointIt closes readGet's iterator and the idle scan iterators: at
// each statement's start (an open iterator keeps the files it reads from
// being deleted, so it lives no longer than a statement) and before its
// read view ends.
func (t *Txn) closePointIt() {
	t.pointGot = false
	if t.pointIt != nil {
		_ = t.pointIt.Close()
		t.pointIt = nil
	}
	for _, it := range t.scanIts {
		_ = it.Close()
	}
	t.scanIts = t.scanIts[:0]
}

// maxIdleScanIters bounds the scan iterators a transaction keeps idle.
const maxIdleScanIters = 4

// scanIter is a scan's iterator over [lo, hi) of the read view snap: an
// idle one the transaction kept, given the new bounds, or a new one. A
// lookup join scans the inner index once per outer row (TPC-H Q10: 5,700
// lineitem ranges, one per order), and a new Pebble iterator for each
// built its level and table iterators again; a kept one keeps them, with
// the blocks they hold. Its Close hands it back (keptIter).
func (t *Txn) scanIter(snap *pebble.Snapshot, lo, hi []byte) (kvIter, error) {
	if n := len(t.scanIts); n > 0 {
		it := t.scanIts[n-1]
		t.scanIts = t.scanIts[:n-1]
		it.SetBounds(lo, hi)
		return &keptIter{Iterator: it, t: t, snap: snap}, nil
	}
	it, err := snap.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, readErr(err)
	}
	return &keptIter{Iterator: it, t: t, snap: snap}, nil
}

// keptIter is a scan iterator on a read view whose Close keeps it idle
// for the transaction's next scan of the same view (scanIter), up to
// maxIdleScanIters, until the statement or the view ends.
type keptIter struct {
	*pebble.Iterator
	t    *Txn
	snap *pebble.Snapshot
}

func (k *keptIter) Close() error {
	it := k.Iterator
	k.Iterator = nil
	if it == nil {
		return nil
	}
	t := k.t
	if it.Error() != nil || t.done || t.snap != k.snap || len(t.scanIts) >= maxIdleScanIters {
		return it.Close()
	}
	t.scanIts = append(t.scanIts, it)
	return nil
}

func getFrom(r pebble.Reader, key []byte) ([]byte, bool, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, readErr(err)
	}
	out := append([]byte(nil), v...)
	closer.Close()
	return out, true, nil
}

// kvIter is what RowIter walks: a Pebble iterator, or the overlay of a
// transaction's own writes on its read view. A RowIter moves one way.
type kvIter interface {
	First() bool
	Last() bool
	Next() bool
	Prev() bool
	Key() []byte
	Value() []byte
	Error() error
	Close() error
}

// newReadIter is a consistent iterator over [lo, hi) of index ixID of tb.
func (t *Txn) newReadIter(tb *Table, ixID uint8, lo, hi []byte) (kvIter, error) {
	snap := t.readView()
	if snap == nil {
		return t.newIter(lo, hi)
	}
	if t.batch == nil || t.undo.len() == 0 || (t.lazy && !t.lazyWrote(lo, hi, false)) {
		return t.scanIter(snap, lo, hi)
	}
	if err := t.indexNow(); err != nil {
		return nil, err
	}
	o := &pebble.IterOptions{LowerBound: lo, UpperBound: hi}
	s, err := snap.NewIter(o)
	if err != nil {
		return nil, readErr(err)
	}
	ws, err := t.writeSet()
	if err != nil {
		s.Close()
		return nil, err
	}
	ov := &overlayIter{snap: s, written: ws}
	if ixID == 0 {
		// A row the transaction wrote is in its batch.
		ov.own, err = t.batch.NewBatchOnlyIter(context.Background(), o)
	} else {
		// The entries of a row the transaction wrote are those of its
		// latest version, which it may have left in place (an UPDATE of
		// other columns, of a row inserted after the view was taken):
		// they are read from the latest state, the batch over Pebble.
		ov.own, err = t.batch.NewIter(o)
		ov.rowPrefix = indexPrefix(nil, tb.Def.ID, 0)
	}
	if err != nil {
		s.Close()
		return nil, readErr(err)
	}
	return ov, nil
}

// overlayIter merges the view's entries of rows the transaction did not
// write with the entries of rows it did, read from own (its batch, or
// the batch over the latest state). For the primary index an entry's row
// is its key; for a secondary index, rowPrefix plus the entry's value
// (the primary-key suffix). Its direction is set by First or Last.
type overlayIter struct {
	snap, own *pebble.Iterator
	written   map[string]int
	rowPrefix []byte // nil: primary index
	buf       []byte
	sOK, oOK  bool
	reverse   bool
	cur       *pebble.Iterator
}

// ownRow reports whether the entry under it belongs to a row the
// transaction wrote.
func (o *overlayIter) ownRow(it *pebble.Iterator) bool {
	if o.rowPrefix == nil {
		_, ok := o.written[string(it.Key())]
		return ok
	}
	o.buf = append(append(o.buf[:0], o.rowPrefix...), it.Value()...)
	_, ok := o.written[string(o.buf)]
	return ok
}

// settle moves it (the view's or the own iterator) past the entries the
// other one answers for.
func (o *overlayIter) settle(it *pebble.Iterator, ok bool) bool {
	wantOwn := it == o.own
	for ok {
		if o.ownRow(it) == wantOwn {
			return true
		}
		if o.reverse {
			ok = it.Prev()
		} else {
			ok = it.Next()
		}
	}
	return false
}

func (o *overlayIter) pick() bool {
	switch {
	case o.sOK && o.oOK:
		c := bytes.Compare(o.snap.Key(), o.own.Key())
		if (c < 0) != o.reverse {
			o.cur = o.snap
		} else {
			o.cur = o.own
		}
	case o.sOK:
		o.cur = o.snap
	case o.oOK:
		o.cur = o.own
	default:
		o.cur = nil
		return false
	}
	return true
}

func (o *overlayIter) First() bool {
	o.reverse = false
	o.sOK = o.settle(o.snap, o.snap.First())
	o.oOK = o.settle(o.own, o.own.First())
	return o.pick()
}

func (o *overlayIter) Last() bool {
	o.reverse = true
	o.sOK = o.settle(o.snap, o.snap.Last())
	o.oOK = o.settle(o.own, o.own.Last())
	return o.pick()
}

func (o *overlayIter) step(back bool) bool {
	if o.cur == nil || back != o.reverse {
		return false
	}
	var ok bool
	if back {
		ok = o.cur.Prev()
	} else {
		ok = o.cur.Next()
	}
	if o.cur == o.snap {
		o.sOK = o.settle(o.snap, ok)
	} else {
		o.oOK = o.settle(o.own, ok)
	}
	return o.pick()
}

func (o *overlayIter) Next() bool    { return o.step(false) }
func (o *overlayIter) Prev() bool    { return o.step(true) }
func (o *overlayIter) Key() []byte   { return o.cur.Key() }
func (o *overlayIter) Value() []byte { return o.cur.Value() }
func (o *overlayIter) Error() error  { return errors.Join(o.snap.Error(), o.own.Error()) }
func (o *overlayIter) Close() error  { return errors.Join(o.snap.Close(), o.own.Close()) }

// checkTable takes the read view if none is held yet and refuses a
// consistent read of a table whose definition
// changed after the read view was taken (created, altered, rewritten under
// a new id, renamed): the view holds no rows, or other rows, for it.
// InnoDB answers ER_TABLE_DEF_CHANGED (1412) there too. Cheap while no
// catalog change happened since the view was taken.
func (t *Txn) checkTable(tb *Table) error {
	snap := t.readView()
	if snap == nil || t.e.cat.gen.Load() == t.snapGen || tb.Def.Temporary {
		return nil
	}
	id := tb.Def.ID
	if _, ok := t.defOK[id]; ok {
		return nil
	}
	k := metaTableKey(metaTable, id)
	then, ok, err := getFrom(snap, k)
	if err != nil {
		return err
	}
	now, nowOK, err := getFrom(t.e.db, k)
	if err != nil {
		return err
	}
	if !ok || !nowOK || !bytes.Equal(then, now) {
		return base.Errorf(base.ClassDefChanged, "storage: table %s.%s changed after the transaction's snapshot was taken", tb.Def.Database, tb.Def.Name)
	}
	if t.defOK == nil {
		t.defOK = map[uint32]struct{}{}
	}
	t.defOK[id] = struct{}{}
	return nil
}

// CurrentReads reports whether non-locking reads read the latest
// committed version (SetCurrentReads).
func (t *Txn) CurrentReads() bool { return t.currentReads }
