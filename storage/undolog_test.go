package storage

import (
	"bytes"
	"fmt"
	"testing"
)

// TestUndoLogPacksAndTruncates: records read back as written, across
// chunks (one larger than a chunk), after truncations to any length.
func TestUndoLogPacksAndTruncates(t *testing.T) {
	var u undoLog
	var want []undoRec
	rec := func(i int) undoRec {
		r := undoRec{key: []byte(fmt.Sprintf("key-%d", i)), existed: i%3 != 0}
		if r.existed {
			r.prev = bytes.Repeat([]byte{byte(i)}, i%700)
		}
		if i == 1500 {
			r.prev = bytes.Repeat([]byte{7}, undoChunkMax+10)
		}
		return r
	}
	check := func() {
		t.Helper()
		if u.len() != len(want) {
			t.Fatalf("len %d, want %d", u.len(), len(want))
		}
		for i, w := range want {
			g := u.at(i)
			if !bytes.Equal(g.key, w.key) || !bytes.Equal(g.prev, w.prev) || g.existed != w.existed {
				t.Fatalf("record %d: %q/%d bytes/%v, want %q/%d bytes/%v", i, g.key, len(g.prev), g.existed, w.key, len(w.prev), w.existed)
			}
		}
	}
	for i := 0; i < 4000; i++ {
		r := rec(i)
		u.add(r.key, r.prev, r.existed)
		want = append(want, r)
	}
	check()
	if len(u.chunks) < 3 {
		t.Fatalf("%d chunks for %d records, want several", len(u.chunks), u.len())
	}
	for _, n := range []int{3999, 2500, 1501, 1500, 700, 1, 0} {
		u.truncate(n)
		want = want[:n]
		check()
		for i := n; i < n+50; i++ { // writes after a truncation land after it
			r := rec(i + 10000)
			u.add(r.key, r.prev, r.existed)
			want = append(want, r)
		}
		check()
		u.truncate(n)
		want = want[:n]
	}
}
