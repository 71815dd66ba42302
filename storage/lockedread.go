package storage

import (
	"bytes"

	"github.com/dolthub/go-mysql-server/sql"
)

// Locked rows read once.
//
// A locking read (SELECT ... FOR UPDATE, the reads of UPDATE and DELETE)
// locks the row and then reads its latest version, and the UPDATE or
// DELETE that follows finds the row by its key again (findKey): a second
// read through every memtable and level for a value that cannot have
// changed, since the transaction holds the row's lock (no other
// transaction writes it until this one ends) and the only writer left is
// the transaction itself. TPC-C's NEW_ORDER and PAYMENT read and rewrite
// each row that way. So the transaction keeps the last lockedReadSlots
// values it read under a lock, and a read of one of those keys under its
// lock takes the value kept, as long as the transaction's own batch has
// not changed since in a way that could touch the key.
//
// Validity is tied to the batch's length (batchMark): every write of the
// transaction appends to its batch. set and delete, the writes of one
// key, drop that key's slot and keep the others valid (noteWrite); any
// other change of the batch (catalog writes, range deletions, a rollback
// to a savepoint, the commit's own keys) leaves the kept values with a
// stale mark, so they are read again. A forgotten write path can only
// cost a read, never return a stale value.

// lockedReadSlots is how many locked reads a transaction keeps: enough
// for a statement's rows under a key prefix (DELIVERY's order lines),
// small enough to search linearly.
const lockedReadSlots = 16

// maxLockedReadValue is the largest value kept: a transaction reading
// large rows for update holds no more than lockedReadSlots of this size.
const maxLockedReadValue = 16 << 10

type lockedRead struct {
	key   []byte
	val   []byte // nil when !found; key and val share one allocation
	found bool
	mark  int // batchMark when read (or last carried forward)
	// row is the last row GetRow decoded from val (nil: none), which
	// UpdateRead takes as the stored row when its caller hands it back.
	row sql.Row
}

type lockedReads struct {
	slots []lockedRead
	next  int // the slot to reuse when all are taken
}

// batchMark is the batch's length, 0 while it holds nothing, plus the
// lengths of the batches spilled before it (batchspill.go): it only
// grows while the transaction writes.
func (t *Txn) batchMark() int {
	if t.batch == nil || t.batch.Empty() {
		return t.spillBytes
	}
	return t.spillBytes + t.batch.Len()
}

// lockedGet reads key, which the transaction holds the lock on, as get
// does, and keeps the value for the write that may follow (GetRow's
// locking read).
// The slot it was kept in is returned too (nil when not kept).
func (t *Txn) lockedGet(key []byte) ([]byte, bool, *lockedRead, error) {
	mark := t.batchMark()
	slot, free := t.lockedSlot(key, mark)
	if slot != nil {
		return slot.val, slot.found, slot, nil
	}
	raw, closer, ok, err := t.getRaw(key)
	if err != nil {
		return nil, false, nil, err
	}
	v, s := t.keepLocked(key, raw, ok, mark, free)
	if ok {
		closer.Close()
	}
	return v, ok, s, nil
}

// keepLocked keeps raw, key's latest version (found: it exists), read
// under key's lock at batch mark mark, in a slot (free: the first slot no
// longer valid, as lockedSlot returns it) and returns its copy and the
// slot (nil for a value too large to keep).
func (t *Txn) keepLocked(key, raw []byte, found bool, mark, free int) ([]byte, *lockedRead) {
	if len(raw) > maxLockedReadValue {
		return append([]byte(nil), raw...), nil
	}
	lr := &t.lockedReads
	// The key and the value copied in one allocation: no more than
	// get's own copy of the value.
	kv := make([]byte, len(key)+len(raw))
	copy(kv, key)
	var v []byte
	if found {
		copy(kv[len(key):], raw)
		v = kv[len(key):len(kv):len(kv)]
	}
	if lr.slots == nil {
		lr.slots = make([]lockedRead, 0, lockedReadSlots)
	}
	var s *lockedRead
	switch {
	case free >= 0:
		s = &lr.slots[free]
	case len(lr.slots) < lockedReadSlots:
		lr.slots = append(lr.slots, lockedRead{})
		s = &lr.slots[len(lr.slots)-1]
	default:
		s = &lr.slots[lr.next]
		lr.next = (lr.next + 1) % lockedReadSlots
	}
	*s = lockedRead{key: kv[:len(key):len(key)], val: v, found: found, mark: mark}
	return v, s
}

// keptRow returns old when it is the row GetRow last decoded from val,
// the value kept for key, which is still valid (UpdateRead's caller hands
// back that row unmodified): nil otherwise.
func (t *Txn) keptRow(key, val []byte, old sql.Row) sql.Row {
	if len(val) == 0 || len(old) == 0 {
		return nil
	}
	s, _ := t.lockedSlot(key, t.batchMark())
	if s == nil || len(s.val) == 0 || &s.val[0] != &val[0] ||
		len(s.row) != len(old) || &s.row[0] != &old[0] {
		return nil
	}
	return old
}

