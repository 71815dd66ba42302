package labrun

import (
	"strings"
	"testing"
	"time"
)

// TestProgressPlainLines: off a terminal, a phase is one line at its
// start and one at its end, with the time it took.
func TestProgressPlainLines(t *testing.T) {
	var b strings.Builder
	p := NewProgress(&b)
	if p.tty {
		t.Fatal("a strings.Builder taken for a terminal")
	}
	done := p.Phase("catch-up petrel r1: burst", time.Second)
	done()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "  catch-up petrel r1: burst ...") ||
		!strings.Contains(lines[1], "  catch-up petrel r1: burst done in ") {
		t.Errorf("lines %q", lines)
	}
	if strings.Contains(b.String(), "\r") || strings.Contains(b.String(), "\033") {
		t.Errorf("terminal control characters off a terminal: %q", b.String())
	}
}

// TestProgressBar: the bar fills with elapsed time against the plan and
// stops at 100%; without a plan it shows the elapsed time alone.
func TestProgressBar(t *testing.T) {
	for _, tc := range []struct {
		elapsed, planned time.Duration
		want             string
	}{
		{0, 4 * time.Second, "[>                        ]   0% x 0s/4s"},
		{time.Second, 4 * time.Second, "[======>                  ]  25% x 1s/4s"},
		{8 * time.Second, 4 * time.Second, "[========================>] 100% x 8s/4s"},
		{1500 * time.Millisecond, 0, "[........] x 1.5s"},
	} {
		if got := bar("x", tc.elapsed, tc.planned); got != tc.want {
			t.Errorf("bar(%v, %v) = %q, want %q", tc.elapsed, tc.planned, got, tc.want)
		}
	}
}
