package storage

// movedSet holds the keys of one index (prefix: table and index id) the
// current statement moved rows or entries to. They are appended to
// pending, and put into keys, which maps each to the depth of the
// statement that last moved a row there, only once a scan of that index
// asks (writtenByStatement): an UPDATE of an indexed column over a scan
// of the primary key moves 300,000 entries of the secondary index that
// no scan of its looks up.
type movedSet struct {
	prefix  [indexPrefixLen]byte
	pending movedKeys
	keys    map[string]int
}

// movedKeys is a list of keys after one prefix, each with its
// statement depth, packed (issue 29 item 4): the keys' suffixes back to
// back in one arena and the depths as runs, about 14 bytes a key of a
// 1M-row UPDATE where a slice and a key of its own each took 60.
type movedKeys struct {
	arena []byte
	ends  []uint32     // ends[i]: where the i-th suffix ends in arena
	runs  []movedDepth // by from, ascending; the first from is 0
}

// movedDepth says the keys from index from on have depth depth (up to
// the next run's from).
type movedDepth struct{ from, depth int }

func (p *movedKeys) len() int { return len(p.ends) }

func (p *movedKeys) add(suffix []byte, depth int) {
	if n := len(p.runs); n == 0 || p.runs[n-1].depth != depth {
		p.runs = append(p.runs, movedDepth{len(p.ends), depth})
	}
	p.arena = append(p.arena, suffix...)
	p.ends = append(p.ends, uint32(len(p.arena)))
}

// each calls fn with every key's suffix (valid during the call) and
// depth, in the order added.
func (p *movedKeys) each(fn func(suffix []byte, depth int)) {
	r, start := 0, uint32(0)
	for i, end := range p.ends {
		for r+1 < len(p.runs) && p.runs[r+1].from <= i {
			r++
		}
		fn(p.arena[start:end], p.runs[r].depth)
		start = end
	}
}

// reset empties p, keeping nothing of its memory.
func (p *movedKeys) reset() { *p = movedKeys{} }

// moved records a key an UPDATE moved a row (or index entry) to.
func (t *Txn) moved(key []byte) {
	if len(key) < indexPrefixLen {
		return
	}
	ms := t.movedSetOf(key, true)
	ms.pending.add(key[indexPrefixLen:], t.stmtDepth)
}

// movedSetOf returns the set of key's index (nil if none and !create).
func (t *Txn) movedSetOf(key []byte, create bool) *movedSet {
	p := key[:indexPrefixLen]
	for i := range t.stmtKeys {
		if string(t.stmtKeys[i].prefix[:]) == string(p) {
			return &t.stmtKeys[i]
		}
	}
	if !create {
		return nil
	}
	t.stmtKeys = append(t.stmtKeys, movedSet{})
	ms := &t.stmtKeys[len(t.stmtKeys)-1]
	copy(ms.prefix[:], p)
	return ms
}

// forgetMoved drops the moves of statements at depth d and deeper.
func (t *Txn) forgetMoved(d int) {
	kept := t.stmtKeys[:0]
	for _, ms := range t.stmtKeys {
		if ms.pending.len() > 0 {
			var kept movedKeys
			ms.pending.each(func(suffix []byte, depth int) {
				if depth < d {
					kept.add(suffix, depth)
				}
			})
			ms.pending = kept
		}
		for k, v := range ms.keys {
			if v >= d {
				delete(ms.keys, k)
			}
		}
		if ms.pending.len() > 0 || len(ms.keys) > 0 {
			kept = append(kept, ms)
		}
	}
	clear(t.stmtKeys[len(kept):])
	t.stmtKeys = kept
}

// clearMoved forgets every move (a new statement starts).
func (t *Txn) clearMoved() {
	clear(t.stmtKeys)
	t.stmtKeys = t.stmtKeys[:0]
}

// writtenByStatement reports whether the current (innermost) statement
// moved a row to key.
func (t *Txn) writtenByStatement(key []byte) bool {
	if len(t.stmtKeys) == 0 || len(key) < indexPrefixLen {
		return false
	}
	ms := t.movedSetOf(key, false)
	if ms == nil {
		return false
	}
	if ms.pending.len() > 0 {
		if ms.keys == nil {
			ms.keys = make(map[string]int, ms.pending.len())
		}
		full := ms.prefix[:]
		ms.pending.each(func(suffix []byte, depth int) {
			full = append(full[:indexPrefixLen], suffix...)
			ms.keys[string(full)] = depth
		})
		ms.pending.reset()
	}
	d, ok := ms.keys[string(key)]
	return ok && d == t.stmtDepth
}
