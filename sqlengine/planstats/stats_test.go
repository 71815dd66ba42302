package planstats

import "testing"

// TestRefreshDue is InnoDB's 10% rule.
func TestRefreshDue(t *testing.T) {
	for _, tc := range []struct {
		analysed, changed uint64
		due               bool
	}{
		{0, 0, false}, {0, 1, true}, {100, 10, false}, {100, 11, true},
		{10000, 1000, false}, {10000, 1001, true},
	} {
		if got := refreshDue(tc.analysed, tc.changed); got != tc.due {
			t.Errorf("refreshDue(%d, %d) = %v, want %v", tc.analysed, tc.changed, got, tc.due)
		}
	}
}
