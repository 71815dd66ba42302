package replica

import (
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"petrel/internal/base"
)

// pauseClock fires every timer at once and records the pauses asked for.
type pauseClock struct{ pauses []time.Duration }

func (c *pauseClock) Now() time.Time { return time.Unix(1000, 0) }
func (c *pauseClock) After(d time.Duration) <-chan time.Time {
	c.pauses = append(c.pauses, d)
	ch := make(chan time.Time, 1)
	ch <- time.Unix(1000, 0)
	return ch
}
func (c *pauseClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	return c.After(d), func() bool { return true }
}

// TestRetrying: a transaction failing on a lock wait timeout or a
// deadlock is applied again up to replica_transaction_retries times, with
// growing pauses, each retry counted; any other error, or the retries
// spent, ends it with the error's class (its MySQL number) kept; a stop
// ends the pauses.
func TestRetrying(t *testing.T) {
	timeout := base.Wrap(base.ClassLockTimeout, errors.New("lock wait timeout exceeded"), "storage")
	deadlock := base.Wrap(base.ClassDeadlock, errors.New("deadlock"), "storage")
	other := base.Wrap(base.ClassDuplicate, errors.New("duplicate"), "storage")
	for _, c := range []struct {
		name     string
		limit    uint64
		fails    []error // the attempts' errors, then success
		calls    int
		retried  uint64
		wantErr  base.Class // 0: success
		inVain   bool
		pauses   []time.Duration
		stopping bool
	}{
		{name: "cured", limit: 10, fails: []error{timeout, deadlock}, calls: 3, retried: 2, pauses: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}},
		{name: "not transient", limit: 10, fails: []error{other}, calls: 1, wantErr: base.ClassDuplicate},
		{name: "no retries", limit: 0, fails: []error{timeout}, calls: 1, wantErr: base.ClassLockTimeout},
		{name: "spent", limit: 12, fails: slices.Repeat([]error{timeout}, 13), calls: 13, retried: 12,
			wantErr: base.ClassLockTimeout, inVain: true},
		{name: "stopped", limit: 10, fails: []error{deadlock}, calls: 1, wantErr: base.ClassDeadlock, stopping: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := &pauseClock{}
			r := &Replica{opts: Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: clock}}
			s := DefaultSettings()
			s.TransactionRetries = c.limit
			r.Configure(s)
			stop := make(chan struct{})
			if c.stopping {
				close(stop)
				clock = nil
				r.opts.Clock = blockingClock{}
			}
			calls := 0
			err := r.retrying(stop, "g:1", func() error {
				calls++
				if calls <= len(c.fails) {
					return c.fails[calls-1]
				}
				return nil
			})
			if calls != c.calls || r.retriedTxns != c.retried {
				t.Errorf("%d calls, %d counted retries; want %d, %d", calls, r.retriedTxns, c.calls, c.retried)
			}
			switch {
			case c.wantErr == 0 && err != nil:
				t.Errorf("error %v, want success", err)
			case c.wantErr != 0 && (err == nil || base.ClassOf(err) != c.wantErr):
				t.Errorf("error %v (class %v), want class %v", err, base.ClassOf(err), c.wantErr)
			}
			if got := err != nil && strings.Contains(err.Error(), "retried transaction 12 time(s) in vain"); got != c.inVain {
				t.Errorf("error %v: says the retries were spent: %v, want %v", err, got, c.inVain)
			}
			if c.stopping && !errors.Is(err, errRetryStopped) {
				t.Errorf("stopped: error %v, want errRetryStopped", err)
			}
			if clock != nil && c.pauses != nil && !slices.Equal(clock.pauses, c.pauses) {
				t.Errorf("pauses %v, want %v", clock.pauses, c.pauses)
			}
		})
	}
	if p := retryPause(30); p != time.Second {
		t.Errorf("pause before retry 30: %v, want the 1 s cap", p)
	}
}

// blockingClock's timers never fire.
type blockingClock struct{}

func (blockingClock) Now() time.Time                       { return time.Unix(1000, 0) }
func (blockingClock) After(time.Duration) <-chan time.Time { return nil }
func (blockingClock) NewTimer(time.Duration) (<-chan time.Time, func() bool) {
	return nil, func() bool { return true }
}
