package storage

import (
	"bytes"
	"encoding/binary"

	"github.com/cockroachdb/pebble/v2"
)

// A transaction's batch is indexed only once a read needs it (issue 29).
//
// An indexed batch keeps a skiplist over its writes so that the
// transaction reads its own writes; inserting each row and index entry
// into it was a quarter of a bulk INSERT ... SELECT's CPU (random index
// keys: cache misses in batchskl's findSplice) and 128 MB of a million
// rows' memory, for a statement that never reads what it writes. So a
// transaction writes to a plain batch (lazy) and keeps, per table it
// wrote (spaces), the largest row key it wrote there. Its reads go
// around the batch while they can:
//   - a read of a table it has not written (the SELECT of an INSERT ...
//     SELECT) reads Pebble alone, as the batch holds nothing there;
//   - Insert's check of a new row's key, when the key's lock is new to
//     the transaction, reads Pebble alone: every write of a row key is
//     made under its lock, held to the end, so the transaction never
//     wrote that key (the argument inserttail.go already relies on);
//   - the table's tail for inserttail.go is the larger of Pebble's last
//     key and the largest row key the transaction wrote there.
// Any other read of the batch, a catalog write, a range deletion or
// writes to many tables index it first (indexNow: the writes so far are
// indexed at once, as they would have been one by one), and from then on
// the transaction reads as before.

// lazyBatches turns lazy batches on; tests turn it off to compare.
var lazyBatches = true

// maxLazySpaces is how many tables a lazy batch tracks before it is
// indexed.
const maxLazySpaces = 8

// lazySpace is a table a lazy batch holds writes of.
type lazySpace struct {
	id     uint32
	maxRow []byte // the largest row (primary) key written, nil if none
}

// noteLazy records key's table before the lazy batch takes a write of
// it; a key outside the tables' data, or one table too many, indexes the
// batch.
func (t *Txn) noteLazy(key []byte) error {
	if !t.lazy {
		return nil
	}
	if len(key) < indexPrefixLen || key[0] != spaceData {
		return t.indexNow()
	}
	id := binary.BigEndian.Uint32(key[1:5])
	row := key[5] == 0
	for i := range t.spaces {
		s := &t.spaces[i]
		if s.id == id {
			if row && bytes.Compare(key, s.maxRow) > 0 {
				s.maxRow = append(s.maxRow[:0], key...)
			}
			return nil
		}
	}
	if len(t.spaces) == maxLazySpaces {
		return t.indexNow()
	}
	s := lazySpace{id: id}
	if row {
		s.maxRow = append([]byte(nil), key...)
	}
	t.spaces = append(t.spaces, s)
	return nil
}

// indexNow makes the transaction's batch an indexed one holding the same
// writes.
func (t *Txn) indexNow() error {
	if !t.lazy {
		return nil
	}
	ib := t.e.db.NewIndexedBatch()
	if err := t.unspill(ib); err != nil { // the older writes first
		ib.Close()
		return err
	}
	if !t.batch.Empty() {
		if err := ib.Apply(t.batch, nil); err != nil {
			ib.Close()
			return err
		}
	}
	t.batch.Close()
	t.batch, t.lazy, t.spaces = ib, false, nil
	t.e.stats.LazyBatchesIndexed.Add(1)
	return nil
}

// lazyWrote reports whether the lazy batch may hold keys in [lo, hi)
// (point: the key lo alone; a range with no hi is unbounded); false means
// the batch can be skipped.
func (t *Txn) lazyWrote(lo, hi []byte, point bool) bool {
	if len(lo) < 5 || lo[0] != spaceData {
		return true
	}
	id := binary.BigEndian.Uint32(lo[1:5])
	if !point && (hi == nil || bytes.Compare(hi, prefixEnd(tablePrefix(id))) > 0) {
		return true // the range goes past the table
	}
	for _, s := range t.spaces {
		if s.id == id {
			return true
		}
	}
	return false
}

// batchFor returns the batch a read of [lo, hi) (point: the key lo)
// goes through: nil when the transaction has none or a lazy one holding
// nothing there (read Pebble alone); the indexed batch otherwise, which
// it makes of a lazy one first.
func (t *Txn) batchFor(lo, hi []byte, point bool) (*pebble.Batch, error) {
	if len(t.bulk) > 0 {
		if err := t.bulkRead(lo, hi, point); err != nil {
			return nil, err
		}
	}
	if t.batch == nil {
		return nil, nil
	}
	if t.lazy {
		if !t.lazyWrote(lo, hi, point) {
			return nil, nil
		}
		if err := t.indexNow(); err != nil {
			return nil, err
		}
	}
	return t.batch, nil
}

// freshKeyRead is Insert's read of a new row's key whose lock is new to
// the transaction: Pebble alone while the batch is lazy (the transaction
// never wrote the key), else lockedLookup.
func (t *Txn) freshKeyRead(key []byte) ([]byte, bool, error) {
	if !t.lazy {
		return t.lockedLookup(key)
	}
	return getFrom(t.e.db, key)
}

// lazyTail is the table's tail while the batch is lazy: Pebble's last
// key under p (the table's row prefix) or the largest row key the
// transaction wrote there, whichever is larger.
func (t *Txn) lazyTail(id uint32, p []byte) ([]byte, error) {
	it, err := t.e.db.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
	if err != nil {
		return nil, readErr(err)
	}
	last := p
	if it.Last() {
		last = append([]byte(nil), it.Key()...)
	}
	if err := it.Error(); err != nil {
		it.Close()
		return nil, readErr(err)
	}
	if err := it.Close(); err != nil {
		return nil, readErr(err)
	}
	for _, s := range t.spaces {
		if s.id == id && bytes.Compare(s.maxRow, last) > 0 {
			last = append([]byte(nil), s.maxRow...)
		}
	}
	return last, nil
}
