package lock

// table is a shard's set of entries by key: open addressing with linear
// probing over slots that keep each entry's hash beside it.
//
// A Go map keyed by the key string cost a transaction taking a new lock
// two probes (the lookup, then the insert) and a second hash of the key
// after the shard's; a bulk statement's 300,000 locks spent half of their
// time there (issue 29 item 3). Here the shard's hash is the table's, a
// lookup that misses returns the free slot its insert takes, and a probe
// compares stored hashes before it reads an entry's key.
//
// Removal shifts the entries that follow back (no tombstones), so a
// probe stops at the first empty slot. The table doubles past 3/4 full
// and, once large, is rebuilt smaller when a sixteenth of it is left: one
// transaction's million row locks must not keep their slots for the
// server's lifetime (issue 29). Not safe for concurrent use: the shard's
// mutex guards it.
type table struct {
	slots []slot // len a power of two, or nil
	n     int    // entries
}

type slot struct {
	hash uint64
	e    *entry // nil: empty
}

const (
	minSlots = 8
	// shrinkFrom is the size (slots) from which a table is rebuilt
	// smaller once a sixteenth of it holds entries.
	shrinkFrom = 4096
)

// home is the first slot of hash's probe sequence: the hash's bits above
// those that picked the shard.
func (t *table) home(hash uint64) int {
	return int(hash>>6) & (len(t.slots) - 1)
}

// find returns the entry for key (of hash hash), or nil and the free slot
// where insert puts a new one (-1 when the table must grow first).
func (t *table) find(hash uint64, key []byte) (*entry, int) {
	if t.n+1 > len(t.slots)*3/4 {
		if e, _ := t.probe(hash, key); e != nil {
			return e, -1
		}
		return nil, -1
	}
	return t.probe(hash, key)
}

func (t *table) probe(hash uint64, key []byte) (*entry, int) {
	if len(t.slots) == 0 {
		return nil, -1
	}
	mask := len(t.slots) - 1
	for i := t.home(hash); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.e == nil {
			return nil, i
		}
		if s.hash == hash && s.e.key == string(key) {
			return s.e, i
		}
	}
}

// insert adds e, whose key is not in the table, at slot free (find's
// answer; -1: anywhere, growing the table first if it must).
func (t *table) insert(free int, e *entry) {
	if free < 0 {
		if t.n+1 > len(t.slots)*3/4 {
			t.resize(max(minSlots, 2*len(t.slots)))
		}
		free = t.freeSlot(e.hash)
	}
	t.slots[free] = slot{e.hash, e}
	t.n++
}

// freeSlot returns the first empty slot of hash's probe sequence.
func (t *table) freeSlot(hash uint64) int {
	mask := len(t.slots) - 1
	i := t.home(hash)
	for t.slots[i].e != nil {
		i = (i + 1) & mask
	}
	return i
}

// remove takes e out of the table.
func (t *table) remove(e *entry) {
	mask := len(t.slots) - 1
	i := t.home(e.hash)
	for t.slots[i].e != e {
		i = (i + 1) & mask
	}
	// Shift back every following entry of the run that would no longer
	// be found past the hole (its home is not in (i, j]).
	for j := (i + 1) & mask; t.slots[j].e != nil; j = (j + 1) & mask {
		h := t.home(t.slots[j].hash)
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = slot{}
	t.n--
	if len(t.slots) >= shrinkFrom && t.n <= len(t.slots)/16 {
		size := minSlots
		for size*3/4 < 2*t.n {
			size *= 2
		}
		t.resize(size)
	}
}

// resize moves the entries into a table of size slots.
func (t *table) resize(size int) {
	old := t.slots
	t.slots = make([]slot, size)
	for _, s := range old {
		if s.e != nil {
			t.slots[t.freeSlot(s.hash)] = s
		}
	}
}
