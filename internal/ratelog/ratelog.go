// Package ratelog keeps a log line that repeats to at most one per
// interval per cause, and counts the lines it held back, so that a fault
// that repeats (a failing disk retried by a background job, a client
// retrying a refused write) is reported without flooding the log.
//
// The Limiter is a deterministic core: Allow takes the time; Log is the
// shell that reads the clock and writes to a slog.Logger.
package ratelog

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"time"
)

// maxCauses bounds the causes a Limiter remembers; beyond it, causes not
// seen for an interval are forgotten.
const maxCauses = 256

// Limiter decides per cause whether a line may be written. Safe for
// concurrent use.
type Limiter struct {
	interval time.Duration
	now      func() time.Time

	mu     sync.Mutex
	causes map[string]*cause // guarded by mu
}

type cause struct {
	last       time.Time // when the last line was written
	suppressed int       // lines held back since
}

// New returns a Limiter allowing one line per interval per cause, reading
// the time from now (nil: the wall clock); an interval <= 0 means one
// second.
func New(interval time.Duration, now func() time.Time) *Limiter {
	if interval <= 0 {
		interval = time.Second
	}
	if now == nil {
		now = time.Now
	}
	return &Limiter{interval: interval, now: now, causes: map[string]*cause{}}
}

// Allow reports whether a line for cause may be written at now, and how
// many lines for it were held back since the last one written (to be
// reported with this one).
func (l *Limiter) Allow(key string, now time.Time) (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.causes[key]
	if c == nil {
		if len(l.causes) >= maxCauses {
			l.forget(now)
		}
		c = &cause{}
		l.causes[key] = c
	} else if now.Sub(c.last) < l.interval {
		c.suppressed++
		return false, 0
	}
	suppressed, c.suppressed, c.last = c.suppressed, 0, now
	return true, suppressed
}

// forget drops causes quiet for an interval (their held-back count is
// lost: nothing new was said for them). Caller holds mu.
func (l *Limiter) forget(now time.Time) {
	for k, c := range l.causes {
		if now.Sub(c.last) >= l.interval {
			delete(l.causes, k)
		}
	}
}

// Log writes msg with args at level unless a line for cause was written
// within the interval; when lines were held back, it adds
// "suppressed", their number.
func (l *Limiter) Log(logger *slog.Logger, level slog.Level, key, msg string, args ...any) {
	if !logger.Enabled(context.Background(), level) {
		return
	}
	ok, n := l.Allow(key, l.now())
	if !ok {
		return
	}
	if n > 0 {
		args = append(args, "suppressed", n)
	}
	logger.Log(context.Background(), level, msg, args...)
}

// Cause is a cause key for err under prefix: the operating-system error
// it carries (so "creating object 000014: ...: no such file or directory"
// and the same for 000015 are one cause), else its text with runs of
// digits folded to one '#'.
func Cause(prefix string, err error) string {
	if err == nil {
		return prefix
	}
	var no syscall.Errno
	if errors.As(err, &no) {
		return prefix + "|errno " + no.Error()
	}
	return prefix + "|" + foldDigits(err.Error())
}

func foldDigits(s string) string {
	var b strings.Builder
	digit := false
	for _, r := range s {
		if r >= '0' && r <= '9' {
			if !digit {
				b.WriteByte('#')
			}
			digit = true
			continue
		}
		digit = false
		b.WriteRune(r)
	}
	return b.String()
}
