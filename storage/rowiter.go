package storage

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
	"petrel/storage/keys"
)

// RowIter iterates rows of one index range in key order.
type RowIter struct {
	t       *Txn
	tb      *Table
	it      kvIter
	ixID    uint8
	primary bool
	cover   *coverPlan // set by Cover
	want    []bool     // set by Project
	pre     *prefilter // set by Prefilter
	reverse bool
	started bool
	ctx     context.Context
	// read counts the rows returned, added to the engine's RowsRead at
	// Close (one atomic add per scan, not per row) unless uncounted.
	read      uint64
	uncounted bool
	// decoded counts the rows decoded, vc the scan's ScanCache once
	// there were more than scanCacheAfter (scanCache).
	decoded int
	vc      *keys.ScanCache
	// A locking scan of the primary key (lockedread.go): fresh while its
	// entries are its rows' latest versions, given that no batch apply
	// began since gen and the transaction's batch is at mark; lo and hi
	// are its bounds, pos the key of the last row it returned, kept the
	// rows it took from the iterator (added to ScanRowsKept at Close).
	fresh  bool
	gen    uint64
	mark   int
	lo, hi []byte
	pos    []byte
	kept   uint64
}

// scanCacheAfter is how many rows a scan decodes before it keeps a
// keys.ScanCache (its value slots, 32 and 128 KiB, only for DECIMAL and
// DATE/DATETIME columns): short range reads never make one.
const scanCacheAfter = 64

// scanCache is the scan's ScanCache, nil for its first rows.
func (r *RowIter) scanCache() *keys.ScanCache {
	if r.vc == nil {
		if r.decoded++; r.decoded > scanCacheAfter {
			r.vc = new(keys.ScanCache)
		}
	}
	return r.vc
}

// Scan iterates the rows whose entries in index ixID (0 = primary) lie in
// [lo, hi). Bounds are full storage keys; nil means the whole index.
func (t *Txn) Scan(ctx context.Context, tb *Table, ixID uint8, lo, hi []byte, reverse bool) (*RowIter, error) {
	p := indexPrefix(nil, tb.Def.ID, ixID)
	if lo == nil {
		lo = p
	}
	if hi == nil {
		hi = prefixEnd(p)
	}
	var it kvIter
	var err error
	if t.consistent() {
		if err := t.checkTable(tb); err != nil {
			return nil, err
		}
		it, err = t.newReadIter(tb, ixID, lo, hi)
	} else {
		var gen uint64
		fresh := false
		if t.lockingReads && ixID == 0 {
			gen, fresh = t.e.applyQuiet()
		}
		it, err = t.newIter(lo, hi)
		if err != nil {
			return nil, err
		}
		if fresh {
			r := &RowIter{t: t, tb: tb, it: it, primary: true, reverse: reverse, ctx: ctx,
				fresh: true, gen: gen, mark: t.batchMark(), lo: lo, hi: hi}
			t.rows = append(t.rows, r)
			return r, nil
		}
	}
	if err != nil {
		return nil, err
	}
	r := &RowIter{t: t, tb: tb, it: it, ixID: ixID, primary: ixID == 0, reverse: reverse, ctx: ctx}
	t.rows = append(t.rows, r)
	return r, nil
}

// Point is GetRow: the one-Get path of primary-key equality lookups. A
// row found counts in the engine's RowsRead.
func (t *Txn) Point(ctx context.Context, tb *Table, key []byte) (sql.Row, error) {
	return t.PointColumns(ctx, tb, key, nil)
}

// PointColumns is Point decoding only the columns whose want entry is
// true (one per schema column; nil: all), the others nil: a select of a
// few columns of a wide row (TPC-C's customer, with its 500-byte c_data)
// skips building the rest. A locking read decodes the whole row (it is
// kept for UpdateRead). A want of the wrong length is an error.
func (t *Txn) PointColumns(ctx context.Context, tb *Table, key []byte, want []bool) (sql.Row, error) {
	if want != nil && len(want) != len(tb.Schema) {
		return nil, base.Errorf(base.ClassInternal, "storage: %d wanted flags for the %d columns of %s", len(want), len(tb.Schema), tb.Def.Name)
	}
	row, err := t.getRow(ctx, tb, key, want, true)
	if row != nil {
		t.e.stats.RowsRead.Add(1)
	}
	return row, err
}

// IndexKeyPrefix returns the key prefix of index ixID of tb.
func (tb *Table) IndexKeyPrefix(ixID uint8) []byte { return indexPrefix(nil, tb.Def.ID, ixID) }

// Next returns the next row, or nil at the end.
func (r *RowIter) Next() (sql.Row, error) {
	row, err := r.next()
	if row != nil {
		r.read++
	}
	return row, err
}

