package collate

import (
	"sync"
	_ "unsafe" // go:linkname of GMS's collation table

	"github.com/dolthub/go-mysql-server/sql"
)

// Collation weights of the first 256 code points from a table. GMS
// compares, hashes, sorts and LIKE-matches strings rune by rune through
// the collation's Sorter, and utf8mb4_0900_ai_ci's (MySQL 8's default)
// looks every rune up in a map of 30,000 entries: a sixth of TPC-H Q16's
// time (its LIKE over part's types, its ORDER BY of brands and types).
// Each collation's Sorter is wrapped once per process (the table is
// GMS's, global) by one that answers ASCII and Latin-1 runes from a table
// the original built and asks the original for the rest: the same
// weights.

//go:linkname collationArray github.com/dolthub/go-mysql-server/sql.collationArray
var collationArray [324]sql.Collation

// tabledRunes is how many code points a sorter's table holds.
const tabledRunes = 0x100

var fastSortersOnce sync.Once

// installFastSorters wraps every collation's Sorter.
func InstallFastSorters() {
	fastSortersOnce.Do(func() {
		if !collationTableIsGMS() {
			return
		}
		for i := range collationArray {
			c := &collationArray[i]
			if c.Sorter == nil {
				continue
			}
			if fast, ok := tabledSorter(c.Sorter); ok {
				c.Sorter = fast
			}
		}
	})
}

// collationTableIsGMS reports whether collationArray is the table GMS
// reads through its public API, entry for entry (the go:linkname names
// a private variable of GMS: a GMS whose table changed shape or meaning
// keeps its own sorters rather than have this write elsewhere).
func collationTableIsGMS() bool {
	for i := range collationArray {
		c := &collationArray[i]
		id := sql.CollationID(i)
		if c.Name != id.Name() || c.CharacterSet != id.CharacterSet() {
			return false
		}
	}
	return sql.Collation_utf8mb4_0900_ai_ci.Name() == "utf8mb4_0900_ai_ci"
}

// tabledSorter is orig with its weights of the first tabledRunes code
// points in a table; false if orig cannot give them all.
func tabledSorter(orig sql.CollationSorter) (fast sql.CollationSorter, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	var table [tabledRunes]int32
	for r := range table {
		table[r] = orig(rune(r))
	}
	return func(r rune) int32 {
		if uint32(r) < tabledRunes {
			return table[r]
		}
		return orig(r)
	}, true
}

// The ASCII bytes' weights and folds of a collation, kept per collation
// for LIKE (likefast.go) and ORDER BY (sortcmp.go).
var (
	asciiFolds       sync.Map // sql.CollationID -> *[128]byte
	asciiWeightsByID sync.Map // sql.CollationID -> *[128]int32
)

// asciiWeights is coll's sorter's weights of the ASCII bytes; nil for a
// collation without a sorter.
func asciiWeights(coll sql.CollationID) *[128]int32 {
	if w, ok := asciiWeightsByID.Load(coll); ok {
		return w.(*[128]int32)
	}
	sorter := coll.Sorter()
	if sorter == nil {
		return nil
	}
	var w [128]int32
	for b := range w {
		w[b] = sorter(rune(b))
	}
	v, _ := asciiWeightsByID.LoadOrStore(coll, &w)
	return v.(*[128]int32)
}

// asciiFold is coll's table folding each ASCII byte to the smallest byte
// its sorter weighs alike; nil for a collation without a sorter.
func asciiFold(coll sql.CollationID) *[128]byte {
	if f, ok := asciiFolds.Load(coll); ok {
		return f.(*[128]byte)
	}
	weights := asciiWeights(coll)
	if weights == nil {
		return nil
	}
	var fold [128]byte
	first := map[int32]byte{}
	for b, w := range weights {
		if r, seen := first[w]; seen {
			fold[b] = r
		} else {
			first[w] = byte(b)
			fold[b] = byte(b)
		}
	}
	f, _ := asciiFolds.LoadOrStore(coll, &fold)
	return f.(*[128]byte)
}
