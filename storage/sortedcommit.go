package storage

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
)

// Large commits hand Pebble their writes in key order (issue 29 item 3).
//
// Pebble applies a batch larger than about half a memtable as a memtable
// of its own (a "flushable batch"), for which it sorts the batch's
// entries by key with the comparer through sort.Interface: 0.37 s of a
// 300,000-row UPDATE's 2.8 s. Its sort is pattern-defeating quicksort,
// which checks the input in one pass and stops there when it is already
// in order. So a large commit builds a second batch holding the same
// writes sorted by key, at a fraction of that cost (a radix sort of the
// abbreviated keys, abbrev.go, comparing whole keys only between entries
// whose abbreviations are equal), and applies that one instead.
//
// The sorted batch keeps only the last write of each key. That is what
// every reader sees either way: Pebble publishes a batch's writes all at
// once (no snapshot or iterator can see some of its sequence numbers and
// not the others), so an earlier write of a key in the same batch is
// shadowed by the later one for every reader, and a flush drops it. It is
// also needed for the input to be in Pebble's order: Pebble orders the
// writes of one key newest first, while a batch must hold them oldest
// first (a write's sequence number is the batch's plus its position).
// Only batches of plain sets and deletions take this route: a range
// deletion covers the keys written before it in the batch and not those
// after, and other kinds (merges, single deletions) do not simply shadow
// older writes. The WAL, and so recovery, gets the sorted batch, whose
// contents are the same writes.

// sortedBatch returns a new batch holding b's writes in key order, the
// last write of each key only, for the caller to apply instead of b and
// close; nil when b is too small for Pebble to sort it (or holds other
// kinds of entries than sets and deletions), to be applied as it is.
func (e *Engine) sortedBatch(b *pebble.Batch) *pebble.Batch {
	if !sortLargeCommits {
		return nil
	}
	repr := b.Repr()
	// A batch's size in a memtable is more than its repr's, so this is
	// at or above Pebble's large-batch threshold (about half a memtable).
	if uint64(len(repr)) < e.opts.MemTableSize/2 {
		return nil
	}
	data, ok := sortRepr(repr)
	if !ok {
		return nil
	}
	nb := e.db.NewBatch()
	if err := nb.SetRepr(data); err != nil {
		nb.Close()
		return nil
	}
	return nb
}

// sortLargeCommits turns the sorted route on; tests turn it off to
// compare with Pebble's own sort.
var sortLargeCommits = true

// sortRepr returns a new batch repr of repr's writes sorted by key, the
// last write of each key only; false if repr holds other kinds than sets
// and deletions or does not decode.
func sortRepr(repr []byte) ([]byte, bool) {
	kept, ok := sortedEntries(repr)
	if !ok {
		return nil, false
	}
	size := batchrepr.HeaderLen
	for i := range kept {
		size += int(kept[i].end - kept[i].start)
	}
	out := make([]byte, batchrepr.HeaderLen, size)
	for i := range kept {
		out = append(out, repr[kept[i].start:kept[i].end]...)
	}
	batchrepr.SetCount(out, uint32(len(kept)))
	return out, true
}