// lockedLookup reads key, which the transaction holds the lock on, from
// a kept value if there is one, else as get does without keeping it: the
// reads of writes (findKey, an INSERT's duplicate check), which write
// the key next and so would only drop what they kept.
func (t *Txn) lockedLookup(key []byte) ([]byte, bool, error) {
	if slot, _ := t.lockedSlot(key, t.batchMark()); slot != nil {
		return slot.val, slot.found, nil
	}
	return t.get(key)
}

// lockedSlot returns key's valid slot (nil if none) and the index of the
// first slot no longer valid (-1 if none), which lockedGet reuses first.
func (t *Txn) lockedSlot(key []byte, mark int) (*lockedRead, int) {
	free := -1
	for i := range t.lockedReads.slots {
		s := &t.lockedReads.slots[i]
		if s.mark != mark {
			if free < 0 {
				free = i
			}
			continue
		}
		if bytes.Equal(s.key, key) {
			return s, free
		}
	}
	return nil, free
}

// noteWrite is called around a write of key alone (set, delete): before
// is the batch's mark before it. Key's slot is dropped; the other slots
// valid before the write stay valid after it, and so do the locking
// scans the write is behind (RowIter.behind) and the insert tail.
func (t *Txn) noteWrite(key []byte, before int) {
	lr := &t.lockedReads
	if len(lr.slots) == 0 && len(t.rows) == 0 && !t.tail.valid {
		return
	}
	after := t.batchMark()
	if t.tail.valid && t.tail.mark == before {
		t.tail.mark = after // inserttail.go: the key was locked first
	}
	for i := range lr.slots {
		s := &lr.slots[i]
		switch {
		case bytes.Equal(s.key, key):
			s.mark, s.val, s.row = -1, nil, nil
		case s.mark == before:
			s.mark = after
		}
	}
	for _, r := range t.rows {
		if r.fresh && r.mark == before && r.behind(key) {
			r.mark = after
		}
	}
}

// forgetLockedReads drops the kept values (the transaction ended).
func (t *Txn) forgetLockedReads() { t.lockedReads = lockedReads{} }

// Locking scans read each row once.
//
// A locking scan (the reads of UPDATE and DELETE, SELECT ... FOR UPDATE
// over a range) steps a Pebble iterator over the primary key, locks each
// row and then reads its latest version: a Get through the batch, every
// memtable and level for the value the iterator holds already, unless
// the row changed between the iterator's opening and the lock. Two kinds
// of change can: another transaction's commit, and the transaction's own
// writes after the iterator opened (Pebble's iterator shows its batch as
// it was then). A scan opened while no transaction batch was being
// applied to Pebble (Engine.applyQuiet) knows the first kind did not
// happen while the engine's count of applies begun has not moved: a
// writer holds its rows' locks until its batch is applied, so a commit
// of this row not yet counted when the lock was granted cannot exist.
// The second kind is tracked as the locked reads are (batchMark): the
// scan's mark moves with the transaction's writes of single keys behind
// it (its own rows, already returned, and keys outside its range), and
// any other change of the batch leaves the mark stale. While both hold,
// the row is the iterator's value, kept in a slot as lockedGet keeps
// what it reads; once either fails, the scan reads every further row as
// before.

// applyQuiet returns the number of transaction batches applied so far
// and whether none is being applied now: an iterator opened after it
// shows the latest committed state for as long as noApplySince(n) holds.
func (e *Engine) applyQuiet() (n uint64, quiet bool) {
	n = e.appliesEnded.Load()
	return n, e.appliesBegun.Load() == n
}

// noApplySince reports whether no batch apply began since applyQuiet
// returned n.
func (e *Engine) noApplySince(n uint64) bool { return e.appliesBegun.Load() == n }

// lockedRow locks the row of the primary-key scan's current entry, key
// (a copy of the entry's key), and returns its latest version: the
// entry's own value while the scan is fresh, else read by lockedGet.
func (r *RowIter) lockedRow(key []byte) (sql.Row, error) {
	t := r.t
	if skip, err := t.readLock(r.ctx, key); err != nil || skip {
		return nil, err // a skipped row reads as absent
	}
	mark := t.batchMark()
	var (
		v    []byte
		slot *lockedRead
	)
	if r.fresh && r.mark == mark && t.e.noApplySince(r.gen) {
		var free int
		if slot, free = t.lockedSlot(key, mark); slot != nil {
			if !slot.found {
				return nil, nil // cannot be while fresh; read as deleted
			}
			v = slot.val
		} else {
			v, slot = t.keepLocked(key, r.it.Value(), true, mark, free)
		}
		r.kept++
	} else {
		r.fresh = false
		var ok bool
		var err error
		if v, ok, slot, err = t.lockedGet(key); err != nil || !ok {
			return nil, err
		}
	}
	row, err := decodeRow(v, r.tb.Schema)
	if slot != nil && err == nil {
		slot.row = row // for UpdateRead
	}
	return row, err
}

// behind reports whether a write of key cannot change what the scan
// returns from now on: key is outside its range, or at or behind the
// last row it returned.
func (r *RowIter) behind(key []byte) bool {
	if bytes.Compare(key, r.lo) < 0 || (r.hi != nil && bytes.Compare(key, r.hi) >= 0) {
		return true
	}
	if r.pos == nil {
		return false
	}
	c := bytes.Compare(key, r.pos)
	return c == 0 || (c < 0) != r.reverse
}
