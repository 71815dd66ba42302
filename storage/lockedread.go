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

// batchMark is the batch's length, 0 while it holds nothing.
func (t *Txn) batchMark() int {
	if t.batch == nil || t.batch.Empty() {
		return 0
	}
	return t.batch.Len()
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
	lr := &t.lockedReads
	raw, closer, ok, err := t.getRaw(key)
	if err != nil {
		return nil, false, nil, err
	}
	if len(raw) > maxLockedReadValue {
		v := append([]byte(nil), raw...)
		closer.Close()
		return v, true, nil, nil
	}
	// The key and the value copied in one allocation: no more than
	// get's own copy of the value.
	kv := make([]byte, len(key)+len(raw))
	copy(kv, key)
	var v []byte
	if ok {
		copy(kv[len(key):], raw)
		closer.Close()
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
	*s = lockedRead{key: kv[:len(key):len(key)], val: v, found: ok, mark: mark}
	return v, ok, s, nil
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
// valid before the write stay valid after it.
func (t *Txn) noteWrite(key []byte, before int) {
	lr := &t.lockedReads
	if len(lr.slots) == 0 {
		return
	}
	after := t.batchMark()
	for i := range lr.slots {
		s := &lr.slots[i]
		switch {
		case bytes.Equal(s.key, key):
			s.mark, s.val, s.row = -1, nil, nil
		case s.mark == before:
			s.mark = after
		}
	}
}

// forgetLockedReads drops the kept values (the transaction ended).
func (t *Txn) forgetLockedReads() { t.lockedReads = lockedReads{} }
