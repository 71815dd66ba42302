package storage

import (
	"bytes"
	"cmp"
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
	// Order the entries of equal abbreviations by their keys, and the
	// writes of one key in batch order (by their offsets: the radix sort
	// is in place, not stable).
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
			slices.SortFunc(ents[i:j], func(x, y sortEntry) int { return compareWrites(repr, &x, &y) })
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

// compareWrites orders two entries of equal abbreviations by key, then
// by their place in the batch.
func compareWrites(repr []byte, x, y *sortEntry) int {
	if c := compareEqualAbbr(repr, x, y); c != 0 {
		return c
	}
	return cmp.Compare(x.start, y.start)
}

// insertionSort sorts the few entries of equal abbreviations.
func insertionSort(repr []byte, a []sortEntry) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && compareWrites(repr, &a[j], &a[j-1]) < 0; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// radixSort sorts a by abbr, in place: a most-significant-byte-first
// radix sort (American flag sort), skipping the bytes that are the same
// in every entry of a bucket (the table and index ids of a bulk
// statement's keys). In place because a second array of the entries,
// which a stable least-significant-byte-first sort moves them through,
// was 72 MB at the commit of a 1M-row UPDATE (3M writes; issue 29).
func radixSort(a []sortEntry) {
	radixSortFrom(a, 7)
}

// radixSortFrom sorts a, whose abbreviations agree above byte b (0 the
// least significant), by abbr.
func radixSortFrom(a []sortEntry, b int) {
	for ; b >= 0 && len(a) > 1; b-- {
		if len(a) <= 32 {
			for i := 1; i < len(a); i++ {
				for j := i; j > 0 && a[j].abbr < a[j-1].abbr; j-- {
					a[j], a[j-1] = a[j-1], a[j]
				}
			}
			return
		}
		shift := 8 * b
		var counts [256]int
		for i := range a {
			counts[byte(a[i].abbr>>shift)]++
		}
		if counts[byte(a[0].abbr>>shift)] == len(a) {
			continue // one value of this byte: nothing to move
		}
		var next, ends [256]int
		n := 0
		for v := range counts {
			next[v] = n
			n += counts[v]
			ends[v] = n
		}
		// Each swap puts one entry into its bucket for good.
		for v := range next {
			for next[v] < ends[v] {
				d := byte(a[next[v]].abbr >> shift)
				if int(d) == v {
					next[v]++
					continue
				}
				a[next[v]], a[next[d]] = a[next[d]], a[next[v]]
				next[d]++
			}
		}
		if b > 0 {
			start := 0
			for v := range counts {
				if counts[v] > 1 {
					radixSortFrom(a[start:start+counts[v]], b-1)
				}
				start += counts[v]
			}
		}
		return
	}
}
