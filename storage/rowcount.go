package storage

import (
	"github.com/cockroachdb/pebble/v2"
)

// ApproxRows returns an approximate row count of tb (planner statistics).
// The first call estimates the table's rows from its sstables'
// properties (estimateEntries), and counts them one by one only when the
// estimate is under exactRowsBelow: the count read a whole table at its
// first plan after a restart (0.6 s for TPC-H's 600,000-row lineitem
// slice, hours for a table of terabytes).
func (e *Engine) ApproxRows(tb *Table) uint64 {
	tb.ctr.rowsOnce.Do(func() {
		p := indexPrefix(nil, tb.Def.ID, 0)
		if n, ok := e.estimateEntries(p, prefixEnd(p)); ok && n >= exactRowsBelow {
			tb.ctr.rows.Store(int64(n))
			return
		}
		it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
		if err != nil {
			return
		}
		var n int64
		for it.First(); it.Valid(); it.Next() {
			n++
		}
		it.Close()
		e.stats.RowCounts.Add(1)
		// Store, not Add: commits before this first count moved the
		// counter too, and the count already holds their rows.
		tb.ctr.rows.Store(n)
	})
	return uint64(max(tb.ctr.rows.Load(), 0))
}

// exactRowsBelow is the estimate under which ApproxRows counts a
// table's rows (about 50 ms of reading).
const exactRowsBelow = 50_000

// estimateEntries estimates the live entries in [lo, hi) from the
// sstables' properties: each sstable's entries less its deletions, in
// proportion to its bytes inside the span. Entries in memtables are not
// counted, and versions of one key not yet compacted together count
// once each: an estimate, as InnoDB's from sampled pages is.
func (e *Engine) estimateEntries(lo, hi []byte) (uint64, bool) {
	levels, err := e.db.SSTables(pebble.WithProperties(), pebble.WithKeyRangeFilter(lo, hi), pebble.WithApproximateSpanBytes())
	if err != nil {
		return 0, false
	}
	var n float64
	for _, level := range levels {
		for _, t := range level {
			if t.Properties == nil || t.Size == 0 || t.Properties.NumEntries <= t.Properties.NumDeletions {
				continue
			}
			live := float64(t.Properties.NumEntries - t.Properties.NumDeletions)
			n += live * min(1, float64(t.ApproximateSpanBytes)/float64(t.Size))
		}
	}
	return uint64(n), true
}

// RowsChanged returns how many row changes (inserts, updates, deletes)
// commits have made to tb since the server started; like the row count it
// survives DDL that republishes tb.
func (e *Engine) RowsChanged(tb *Table) uint64 { return tb.ctr.changed.Load() }
