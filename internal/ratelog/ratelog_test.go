package ratelog

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAllowOncePerIntervalPerCause drives the core with explicit times: a
// cause logs at most once per interval, the next line carries the count
// held back, and causes do not hold each other back.
func TestAllowOncePerIntervalPerCause(t *testing.T) {
	l := New(time.Second, nil)
	t0 := time.Unix(1000, 0)
	type step struct {
		at         time.Duration
		cause      string
		ok         bool
		suppressed int
	}
	for i, s := range []step{
		{0, "a", true, 0},
		{10 * time.Millisecond, "a", false, 0},
		{20 * time.Millisecond, "b", true, 0}, // another cause is not held back
		{500 * time.Millisecond, "a", false, 0},
		{999 * time.Millisecond, "a", false, 0},
		{time.Second, "a", true, 3}, // three held back since
		{1500 * time.Millisecond, "a", false, 0},
		{5 * time.Second, "a", true, 1},
		{5 * time.Second, "b", true, 0},
	} {
		ok, n := l.Allow(s.cause, t0.Add(s.at))
		if ok != s.ok || n != s.suppressed {
			t.Errorf("step %d (%v, %s): Allow = %v, %d; want %v, %d", i, s.at, s.cause, ok, n, s.ok, s.suppressed)
		}
	}
}

// TestLogFloodIsBounded: 10,000 lines for one cause over a simulated 10 s
// give at most 11 lines, whose suppressed counts add up to the rest.
func TestLogFloodIsBounded(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	now := time.Unix(0, 0)
	l := New(time.Second, func() time.Time { return now })
	const n = 10_000
	for i := range n {
		now = time.Unix(0, 0).Add(time.Duration(i) * time.Millisecond)
		l.Log(logger, slog.LevelError, Cause("pebble", fmt.Errorf("creating object %06d: %w", i, &os.PathError{Op: "open", Path: fmt.Sprintf("/d/%06d.sst", i), Err: syscall.ENOENT})), "pebble: background error")
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) < 10 || len(lines) > 11 {
		t.Fatalf("%d lines for %d errors over 10 s, want 10 or 11:\n%s", len(lines), n, buf.String())
	}
	total := len(lines)
	for _, ln := range lines[1:] {
		var k int
		if _, err := fmt.Sscanf(ln[strings.Index(ln, "suppressed=")+len("suppressed="):], "%d", &k); err != nil {
			t.Fatalf("line without a suppressed count: %s", ln)
		}
		total += k
	}
	// The last second's held-back lines are reported by the next line.
	if total > n || total < n-1000 {
		t.Errorf("lines written plus suppressed = %d, want about %d", total, n)
	}
}

func TestCause(t *testing.T) {
	a := Cause("p", fmt.Errorf("creating object 000014: %w", &os.PathError{Op: "open", Path: "/d/000014.sst", Err: syscall.ENOENT}))
	b := Cause("p", fmt.Errorf("creating object 000015: %w", &os.PathError{Op: "open", Path: "/d/000015.sst", Err: syscall.ENOENT}))
	c := Cause("p", fmt.Errorf("write: %w", syscall.EIO))
	if a != b || a == c {
		t.Errorf("causes %q, %q, %q: want the first two equal, the third different", a, b, c)
	}
	if x, y := Cause("p", fmt.Errorf("job 12 failed")), Cause("p", fmt.Errorf("job 345 failed")); x != y {
		t.Errorf("digits not folded: %q vs %q", x, y)
	}
}
