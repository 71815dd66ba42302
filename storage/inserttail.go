package storage

// Inserts past a table's last key.
//
// Insert checks that no row holds the new row's primary key: a Get
// through the batch, every memtable and level, which in a bulk load into
// a table's empty key range always misses. The transaction reads the
// table's largest primary key as it sees it, the tail (one reverse
// seek), and a key past the tail is known to be free without the Get
// when all of these hold:
//   - no transaction batch was applied to Pebble since the tail was read
//     (Engine.noApplySince): a row committed since might lie past it. A
//     row another transaction inserted and has not committed holds its
//     key's lock, which Insert takes before it checks, and is applied
//     before that lock is released, so by the check it is either counted
//     as an apply or gone (rolled back);
//   - the lock Insert took on the key is new to the transaction
//     (lock.Manager.AcquireNew): every write of a row key is made under
//     its lock and locks are held to the end, so the transaction has not
//     written the key, since the tail was read or ever;
//   - the transaction's batch changed since only by writes of single
//     keys (set and delete: their keys are locked first), as the locked
//     reads of lockedread.go track it (batchMark); any other change
//     (a rollback to a savepoint, DDL) leaves the tail stale.
// The tail is read only once tailAfter inserts into one table found their
// key free by a Get since it was last valid, so that a transaction of a
// few inserts never pays the seek; when a tail went stale before it
// spared a single Get, the next read waits twice as long.

// tailAfter is how many inserts into a table read their key before the
// transaction reads the table's tail; maxTailAfter bounds its doubling.
const (
	tailAfter    = 32
	maxTailAfter = 1 << 16
)

type insertTail struct {
	table uint32
	valid bool
	last  []byte // the table's largest primary key, or its index prefix when empty
	gen   uint64 // Engine.applyQuiet's count when read
	mark  int    // batchMark when read, carried by noteWrite
	// read counts the inserts into table that read their key since the
	// tail was last valid; at after, the tail is read. served counts the
	// inserts the current tail spared a read, skipped all of them (added
	// to the engine's InsertChecksSkipped when the tail is dropped).
	read, after int
	served      int
	skipped     uint64
}

// tailValid reports whether the transaction's tail of tb is valid now
// (Insert asks with the new key's lock held).
func (t *Txn) tailValid(tb *Table) bool {
	tl := &t.tail
	if !tl.valid {
		return false
	}
	if tl.table == tb.Def.ID && tl.mark == t.batchMark() && t.e.noApplySince(tl.gen) {
		return true
	}
	tl.valid, tl.read = false, 0
	if tl.served == 0 {
		tl.after = min(tl.after*2, maxTailAfter)
	}
	return false
}

// inserted is called after Insert wrote a row of tb: valid is
// tailValid's answer before the write, past that the key was past the
// tail (Insert did not read it).
func (t *Txn) inserted(tb *Table, valid, past bool) {
	tl := &t.tail
	if past {
		tl.served++
		tl.skipped++
	}
	if valid {
		return
	}
	if tl.after == 0 || tl.table != tb.Def.ID {
		t.forgetTail()
		*tl = insertTail{table: tb.Def.ID, after: tailAfter}
	}
	if tl.read++; tl.read < tl.after {
		return
	}
	gen, quiet := t.e.applyQuiet()
	if !quiet {
		return // a commit is being applied: try again at the next insert
	}
	p := indexPrefix(nil, tb.Def.ID, 0)
	var last []byte
	if t.lazy {
		var err error
		if last, err = t.lazyTail(tb.Def.ID, p); err != nil {
			return
		}
	} else {
		it, err := t.newIter(p, prefixEnd(p))
		if err != nil {
			return
		}
		last = p
		if it.Last() {
			last = append([]byte(nil), it.Key()...)
		}
		if err := it.Error(); err != nil {
			it.Close()
			return
		}
		if err := it.Close(); err != nil {
			return
		}
	}
	tl.valid, tl.last, tl.gen, tl.mark = true, last, gen, t.batchMark()
	tl.read, tl.served = 0, 0
}

// forgetTail drops the tail (the transaction ended, or inserts into
// another table).
func (t *Txn) forgetTail() {
	if t.tail.skipped > 0 {
		t.e.stats.InsertChecksSkipped.Add(t.tail.skipped)
	}
	t.tail = insertTail{}
}
