package storage

// The transaction's change cache (issue 29). A transaction's row changes
// are what the sink logs at commit. Kept as row images (sql.Row values)
// they cost several times their logged size in Go objects until the
// commit, and a transaction of a million rows held gigabytes. A sink
// that implements ChangeCacher takes them as they are made instead, into
// a cache of its own (the binary log's transaction cache: encoded events
// in memory up to binlog_cache_size, in a temporary file past it, as
// MySQL does), and the transaction keeps only a count per table.

// ChangeCache receives one transaction's row changes in statement order.
// Not safe for concurrent use: its transaction drives it.
type ChangeCache interface {
	// Add records a change. An error fails the write that made it.
	Add(c RowChange) error
	// Mark is the cache's state now (a statement's start, a savepoint).
	Mark() CacheMark
	// Truncate forgets every change added after m.
	Truncate(m CacheMark) error
	// Close releases the cache's memory and files, after the commit
	// (the sink has logged it) or the rollback.
	Close() error
}

// CacheMark is a ChangeCache's position, opaque to storage.
type CacheMark struct{ A, B, C, D int64 }

// ChangeCacher is implemented by sinks that take a transaction's changes
// as it makes them (ChangeCache) instead of in CommitRecord.Changes.
type ChangeCacher interface {
	NewChangeCache() ChangeCache
}

// changeRun counts consecutive changes of one kind to one table: what
// the commit's table statistics need (countRuns) of changes that are
// in the sink's cache rather than in the transaction.
type changeRun struct {
	tb *Table
	// delta is the row count change of each change: +1 an insert, -1 a
	// delete, 0 an update.
	delta int8
	// counted: the changes count for the statistics (an update only
	// when it changes an indexed column, as InnoDB's
	// stat_modified_counter: keyColumnsDiffer).
	counted bool
	n       int64
}

// record adds a change to the transaction: to its sink's cache if the
// sink keeps one, else to changes.
func (t *Txn) record(c RowChange) error {
	if c.Table.Def.Temporary {
		// Never logged: a temporary table is the session's own.
		t.tempWrites = true
		return nil
	}
	if t.cache == nil {
		if p := t.e.cacher.Load(); p != nil {
			t.cache = (*p).NewChangeCache()
		}
	}
	if t.cache != nil {
		if err := t.cache.Add(c); err != nil {
			return err
		}
	} else {
		t.changes = append(t.changes, c)
	}
	t.nChanges++
	var d int8
	counted := true
	switch {
	case c.Before == nil:
		d = 1
	case c.After == nil:
		d = -1
	default:
		counted = c.Table.keyColumnsDiffer(c.Before, c.After)
	}
	if k := len(t.runs) - 1; k >= 0 && t.runs[k].tb == c.Table && t.runs[k].delta == d && t.runs[k].counted == counted {
		t.runs[k].n++
	} else {
		t.runs = append(t.runs, changeRun{tb: c.Table, delta: d, counted: counted, n: 1})
	}
	return nil
}

// truncateChanges forgets the changes recorded after m.
func (t *Txn) truncateChanges(m Mark) error {
	if m.changes >= t.nChanges {
		return nil
	}
	if t.cache != nil {
		if err := t.cache.Truncate(m.cache); err != nil {
			return err
		}
	}
	if m.changes < len(t.changes) {
		t.changes = t.changes[:m.changes]
	}
	t.nChanges = m.changes
	if m.runs < len(t.runs) {
		t.runs = t.runs[:m.runs]
	}
	if m.runs > 0 && m.runs <= len(t.runs) {
		t.runs[m.runs-1].n = m.runN
	}
	return nil
}

// countRuns adds committed changes to their tables' statistics.
func countRuns(runs []changeRun) {
	for _, r := range runs {
		if r.counted {
			r.tb.ctr.changed.Add(uint64(r.n))
		}
		r.tb.ctr.rows.Add(int64(r.delta) * r.n)
	}
}
