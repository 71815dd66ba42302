package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage/keys"
)

func decodeRow(b []byte, sch sql.Schema) (sql.Row, error) { return keys.DecodeRow(b, sch) }

func prefixEnd(p []byte) []byte { return keys.PrefixSuccessor(p) }

// AppendKey appends the key encoding of v, a value of a column of type
// typ, in the table's key format (TableDef.KeyFormat).
func (tb *Table) AppendKey(dst []byte, typ sql.Type, v any) ([]byte, error) {
	if tb.Def.KeyFormat >= KeyFormatPadSpace {
		return keys.AppendValuePad(dst, typ, v)
	}
	return keys.AppendValue(dst, typ, v)
}

// PKKey returns the storage key of row's primary-key entry.
func (tb *Table) PKKey(dst []byte, row sql.Row) ([]byte, error) {
	dst = indexPrefix(dst, tb.Def.ID, 0)
	if tb.Hidden {
		return nil, fmt.Errorf("storage: table %s has no primary key", tb.Def.Name)
	}
	for i, o := range tb.Def.PK {
		var err error
		dst, err = tb.AppendKey(dst, tb.PKTypes[i], row[o])
		if err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// PKKeyFromValues returns the primary-key storage key for the given key
// column values (already converted to the column types).
func (tb *Table) PKKeyFromValues(vals []any) ([]byte, error) {
	if tb.Hidden || len(vals) != len(tb.PKTypes) {
		return nil, fmt.Errorf("storage: table %s: %d key values for %d key columns", tb.Def.Name, len(vals), len(tb.PKTypes))
	}
	dst := indexPrefix(nil, tb.Def.ID, 0)
	for i, v := range vals {
		var err error
		if dst, err = tb.AppendKey(dst, tb.PKTypes[i], v); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// indexKey returns the key of row's entry in ix: index columns then primary
// key suffix. hasNull reports whether an index column is NULL (a unique
// index admits any number of those).
func (tb *Table) indexKey(ix *Index, row sql.Row, pkSuffix []byte) (key []byte, prefixLen int, hasNull bool, err error) {
	key = indexPrefix(nil, tb.Def.ID, ix.Def.ID)
	return tb.indexKeyAfter(key, ix, row, pkSuffix)
}

// appendIndexKey is indexKey's key appended to dst.
func (tb *Table) appendIndexKey(dst []byte, ix *Index, row sql.Row, pkSuffix []byte) ([]byte, error) {
	k, _, _, err := tb.indexKeyAfter(indexPrefix(dst, tb.Def.ID, ix.Def.ID), ix, row, pkSuffix)
	return k, err
}

// indexKeyAfter appends ix's columns of row and pkSuffix to key, an
// index prefix.
func (tb *Table) indexKeyAfter(key []byte, ix *Index, row sql.Row, pkSuffix []byte) (_ []byte, prefixLen int, hasNull bool, err error) {
	for i, o := range ix.Ords {
		v := row[o]
		if v == nil {
			hasNull = true
		} else if i < len(ix.Def.Prefix) && ix.Def.Prefix[i] > 0 {
			v = truncatePrefix(v, int(ix.Def.Prefix[i]))
		}
		key, err = tb.AppendKey(key, ix.Types[i], v)
		if err != nil {
			return nil, 0, false, err
		}
	}
	prefixLen = len(key)
	return append(key, pkSuffix...), prefixLen, hasNull, nil
}

func truncatePrefix(v any, n int) any {
	switch s := v.(type) {
	case string:
		r := []rune(s)
		if len(r) > n {
			return string(r[:n])
		}
	case []byte:
		if len(s) > n {
			return s[:n]
		}
	}
	return v
}

// rowKey returns the primary key of row, allocating a hidden row id for an
// insert into a keyless table when alloc is set. For keyless tables the
// row's identity is its hidden id, carried in a trailing position the
// caller never sees; updates and deletes find it by content.
func (t *Txn) rowKey(tb *Table, row sql.Row) ([]byte, error) {
	if !tb.Hidden {
		return tb.PKKey(nil, row)
	}
	id := tb.ctr.rowID.Add(1)
	return binary.BigEndian.AppendUint64(indexPrefix(nil, tb.Def.ID, 0), id), nil
}

// Insert adds row. A duplicate primary or unique key returns GMS's
// unique-key error carrying the existing row (REPLACE and ON DUPLICATE KEY
// UPDATE need it).
func (t *Txn) Insert(ctx context.Context, tb *Table, row sql.Row) error {
	if err := t.writable(); err != nil {
		return err
	}
	key, err := t.rowKey(tb, row)
	if err != nil {
		return err
	}
	isNew, err := t.lockNew(ctx, key)
	if err != nil {
		return err
	}
	if tb.Hidden {
		return t.insertAt(ctx, tb, key, row)
	}
	// A key past the table's tail, locked for the first time, is free
	// without a read (inserttail.go).
	valid := t.tailValid(tb)
	past := valid && isNew && bytes.Compare(key, t.tail.last) > 0
	if !past {
		lookup := t.lockedLookup
		if isNew && !tb.Def.Temporary {
			lookup = t.freshKeyRead // lazybatch.go
		}
		if old, ok, err := lookup(key); err != nil {
			return err
		} else if ok {
			existing, derr := decodeRow(old, tb.Schema)
			if derr != nil {
				return derr
			}
			return sql.NewUniqueKeyErr(tb.keyString(tb.Def.PK, row), true, existing)
		}
	}
	if err := t.insertAt(ctx, tb, key, row); err != nil {
		return err
	}
	t.inserted(tb, valid, past)
	return nil
}

// insertAt writes row under key, which the transaction has locked and
// found free.
func (t *Txn) insertAt(ctx context.Context, tb *Table, key []byte, row sql.Row) error {
	val, err := t.encodeRow(tb, row)
	if err != nil {
		return err
	}
	if err := t.checkUniques(ctx, tb, nil, row, key[indexPrefixLen:], nil); err != nil {
		return err
	}
	if err := t.insertIndexes(tb, row, key); err != nil {
		return err
	}
	if err := t.set(key, val, nil, false); err != nil {
		return err
	}
	return t.record(RowChange{Table: tb, After: row})
}

// encodeRow encodes row into the transaction's scratch buffer, valid
// until its next encodeRow: the write that takes it (set) copies it into
// the batch and the undo log, so a bulk statement does not allocate (and
// grow) a new value per row.
func (t *Txn) encodeRow(tb *Table, row sql.Row) ([]byte, error) {
	v, err := keys.EncodeRow(t.rowBuf[:0], tb.Schema, row)
	if err != nil {
		return nil, err
	}
	t.rowBuf = v
	return v, nil
}

// insertIndexes writes row's secondary index entries; the caller has
// checked its unique values (checkUniques).
func (t *Txn) insertIndexes(tb *Table, row sql.Row, rowKey []byte) error {
	pkSuffix := rowKey[indexPrefixLen:]
	for _, ix := range tb.Indexes {
		k, _, _, err := tb.indexKey(ix, row, pkSuffix)
		if err != nil {
			return err
		}
		if err := t.set(k, pkSuffix, nil, false); err != nil {
			return err
		}
	}
	return nil
}

// checkUniques checks every unique index of tb before anything of row is
// written: it locks each unique value of row (whose entries would end in
// pkSuffix) and returns GMS's unique-key error for the first value another
// row holds. Entries ending in self are the row's own (an UPDATE rewriting
// it); with cur set, only the indexes whose key changes from cur are
// checked. A row refused here leaves no index entry behind: REPLACE, ON
// DUPLICATE KEY UPDATE and IGNORE go on with the statement after the
// error, and a half-written row would leave entries pointing at nothing.
func (t *Txn) checkUniques(ctx context.Context, tb *Table, cur, row sql.Row, pkSuffix, self []byte) error {
	for _, ix := range tb.Indexes {
		if !ix.Def.Unique {
			continue
		}
		k, plen, hasNull, err := tb.indexKey(ix, row, pkSuffix)
		if err != nil {
			return err
		}
		if hasNull {
			continue
		}
		if cur != nil {
			ok, _, _, err := tb.indexKey(ix, cur, pkSuffix)
			if err != nil {
				return err
			}
			if bytes.Equal(ok, k) {
				continue
			}
		}
		if err := t.checkUnique(ctx, tb, ix, k[:plen], row, self); err != nil {
			return err
		}
	}
	return nil
}

// checkUnique locks the unique value and fails if a row other than self
// (a primary-key suffix; nil for none) holds it.
func (t *Txn) checkUnique(ctx context.Context, tb *Table, ix *Index, prefix []byte, row sql.Row, self []byte) error {
	if err := t.lock(ctx, prefix); err != nil {
		return err
	}
	it, err := t.newIter(prefix, prefixEnd(prefix))
	if err != nil {
		return err
	}
	defer it.Close()
	valid := it.First()
	for valid && self != nil && bytes.Equal(it.Value(), self) {
		valid = it.Next()
	}
	if !valid {
		return readErr(it.Error())
	}
	existing, err := t.rowByPKSuffix(tb, it.Value())
	if err != nil {
		return err
	}
	return sql.NewUniqueKeyErr(UniqueKeyText(tb.keyString(ix.Ords, row), ix.Def.Name), false, existing)
}

// UniqueKeyText is the key text of a unique index's duplicate error,
// naming the index as MySQL's message does: GMS's error carries one
// string, which its messages quote (sqlerr's "Duplicate entry '%s'"
// makes it "Duplicate entry 'a@x.io' for key 'email'").
func UniqueKeyText(value, index string) string {
	return value + "' for key '" + index
}

func (t *Txn) rowByPKSuffix(tb *Table, suffix []byte) (sql.Row, error) {
	k := append(indexPrefix(nil, tb.Def.ID, 0), suffix...)
	v, ok, err := t.get(k)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("storage: index of %s points at missing row", tb.Def.Name)
	}
	return decodeRow(v, tb.Schema)
}

func (tb *Table) keyString(ords []int, row sql.Row) string {
	parts := make([]string, len(ords))
	for i, o := range ords {
		parts[i] = fmt.Sprint(row[o])
	}
	return strings.Join(parts, "-")
}

// findKey returns the storage key of an existing row, locked: its primary
// key, or for keyless tables the first row with identical content.
//
// For a table with a primary key the key's lock is taken before the read:
// a transaction whose commit is still completing (the replication
// applier's pipeline) holds the lock on the row it wrote, and reading
// first would miss that row and make the UPDATE or DELETE a silent no-op.
func (t *Txn) findKey(ctx context.Context, tb *Table, row sql.Row) ([]byte, []byte, error) {
	if !tb.Hidden {
		k, err := tb.PKKey(nil, row)
		if err != nil {
			return nil, nil, err
		}
		if err := t.lock(ctx, k); err != nil {
			return nil, nil, err
		}
		v, ok, err := t.lockedLookup(k)
		if err != nil || !ok {
			return nil, nil, err
		}
		return k, v, nil
	}
	want, err := keys.EncodeRow(nil, tb.Schema, row)
	if err != nil {
		return nil, nil, err
	}
	p := indexPrefix(nil, tb.Def.ID, 0)
	it, err := t.newIter(p, prefixEnd(p))
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		if !bytes.Equal(it.Value(), want) {
			continue
		}
		// Lock the row, then read it again: another transaction may have
		// changed or deleted it while this one waited for the lock (two
		// DELETE ... LIMIT 1 of identical rows); then the next identical
		// row is the one to change, as InnoDB's locking read moves on.
		k := append([]byte(nil), it.Key()...)
		if err := t.lock(ctx, k); err != nil {
			return nil, nil, err
		}
		v, ok, err := t.get(k)
		if err != nil {
			return nil, nil, err
		}
		if ok && bytes.Equal(v, want) {
			return k, v, nil
		}
	}
	return nil, nil, readErr(it.Error())
}

// Delete removes row (matched by primary key, or by content for keyless
// tables). Deleting a missing row is a no-op.
func (t *Txn) Delete(ctx context.Context, tb *Table, row sql.Row) error {
	if err := t.writable(); err != nil {
		return err
	}
	key, val, err := t.findKey(ctx, tb, row)
	if err != nil {
		return err
	}
	if key == nil {
		return t.missingRow(tb)
	}
	old, err := decodeRow(val, tb.Schema)
	if err != nil {
		return err
	}
	if err := t.deleteIndexes(tb, old, key); err != nil {
		return err
	}
	if err := t.delete(key, val); err != nil {
		return err
	}
	return t.record(RowChange{Table: tb, Before: old})
}

func (t *Txn) deleteIndexes(tb *Table, old sql.Row, rowKey []byte) error {
	pkSuffix := rowKey[indexPrefixLen:]
	for _, ix := range tb.Indexes {
		k, _, _, err := tb.indexKey(ix, old, pkSuffix)
		if err != nil {
			return err
		}
		if err := t.delete(k, pkSuffix); err != nil {
			return err
		}
	}
	return nil
}

// Update replaces old with new.
func (t *Txn) Update(ctx context.Context, tb *Table, old, new sql.Row) error {
	if err := t.writable(); err != nil {
		return err
	}
	key, val, err := t.findKey(ctx, tb, old)
	if err != nil {
		return err
	}
	if key == nil {
		return t.missingRow(tb)
	}
	return t.updateAt(ctx, tb, key, val, nil, new)
}

// UpdateRead is Update for an old row that GetRow or Point returned under
// the transaction's lock (a locking read) and that the caller has not
// modified since: when it is the row decoded from the version the
// transaction kept (lockedread.go), the stored row is not decoded again
// (its values become the change's before image). Any other old row is
// Update's.
func (t *Txn) UpdateRead(ctx context.Context, tb *Table, old, new sql.Row) error {
	if err := t.writable(); err != nil {
		return err
	}
	key, val, err := t.findKey(ctx, tb, old)
	if err != nil {
		return err
	}
	if key == nil {
		return t.missingRow(tb)
	}
	return t.updateAt(ctx, tb, key, val, t.keptRow(key, val, old), new)
}

// updateAt replaces the row stored under key (its current value val,
// the key locked by the transaction) with new. cur is val decoded, nil
// to decode it here.
func (t *Txn) updateAt(ctx context.Context, tb *Table, key, val []byte, cur, new sql.Row) error {
	var err error
	if cur == nil {
		if cur, err = keys.DecodeRowShared(val, tb.Schema, nil); err != nil {
			return err
		}
	}
	newKey := key
	if !tb.Hidden {
		if newKey, err = tb.PKKey(nil, new); err != nil {
			return err
		}
	}
	if !bytes.Equal(newKey, key) {
		// Primary key changed: delete then insert, with the duplicate check.
		if err := t.lock(ctx, newKey); err != nil {
			return err
		}
		if oldv, ok, err := t.lockedLookup(newKey); err != nil {
			return err
		} else if ok {
			existing, derr := decodeRow(oldv, tb.Schema)
			if derr != nil {
				return derr
			}
			return sql.NewUniqueKeyErr(tb.keyString(tb.Def.PK, new), true, existing)
		}
		oldSuffix := key[indexPrefixLen:]
		if err := t.checkUniques(ctx, tb, nil, new, newKey[indexPrefixLen:], oldSuffix); err != nil {
			return err
		}
		if err := t.deleteIndexes(tb, cur, key); err != nil {
			return err
		}
		if err := t.delete(key, val); err != nil {
			return err
		}
		if err := t.insertIndexes(tb, new, newKey); err != nil {
			return err
		}
		nv, err := t.encodeRow(tb, new)
		if err != nil {
			return err
		}
		if err := t.set(newKey, nv, nil, false); err != nil {
			return err
		}
		t.moved(newKey)
		pkSuffix := newKey[indexPrefixLen:]
		for _, ix := range tb.Indexes {
			if k, _, _, err := tb.indexKey(ix, new, pkSuffix); err == nil {
				t.moved(k)
			}
		}
		return t.record(RowChange{Table: tb, Before: cur, After: new})
	}
	pkSuffix := key[indexPrefixLen:]
	if err := t.checkUniques(ctx, tb, cur, new, pkSuffix, pkSuffix); err != nil {
		return err
	}
	for _, ix := range tb.Indexes {
		ok, _, _, err := tb.indexKey(ix, cur, pkSuffix)
		if err != nil {
			return err
		}
		nk, _, _, err := tb.indexKey(ix, new, pkSuffix)
		if err != nil {
			return err
		}
		if bytes.Equal(ok, nk) {
			continue
		}
		if err := t.delete(ok, pkSuffix); err != nil {
			return err
		}
		if err := t.set(nk, pkSuffix, nil, false); err != nil {
			return err
		}
		t.moved(nk)
	}
	nv, err := t.encodeRow(tb, new)
	if err != nil {
		return err
	}
	if err := t.set(key, nv, val, true); err != nil {
		return err
	}
	return t.record(RowChange{Table: tb, Before: cur, After: new})
}

// GetRow reads the row stored under the full primary key key (nil if
// none): a locking read (lock, then the latest version), a current read,
// or a consistent read through the read view (snapshot.go).
func (t *Txn) GetRow(ctx context.Context, tb *Table, key []byte) (sql.Row, error) {
	return t.getRow(ctx, tb, key, nil, true)
}

// getRow is GetRow; want (one flag per schema column, nil: all) names
// the columns a non-locking read decodes, the others left nil (a locking
// read decodes the whole row, which it keeps for UpdateRead). shared
// puts the row's text values in one allocation (keys.DecodeRowShared),
// for a read of one row, not a scan's.
func (t *Txn) getRow(ctx context.Context, tb *Table, key []byte, want []bool, shared bool) (sql.Row, error) {
	var (
		v   []byte
		ok  bool
		err error
	)
	switch {
	case t.lockingReads:
		if skip, err := t.readLock(ctx, key); err != nil || skip {
			return nil, err // a skipped row reads as absent
		}
		var slot *lockedRead
		if v, ok, slot, err = t.lockedGet(key); err != nil || !ok {
			return nil, err
		}
		row, err := decodeOne(v, tb.Schema, nil, shared)
		if slot != nil && err == nil {
			slot.row = row // for UpdateRead
		}
		return row, err
	case t.currentReads:
		v, ok, err = t.get(key)
	default:
		if err := t.checkTable(tb); err != nil {
			return nil, err
		}
		v, ok, err = t.readGet(key)
	}
	if err != nil || !ok {
		return nil, err
	}
	return decodeOne(v, tb.Schema, want, shared)
}

// decodeOne decodes a row read by key: the columns of want (nil: all),
// its text values in one allocation when shared.
func decodeOne(v []byte, sch sql.Schema, want []bool, shared bool) (sql.Row, error) {
	switch {
	case shared:
		return keys.DecodeRowShared(v, sch, want)
	case want != nil:
		return keys.DecodeRowColumns(v, sch, want)
	}
	return decodeRow(v, sch)
}

// RowCount counts the rows of tb (for information_schema / statistics).
func (t *Txn) RowCount(tb *Table) (uint64, error) {
	p := indexPrefix(nil, tb.Def.ID, 0)
	it, err := t.newIter(p, prefixEnd(p))
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var n uint64
	for it.First(); it.Valid(); it.Next() {
		n++
	}
	return n, readErr(it.Error())
}

// BuildIndex fills a newly added index from the table's rows.
func (t *Txn) BuildIndex(ctx context.Context, tb *Table, ix *Index) error {
	if err := t.writable(); err != nil {
		return err
	}
	t.dirtyTable(tb)
	p := indexPrefix(nil, tb.Def.ID, 0)
	it, err := t.newIter(p, prefixEnd(p))
	if err != nil {
		return err
	}
	defer it.Close()
	if !ix.Def.Unique {
		return t.buildBulk(it, tb, ix, len(p))
	}
	for it.First(); it.Valid(); it.Next() {
		row, err := decodeRow(it.Value(), tb.Schema)
		if err != nil {
			return err
		}
		pkSuffix := append([]byte(nil), it.Key()[len(p):]...)
		k, plen, hasNull, err := tb.indexKey(ix, row, pkSuffix)
		if err != nil {
			return err
		}
		if ix.Def.Unique && !hasNull {
			if err := t.checkUnique(ctx, tb, ix, k[:plen], row, nil); err != nil {
				return err
			}
		}
		if err := t.putEntry(k, pkSuffix); err != nil {
			return err
		}
	}
	return readErr(it.Error())
}

// putEntry writes index entry k (its value the row's primary-key
// suffix) into the transaction's batch.
func (t *Txn) putEntry(k, pkSuffix []byte) error {
	t.undelete(k)
	if err := t.noteLazy(k); err != nil {
		return err
	}
	return t.batch.Set(k, pkSuffix, nil)
}

// buildEntries writes a non-unique index's entry for each row it reads
// (the rows of tb, from the first, keys after a prefix of plen bytes).
// Only the index's columns are decoded, their values borrowed from the
// iterator's block until they are copied into the key, and one key
// buffer serves every row: the build decoded each whole row into new
// values and allocated two byte slices per row (ALTER TABLE ... ADD
// INDEX of 1M rows, issue 29).
func (t *Txn) buildEntries(it *pebble.Iterator, tb *Table, ix *Index, plen int) error {
	return indexEntries(it, tb, ix, plen, t.putEntry)
}

// indexEntries calls put with each row's entry of the non-unique index
// ix (its key, valid until the next call, and the row's primary-key
// suffix), the rows of tb from it, keys after a prefix of plen bytes.
func indexEntries(it *pebble.Iterator, tb *Table, ix *Index, plen int, put func(k, pkSuffix []byte) error) error {
	want := make([]bool, len(tb.Schema))
	for _, o := range ix.Ords {
		want[o] = true
	}
	var (
		row sql.Row
		k   []byte
		err error
	)
	for it.First(); it.Valid(); it.Next() {
		if row, err = keys.DecodeRowBorrowed(row, it.Value(), tb.Schema, want); err != nil {
			return err
		}
		pkSuffix := it.Key()[plen:]
		if k, err = tb.appendIndexKey(k[:0], ix, row, pkSuffix); err != nil {
			return err
		}
		if err := put(k, pkSuffix); err != nil {
			return err
		}
	}
	return readErr(it.Error())
}

// DropIndexData deletes every entry of index ix of tb.
func (t *Txn) DropIndexData(tb *Table, ix *Index) error {
	if ix == nil {
		return nil
	}
	if err := t.writable(); err != nil {
		return err
	}
	t.dirtyTable(tb)
	p := indexPrefix(nil, tb.Def.ID, ix.Def.ID)
	if err := t.indexNow(); err != nil {
		return err
	}
	t.rangeDeleted = true
	return t.batch.DeleteRange(p, prefixEnd(p), nil)
}

// Upsert inserts row, replacing a row with the same primary key: the
// idempotent write of log replay and replication appliers.
//
// One read of the primary key decides: the row found is updated in place,
// a free key is written without the second read Insert's duplicate check
// would make (findKey holds the key's lock, so it stays free).
func (t *Txn) Upsert(ctx context.Context, tb *Table, row sql.Row) error {
	if tb.Hidden {
		return t.Insert(ctx, tb, row)
	}
	if err := t.writable(); err != nil {
		return err
	}
	key, val, err := t.findKey(ctx, tb, row)
	if err != nil {
		return err
	}
	if key != nil {
		if t.strictRows {
			existing, derr := decodeRow(val, tb.Schema)
			if derr != nil {
				return derr
			}
			return sql.NewUniqueKeyErr(tb.keyString(tb.Def.PK, row), true, existing)
		}
		return t.updateAt(ctx, tb, key, val, nil, row)
	}
	if key, err = tb.PKKey(nil, row); err != nil {
		return err
	}
	return t.insertAt(ctx, tb, key, row)
}

// ErrRowNotFound is a strict transaction's UPDATE or DELETE of a row it
// does not hold (a replica whose rows diverged from its source: MySQL's
// 1032, HA_ERR_KEY_NOT_FOUND).
var ErrRowNotFound = errors.New("Can't find record")

// SetStrictRows makes Update and Delete of a missing row, and Upsert of an
// existing key, errors (ErrRowNotFound, a duplicate key) instead of
// no-ops and overwrites: the replica applier's replica_exec_mode=STRICT.
func (t *Txn) SetStrictRows(on bool) { t.strictRows = on }

// missingRow is Update's and Delete's answer when the row is not there.
func (t *Txn) missingRow(tb *Table) error {
	if t.strictRows {
		return fmt.Errorf("%w in '%s'", ErrRowNotFound, tb.Def.Name)
	}
	return nil
}