// sortedEntries returns the entries of repr's writes sorted by key, the
// last write of each key only; false if repr holds other kinds than sets
// and deletions or does not decode.
func sortedEntries(repr []byte) ([]sortEntry, bool) {
	h, ok := batchrepr.ReadHeader(repr)
	if !ok || h.Count == 0 || len(repr) >= 1<<32 {
		return nil, false
	}
	ents := make([]sortEntry, 0, h.Count)
	r := batchrepr.Read(repr)
	for len(r) > 0 {
		start := uint32(len(repr) - len(r))
		kind, key, _, ok, err := r.Next()
		if err != nil || !ok {
			return nil, false
		}
		if kind != pebble.InternalKeyKindSet && kind != pebble.InternalKeyKindDelete {
			return nil, false
		}
		ents = append(ents, sortEntry{abbr: abbreviatedKey(key), next: nextKeyBytes(key), start: start, end: uint32(len(repr) - len(r))})
	}
	if len(ents) != int(h.Count) {
		return nil, false
	}
	radixSort(ents)
	// Entries of equal abbreviations are in batch order (the radix sort
	// is stable): order them by their keys, stably, so that the writes of
	// one key stay in batch order.
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && ents[j].abbr == ents[i].abbr {
			j++
		}
		switch {
		case j-i > 16:
			// Keys sharing their first bytes past the abbreviation's (an
			// index of zero-padded numbers, of URLs): an insertion sort
			// of them would take quadratic time.
			slices.SortStableFunc(ents[i:j], func(x, y sortEntry) int { return compareEqualAbbr(repr, &x, &y) })
		case j-i > 1:
			insertionSort(repr, ents[i:j])
		}
		i = j
	}
	// Keep the last write of each key.
	kept := ents[:0]
	for i := range ents {
		if i+1 < len(ents) && ents[i+1].abbr == ents[i].abbr && compareEqualAbbr(repr, &ents[i], &ents[i+1]) == 0 {
			continue
		}
		kept = append(kept, ents[i])
	}
	return kept, true
}

// sortEntry is one write of a batch repr, whose record is
// repr[start:end]: its key's abbreviation (abbrev.go) and the key's eight
// bytes after those the abbreviation holds (nextKeyBytes).
type sortEntry struct {
	abbr, next uint64
	start, end uint32
}

// nextKeyBytes returns the key's bytes 11 to 18, zero-padded, as a
// big-endian number: for a data key whose abbreviation holds its bytes 3
// to 10, they order it among the keys of equal abbreviations (a
// secondary index entry's primary key) without a read of the keys in
// the batch, at random places.
func nextKeyBytes(key []byte) uint64 {
	if len(key) <= 11 {
		return 0
	}
	w := key[11:]
	if len(w) >= 8 {
		return binary.BigEndian.Uint64(w)
	}
	var v uint64
	for _, b := range w {
		v = v<<8 | uint64(b)
	}
	return v << (8 * (8 - len(w)))
}

// compareEqualAbbr compares the keys of two entries of equal
// abbreviations. An abbreviation other than 0 and the largest value is
// a data key's bytes 3 to 10 (abbrev.go), and both keys have the same
// bytes 0 to 10 (but for a key shorter than 11 bytes, which is padded
// with zeros: its next bytes are 0, and it is a prefix of the other or
// equal), so their next bytes order them unless equal; otherwise the
// keys are compared as they are.
func compareEqualAbbr(repr []byte, x, y *sortEntry) int {
	if x.abbr != 0 && x.abbr != math.MaxUint64 && x.next != y.next {
		if x.next < y.next {
			return -1
		}
		return 1
	}
	return bytes.Compare(entryKey(repr, x), entryKey(repr, y))
}

// entryKey returns the key of e's record: after its kind byte, the key's
// length as a varint, then the key.
func entryKey(repr []byte, e *sortEntry) []byte {
	rec := repr[e.start+1 : e.end]
	n, l := binary.Uvarint(rec)
	return rec[l : l+int(n)]
}

// insertionSort sorts the few entries of equal abbreviations, stably.
func insertionSort(repr []byte, a []sortEntry) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && compareEqualAbbr(repr, &a[j], &a[j-1]) < 0; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// radixSort sorts a by abbr, stably: a least-significant-byte-first
// radix sort, skipping the bytes that are the same in every entry (the
// table and index ids of a bulk statement's keys).
func radixSort(a []sortEntry) {
	var counts [8][256]int
	for i := range a {
		x := a[i].abbr
		for b := 0; b < 8; b++ {
			counts[b][byte(x>>(8*b))]++
		}
	}
	tmp := make([]sortEntry, len(a))
	src, dst := a, tmp
	for b := 0; b < 8; b++ {
		c := &counts[b]
		shift := 8 * b
		if c[byte(src[0].abbr>>shift)] == len(src) {
			continue // one value of this byte: the pass would not move anything
		}
		var offs [256]int
		n := 0
		for v := range c {
			offs[v] = n
			n += c[v]
		}
		for i := range src {
			v := byte(src[i].abbr >> shift)
			dst[offs[v]] = src[i]
			offs[v]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}
