package planstats

import (
	"testing"
	"time"
)

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

// TestRefreshIntervalBoundsTheCost: an analysis that took longer than
// MinInterval/costFactor holds the next one off for costFactor times its
// cost, so automatic analyses take at most 1/costFactor of a core.
func TestRefreshIntervalBoundsTheCost(t *testing.T) {
	for _, tc := range []struct {
		cost, want time.Duration
	}{
		{0, MinInterval}, {50 * time.Millisecond, MinInterval}, {MinInterval / costFactor, MinInterval},
		{time.Second, 50 * time.Second}, {3 * time.Second, 150 * time.Second},
	} {
		if got := refreshInterval(tc.cost); got != tc.want {
			t.Errorf("refreshInterval(%v) = %v, want %v", tc.cost, got, tc.want)
		}
		if tc.cost > 0 && float64(tc.cost)/float64(refreshInterval(tc.cost)) > 1.0/costFactor+1e-9 {
			t.Errorf("an analysis of %v every %v is more than 1/%d of a core", tc.cost, refreshInterval(tc.cost), costFactor)
		}
	}
}
