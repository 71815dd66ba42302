package replica

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"time"

	"petrel/internal/base"
)

// Asynchronous connection failover (MySQL 8.0.22): with
// SOURCE_CONNECTION_AUTO_FAILOVER=1 the receiver chooses its source from
// the channel's source list (asynchronous_connection_failover_add_source).
// Failover is the decision core: a plain struct, no goroutines, sockets or
// clocks; the receiver (failover_shell.go) feeds it events and acts on the
// decisions it returns. Scenario tests: testdata/failover.
//
// The policy, MySQL's where MySQL has one:
//   - A link that fails is retried on the same source SOURCE_RETRY_COUNT
//     times, SOURCE_CONNECT_RETRY apart; then the receiver fails over.
//   - Failing over tries the other sources in descending weight, one
//     attempt each, at once; when every source failed once it waits
//     SOURCE_CONNECT_RETRY and starts again from the highest weight.
//     Equal weights go in list order (MySQL orders them at random; Petrel
//     stays deterministic).
//   - A fatal error from a source (error 1236: it lacks what the replica
//     needs; equal server ids) fails over at once, without retries.
//   - A working source is kept when a higher-weighted one comes back, as
//     MySQL does for sources outside a managed group.
//   - Petrel's addition: a connected source that stays more than
//     LagTransactions transactions behind another listed source for
//     LagFor is left for that source (the highest-weighted of those
//     ahead), as a relay that stopped receiving would otherwise hold its
//     replicas back forever without ever failing.
//
// Failover is not safe for concurrent use.
type Failover struct {
	opts    FailoverOptions
	list    []FailoverSource
	current FailoverSource
	// connected: the link to current streams.
	connected bool
	// failures counts failed attempts on current in a row.
	failures int
	// round holds the sources tried since the failover began (nil: not
	// failing over).
	round map[string]bool
	seen  map[string]observation
	// behind: since when current has been more than LagTransactions
	// behind each source (absent: not behind it).
	behind   map[string]time.Time
	switches FailoverCounts
}

// FailoverSource is one entry of a channel's source list
// (performance_schema.replication_asynchronous_connection_failover).
type FailoverSource struct {
	Host             string `json:"host"`
	Port             int    `json:"port"`
	NetworkNamespace string `json:"network_namespace,omitempty"`
	// Weight is 1..100, higher preferred (MySQL's default 50).
	Weight int `json:"weight"`
}

// Addr is host:port, the source's identity in the list.
func (s FailoverSource) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// FailoverOptions are the policy's thresholds.
type FailoverOptions struct {
	// RetryCount is SOURCE_RETRY_COUNT: retries on the same source before
	// failing over.
	RetryCount int
	// ConnectRetry is SOURCE_CONNECT_RETRY: the wait between attempts on
	// one source, and after a round in which every source failed.
	ConnectRetry time.Duration
	// LagTransactions: the current source is left when another listed
	// source holds more than this many transactions it lacks for LagFor
	// (replica_failover_lag_transactions; 0 turns the check off).
	LagTransactions int64
	// LagFor is replica_failover_lag_seconds.
	LagFor time.Duration
	// StaleAfter: an observation of another source older than this is
	// ignored. Default 3 s.
	StaleAfter time.Duration
}

// FailoverAction is what the receiver does next.
type FailoverAction int

const (
	// Stay keeps the link (or, after Connected, streams).
	Stay FailoverAction = iota
	// Retry reconnects to the current source after Wait.
	Retry
	// Switch connects to Target after Wait.
	Switch
	// GiveUp stops the receiver: retries are exhausted and no other
	// source is listed.
	GiveUp
)

func (a FailoverAction) String() string {
	return [...]string{"stay", "retry", "switch", "give-up"}[a]
}

// FailoverDecision is one decision with its reason (logged).
type FailoverDecision struct {
	Action FailoverAction
	Target FailoverSource
	Wait   time.Duration
	Reason string
}

// FailoverCounts are the switches made (Petrel_replica_source_switches,
// ..._lag).
type FailoverCounts struct {
	Switches    uint64 // every switch of source
	LagSwitches uint64 // those made because the current source lagged
}

type observation struct {
	set *base.GTIDSet
	at  time.Time
}

// NewFailover starts the policy on current (the source CHANGE REPLICATION
// SOURCE named, or the one a previous failover chose) with list.
func NewFailover(opts FailoverOptions, current FailoverSource, list []FailoverSource) *Failover {
	if opts.StaleAfter == 0 {
		opts.StaleAfter = 3 * time.Second
	}
	f := &Failover{opts: opts, current: current, seen: map[string]observation{}, behind: map[string]time.Time{}}
	f.SetSources(list)
	return f
}

// SetSources replaces the source list (add/delete while running).
func (f *Failover) SetSources(list []FailoverSource) {
	f.list = append([]FailoverSource(nil), list...)
	for _, s := range f.list {
		if s.Addr() == f.current.Addr() {
			f.current.Weight = s.Weight
		}
	}
}

// SetThresholds changes the lag thresholds (SET GLOBAL).
func (f *Failover) SetThresholds(lagTxns int64, lagFor time.Duration) {
	f.opts.LagTransactions, f.opts.LagFor = lagTxns, lagFor
}

