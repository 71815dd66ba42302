package storage

import (
	"encoding/binary"
	"math"

	"github.com/cockroachdb/pebble/v2"
)

// The comparer's abbreviated keys.
//
// A transaction's batch is indexed by a skiplist that orders its keys
// first by an abbreviated key, a uint64 taken from each key, and compares
// the keys themselves only when those are equal. Pebble's default takes
// the key's first eight bytes, which for a row or index entry are the
// data space, the table id (4 bytes), the index id and the first column's
// NULL tag: the same for every entry of one index, so every comparison of
// a bulk statement's keys (an INSERT of 300,000 rows puts 600,000 entries
// into its batch) was a full byte comparison. abbreviatedKey skips the
// table id's two high bytes when they are zero (table ids are counted
// from 1) and the space byte, so that it holds the first value's bytes:
// a 4-byte INT key whole. Keys sort exactly as before (the comparer is
// Pebble's bytewise one under its own name; only the in-memory index uses
// abbreviated keys), and the abbreviation is monotone, as Pebble requires
// (a < b implies abbreviatedKey(a) <= abbreviatedKey(b)):
//   - data keys of tables below 65,536 map to their bytes 3 to 10, which
//     compare as the keys do since bytes 0 to 2 are the same for all;
//   - every other key sorts before all of those (an empty key, metadata,
//     the prefixes 0x02 and 0x02 0x00) and maps to 0, or after them (a
//     larger table id, any key above the data space) and maps to the
//     largest value.

// comparer is Pebble's default comparer with abbreviatedKey.
var comparer = func() *pebble.Comparer {
	c := *pebble.DefaultComparer
	c.AbbreviatedKey = abbreviatedKey
	return &c
}()

func abbreviatedKey(key []byte) uint64 {
	if len(key) >= 3 && key[0] == spaceData && key[1] == 0 && key[2] == 0 {
		w := key[3:]
		if len(w) >= 8 {
			return binary.BigEndian.Uint64(w)
		}
		var v uint64
		for _, b := range w {
			v = v<<8 | uint64(b)
		}
		return v << (8 * (8 - len(w)))
	}
	switch {
	case len(key) == 0 || key[0] < spaceData:
		return 0
	case key[0] > spaceData || (len(key) >= 2 && key[1] > 0) || (len(key) >= 3 && key[2] > 0):
		return math.MaxUint64
	}
	return 0 // 0x02 or 0x02 0x00: before every data key
}
