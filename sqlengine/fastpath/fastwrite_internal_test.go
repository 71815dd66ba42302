package fastpath

import (
	"fmt"
	"testing"
)

// TestUpdateInfo: the info text of an UPDATE's OK, from the table of
// small counts or formatted, is MySQL's wording with the counts.
func TestUpdateInfo(t *testing.T) {
	for m := uint64(0); m < 40; m++ {
		for c := uint64(0); c <= m; c++ {
			want := fmt.Sprintf("Rows matched: %d  Changed: %d  Warnings: 0", m, c)
			if got := updateInfo(m, c); got != want {
				t.Fatalf("updateInfo(%d, %d) = %q, want %q", m, c, got, want)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = updateInfo(10, 9) }); n != 0 {
		t.Fatalf("updateInfo(10, 9): %v allocations, want 0", n)
	}
}

// TestWantColumns: the flags of a projection, nil when it names every
// column.
func TestWantColumns(t *testing.T) {
	if w := wantColumns([]int{2, 0, 2}, 4); fmt.Sprint(w) != "[true false true false]" {
		t.Fatalf("wantColumns([2 0 2], 4) = %v", w)
	}
	if w := wantColumns([]int{1, 0, 2}, 3); w != nil {
		t.Fatalf("every column wanted: %v, want nil", w)
	}
	if w := wantColumns([]int{0, 0, 1}, 3); fmt.Sprint(w) != "[true true false]" {
		t.Fatalf("wantColumns([0 0 1], 3) = %v", w)
	}
}