// Sources returns the source list.
func (f *Failover) Sources() []FailoverSource { return append([]FailoverSource(nil), f.list...) }

// Current is the source the receiver connects to.
func (f *Failover) Current() FailoverSource { return f.current }

// Counts returns the switches made.
func (f *Failover) Counts() FailoverCounts { return f.switches }

// Connected: the link to the current source streams. The retry count and
// the failover round start again.
func (f *Failover) Connected() {
	f.connected, f.failures, f.round = true, 0, nil
}

// Failed: an attempt on the current source failed or its link ended.
// fatal: the source cannot serve this replica (retrying it is useless).
func (f *Failover) Failed(fatal bool, reason string) FailoverDecision {
	f.connected = false
	f.failures++
	if f.round == nil && !fatal && f.failures <= f.opts.RetryCount {
		return FailoverDecision{Action: Retry, Target: f.current, Wait: f.opts.ConnectRetry,
			Reason: fmt.Sprintf("%s; retry %d of %d on the same source", reason, f.failures, f.opts.RetryCount)}
	}
	if f.round == nil {
		f.round = map[string]bool{}
	}
	f.round[f.current.Addr()] = true
	if next, ok := f.best(func(s FailoverSource) bool { return !f.round[s.Addr()] }); ok {
		why := fmt.Sprintf("%s; %s failed %d time(s) in a row", reason, f.current.Addr(), f.failures)
		if fatal {
			why = fmt.Sprintf("%s; fatal for %s", reason, f.current.Addr())
		}
		return f.switchTo(next, 0, why+fmt.Sprintf(": failing over to %s (weight %d)", next.Addr(), next.Weight))
	}
	if _, others := f.best(func(s FailoverSource) bool { return s.Addr() != f.current.Addr() }); !others {
		return FailoverDecision{Action: GiveUp, Target: f.current,
			Reason: fmt.Sprintf("%s; retries exhausted and no other source is listed", reason)}
	}
	// Every listed source failed once: a new round from the highest weight.
	f.round = map[string]bool{}
	first, _ := f.best(func(FailoverSource) bool { return true })
	why := fmt.Sprintf("%s; every listed source failed: starting again from the highest weight, %s (weight %d)", reason, first.Addr(), first.Weight)
	if first.Addr() == f.current.Addr() {
		return FailoverDecision{Action: Retry, Target: f.current, Wait: f.opts.ConnectRetry, Reason: why}
	}
	return f.switchTo(first, f.opts.ConnectRetry, why)
}

// Observe records another source's executed GTID set, read at now.
func (f *Failover) Observe(addr string, set *base.GTIDSet, now time.Time) {
	f.seen[addr] = observation{set: set, at: now}
}

// Unobserved forgets what was seen of a source (its probe failed).
func (f *Failover) Unobserved(addr string) {
	delete(f.seen, addr)
	delete(f.behind, addr)
}

// Tick checks, at now, whether the connected source lags another listed
// source; have is what the replica holds (executed ∪ retrieved).
func (f *Failover) Tick(now time.Time, have *base.GTIDSet) FailoverDecision {
	if !f.connected || f.opts.LagTransactions <= 0 {
		f.behind = map[string]time.Time{}
		return FailoverDecision{Action: Stay}
	}
	type ahead struct {
		src FailoverSource
		n   int64
		dur time.Duration
	}
	var ready []ahead
	for _, s := range f.list {
		a := s.Addr()
		o, ok := f.seen[a]
		if a == f.current.Addr() || !ok || now.Sub(o.at) > f.opts.StaleAfter {
			delete(f.behind, a)
			continue
		}
		n := o.set.Subtract(have).Count()
		if n <= f.opts.LagTransactions {
			delete(f.behind, a)
			continue
		}
		since, ok := f.behind[a]
		if !ok {
			f.behind[a], since = now, now
		}
		if now.Sub(since) >= f.opts.LagFor {
			ready = append(ready, ahead{s, n, now.Sub(since)})
		}
	}
	if len(ready) == 0 {
		return FailoverDecision{Action: Stay}
	}
	// The highest weight; then the furthest ahead; then list order.
	sort.SliceStable(ready, func(i, j int) bool {
		if ready[i].src.Weight != ready[j].src.Weight {
			return ready[i].src.Weight > ready[j].src.Weight
		}
		return ready[i].n > ready[j].n
	})
	t := ready[0]
	f.switches.LagSwitches++
	return f.switchTo(t.src, 0, fmt.Sprintf("%s is %d transactions behind %s for %s (replica_failover_lag_transactions %d)",
		f.current.Addr(), t.n, t.src.Addr(), t.dur, f.opts.LagTransactions))
}

func (f *Failover) switchTo(s FailoverSource, wait time.Duration, reason string) FailoverDecision {
	f.current, f.connected, f.failures = s, false, 0
	f.behind = map[string]time.Time{}
	f.switches.Switches++
	return FailoverDecision{Action: Switch, Target: s, Wait: wait, Reason: reason}
}

// best returns the highest-weighted listed source ok accepts (equal
// weights: list order).
func (f *Failover) best(ok func(FailoverSource) bool) (FailoverSource, bool) {
	var out FailoverSource
	found := false
	for _, s := range f.list {
		if ok(s) && (!found || s.Weight > out.Weight) {
			out, found = s, true
		}
	}
	return out, found
}