func (r *RowIter) next() (sql.Row, error) {
	if r.it == nil {
		return nil, base.Errorf(base.ClassInternal, "storage: row iterator of %s used after it was closed", r.tb.Def.Name)
	}
	for {
		if !r.step() {
			return nil, readErr(r.it.Error())
		}
		if r.t.lockingReads && r.t.writtenByStatement(r.it.Key()) {
			continue // this statement's own write: never revisit it
		}
		if r.cover != nil && !r.t.lockingReads {
			return r.cover.row(r.tb, r.it.Key(), r.it.Value())
		}
		var rowKey []byte
		if r.primary {
			rowKey = r.it.Key()
		} else {
			rowKey = append(indexPrefix(nil, r.tb.Def.ID, 0), r.it.Value()...)
		}
		if !r.primary || r.t.lockingReads {
			// Secondary entries point at the row; locking reads re-read
			// the latest version after the lock is granted, unless the
			// entry is known to be it (lockedread.go).
			rowKey = append([]byte(nil), rowKey...)
			var row sql.Row
			var err error
			if r.primary && r.t.lockingReads {
				row, err = r.lockedRow(rowKey)
				r.pos = rowKey
			} else {
				row, err = r.t.getRow(r.ctx, r.tb, rowKey, nil, false)
			}
			if err != nil {
				return nil, err
			}
			if row == nil {
				continue // deleted meanwhile
			}
			return row, nil
		}
		if r.pre != nil {
			ok, err := r.pre.passes(r.it.Value(), r.tb.Schema, r.scanCache())
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		return keys.DecodeRowLeading(r.it.Value(), r.tb.Schema, r.want, r.scanCache())
	}
}

// NextBorrowed is Next for callers that convert each row before they
// read the next: a row of a plain primary-key scan is decoded into dst's
// storage with its text values aliasing the iterator's buffer, valid only
// until the next call or Close (other scans return Next's rows).
func (r *RowIter) NextBorrowed(dst sql.Row) (sql.Row, error) {
	if r.it == nil || !r.primary || r.cover != nil || r.t.lockingReads || r.pre != nil {
		return r.Next()
	}
	if !r.step() {
		return nil, readErr(r.it.Error())
	}
	r.read++
	return keys.DecodeRowBorrowed(dst, r.it.Value(), r.tb.Schema, r.want)
}

// Raw reports whether NextRaw serves this iterator: a plain primary-key
// scan (no covering plan, no locking reads), whose entries are the rows.
func (r *RowIter) Raw() bool {
	return r.it != nil && r.primary && r.cover == nil && !r.t.lockingReads && r.pre == nil
}

// NextRaw returns the next row as stored (package keys' row format, for
// a keys.FieldDecoder), valid only until the next call or Close; nil at
// the end. Only for iterators that are Raw.
func (r *RowIter) NextRaw() ([]byte, error) {
	if !r.Raw() {
		return nil, base.Errorf(base.ClassInternal, "storage: raw rows of a scan of %s that is not a plain primary-key scan", r.tb.Def.Name)
	}
	if !r.step() {
		return nil, readErr(r.it.Error())
	}
	r.read++
	return r.it.Value(), nil
}

// step moves to the next entry in scan order; false at the end.
func (r *RowIter) step() bool {
	var ok bool
	switch {
	case !r.started && r.reverse:
		ok = r.it.Last()
	case !r.started:
		ok = r.it.First()
	case r.reverse:
		ok = r.it.Prev()
	default:
		ok = r.it.Next()
	}
	r.started = true
	return ok
}

// Close releases the iterator. It may be called more than once (the
// transaction's end closes iterators their users abandoned).
func (r *RowIter) Close() error {
	if r.it == nil {
		return nil
	}
	err := readErr(r.it.Close())
	r.it = nil
	if r.read > 0 && !r.uncounted {
		r.t.e.stats.RowsRead.Add(r.read)
	}
	if r.kept > 0 {
		r.t.e.stats.ScanRowsKept.Add(r.kept)
	}
	rows := r.t.rows
	for i, o := range rows {
		if o == r {
			r.t.rows = append(rows[:i], rows[i+1:]...)
			break
		}
	}
	return err
}

// Uncounted keeps this iterator's rows out of the engine's RowsRead (a
// statistics sample is not a read by a statement, as InnoDB's page
// sampling is not).
func (r *RowIter) Uncounted() { r.uncounted = true }

// closeRows closes the row iterators still open at the transaction's end.
func (t *Txn) closeRows() {
	for len(t.rows) > 0 {
		t.rows[len(t.rows)-1].Close()
	}
}
