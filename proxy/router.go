package proxy

import (
	"fmt"
	"slices"
	"time"

	"petrel/internal/base"
)

// Mode says where a session's autocommit reads may go.
type Mode uint8

const (
	// ModeReadYourWrites (the default): a replica whose measured lag is
	// within MaxLag and that applied the session's last write (known from
	// its checks, or waited for).
	ModeReadYourWrites Mode = iota
	// ModeBounded: a replica whose measured lag is within MaxLag.
	ModeBounded
	// ModeAny: any replica whose check answers, whatever its lag.
	ModeAny
	// ModePrimary: the primary.
	ModePrimary
)

var modeNames = [...]string{"read-your-writes", "bounded", "any", "primary"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", m)
}

// ParseMode reads a mode's name (as String prints it; "ryw" and
// "read_your_writes" too).
func ParseMode(s string) (Mode, bool) {
	switch s {
	case "bounded", "bounded-lag", "bounded_lag":
		return ModeBounded, true
	case "read-your-writes", "read_your_writes", "ryw":
		return ModeReadYourWrites, true
	case "any", "any-lag", "any_lag":
		return ModeAny, true
	case "primary":
		return ModePrimary, true
	}
	return 0, false
}

// State is a backend's routing state.
type State uint8

const (
	// StateUnknown: not measured yet, or its lag is unknown (NULL: its
	// replication is stopped), or its last sample is too old. No reads.
	StateUnknown State = iota
	// StateOnline: lag measured and within MaxLag for RecoverChecks
	// checks in a row. Serves reads.
	StateOnline
	// StateLagging: lag measured above MaxLag. Drained: no new reads.
	StateLagging
	// StateDown: its last check failed (refused, timed out, an error).
	// Drained.
	StateDown
)

var stateNames = [...]string{"unknown", "online", "lagging", "down"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", s)
}

// RouterOptions configures a Router.
type RouterOptions struct {
	// MaxLag is max_replication_lag: a replica serves bounded reads while
	// its lag is at most MaxLag. Default 1s.
	MaxLag time.Duration
	// RecoverChecks is how many good checks in a row (answered, lag known
	// and within MaxLag) a replica needs before it serves: at start and
	// after it was drained. Default 2.
	RecoverChecks int
	// StaleAfter: a replica whose last sample is older than this counts
	// as unknown (a checker that stopped reporting must not leave an old
	// "0" in place). Default 2s.
	StaleAfter time.Duration
	// WaitTimeout bounds a read-your-writes wait on a replica
	// (WAIT_FOR_EXECUTED_GTID_SET) before the read goes to the primary.
	// Default 1s.
	WaitTimeout time.Duration
	// PromoteAfter is how many failed checks of the primary in a row let
	// the router follow a promotion: then, when exactly one replica
	// answers writable and not replicating, it becomes the primary.
	// Default 2.
	PromoteAfter int
	// Site is the proxy's own site (a replica's Site says where it is; 0
	// is the primary's). Reads go to a qualifying replica of this site
	// first, then to any other qualifying replica, then to the primary.
	// Default 0.
	Site int
	// PackSessions, when > 0, packs sessions onto replicas instead of
	// spreading them: a session's reads start on the qualifying replica
	// already serving the most sessions while it serves fewer than
	// PackSessions (the first in order on a tie), and on the one serving
	// the fewest once every one serves that many. Then a light load runs
	// on one replica, whose every query finds it busy, and the others
	// sleep; where the replicas share cores with each other and the proxy
	// (one host), waking two for the same load costs more CPU per query
	// than the proxy itself (docs/PERFORMANCE.md, "Proxy"). Default 0: a
	// session's reads start on the next replica round-robin.
	PackSessions int
}

func (o *RouterOptions) applyDefaults() {
	if o.MaxLag <= 0 {
		o.MaxLag = time.Second
	}
	if o.RecoverChecks <= 0 {
		o.RecoverChecks = 2
	}
	if o.StaleAfter <= 0 {
		o.StaleAfter = 2 * time.Second
	}
	if o.WaitTimeout <= 0 {
		o.WaitTimeout = time.Second
	}
	if o.PromoteAfter <= 0 {
		o.PromoteAfter = 2
	}
}

// Primary is the primary's backend index; replicas are 1..n.
const Primary = 0

// Sample is one check's result for a backend.
type Sample struct {
	At time.Time
	// Err is set when the check failed (no connection, timeout, error).
	Err error
	// Lag is the measured lag when LagKnown (a replica whose lag reads
	// NULL has LagKnown false).
	Lag      time.Duration
	LagKnown bool
	// Executed is the backend's gtid_executed at the check (nil: not read).
	Executed *base.GTIDSet
	// Writable: read_only and super_read_only are off. Replicating: its
	// replication threads run. (A promoted replica is writable and not
	// replicating.)
	Writable, Replicating bool
}

// Change is a backend's state change, for the log.
type Change struct {
	Backend  int
	Name     string
	From, To State
	Reason   string
	// Promoted, when not 0, is the replica slot that became the primary:
	// the router swapped slots 0 and Promoted (the old primary is now a
	// replica there). The shell swaps its own per-slot state the same
	// way and drops every connection of both slots.
	Promoted int
}

func (c Change) String() string {
	if c.Promoted != 0 {
		return fmt.Sprintf("%s: promoted to primary, slot %d -> 0 (%s)", c.Name, c.Promoted, c.Reason)
	}
	return fmt.Sprintf("%s: %s -> %s (%s)", c.Name, c.From, c.To, c.Reason)
}

// BackendStatus is what the router knows of a backend.
type BackendStatus struct {
	Name string
	// Site is where it is (see RouterOptions.Site).
	Site     int
	State    State
	Lag      time.Duration
	LagKnown bool
	// Good is the count of good checks in a row.
	Good int
	// Answered: the last check answered (whatever the lag) and is not
	// stale; ModeAny reads may go there.
	Answered  bool
	LastCheck time.Time
	// Executed is the GTID set last known applied (nil: none known).
	Executed *base.GTIDSet
	// Writable and Replicating are the last answered check's.
	Writable, Replicating bool
	// Failed counts failed checks in a row.
	Failed int
}

// Router is the routing core: backend states from samples, and a
// decision per statement. Not safe for concurrent use (the shell holds
// it under a mutex); it has no goroutines and reads no clock.
type Router struct {
	opts     RouterOptions
	backends []BackendStatus
	// next is the round-robin position among replicas.
	next int
	// cands and seen are Route's scratch (no allocation per statement).
	cands, seen []int
	// sessions counts, per backend slot, the sessions whose reads go
	// there (Session.counted); by slot, as the sessions' own indices
	// are, so a promotion's swap does not move them.
	sessions []int
}

// NewRouter returns a router over a primary and replicas (names are for
// logs and SHOW SERVERS). Every replica starts unknown.
func NewRouter(opts RouterOptions, primary string, replicas []string) *Router {
	opts.applyDefaults()
	r := &Router{opts: opts}
	r.backends = append(r.backends, BackendStatus{Name: primary, State: StateUnknown})
	for _, n := range replicas {
		r.backends = append(r.backends, BackendStatus{Name: n, State: StateUnknown})
	}
	r.sessions = make([]int, len(r.backends))
	return r
}

// SetSite says which site backend i is in.
func (r *Router) SetSite(i, site int) { r.backends[i].Site = site }

// AddReplica adds a replica (discovered while the router runs; it starts
// unknown) and returns its index.
func (r *Router) AddReplica(name string, site int) int {
	r.backends = append(r.backends, BackendStatus{Name: name, Site: site, State: StateUnknown})
	r.sessions = append(r.sessions, 0)
	return len(r.backends) - 1
}

// Options returns the defaulted options.
func (r *Router) Options() RouterOptions { return r.opts }

// Backends returns a copy of every backend's status, primary first.
func (r *Router) Backends() []BackendStatus {
	out := make([]BackendStatus, len(r.backends))
	copy(out, r.backends)
	return out
}

// Observe takes backend i's check result and returns the state change it
// causes, if any.
func (r *Router) Observe(i int, s Sample) (Change, bool) {
	b := &r.backends[i]
	b.LastCheck = s.At
	if s.Executed != nil {
		b.Executed = s.Executed.Clone()
	}
	b.Answered = s.Err == nil
	if s.Err != nil {
		b.LagKnown, b.Good = false, 0
		b.Failed++
		return r.move(i, StateDown, "check failed: "+s.Err.Error())
	}
	b.Failed = 0
	b.Writable, b.Replicating = s.Writable, s.Replicating
	if i == Primary {
		// The primary's lag means nothing: it is online while it answers.
		b.Good++
		return r.move(i, StateOnline, "check answered")
	}
	b.Lag, b.LagKnown = s.Lag, s.LagKnown
	switch {
	case !s.LagKnown:
		b.Good = 0
		return r.move(i, StateUnknown, "lag unknown (NULL)")
	case s.Lag > r.opts.MaxLag:
		b.Good = 0
		return r.move(i, StateLagging, fmt.Sprintf("lag %v over max %v", s.Lag, r.opts.MaxLag))
	}
	b.Good++
	if b.State != StateOnline && b.Good >= r.opts.RecoverChecks {
		return r.move(i, StateOnline, fmt.Sprintf("lag %v within max %v for %d checks", s.Lag, r.opts.MaxLag, b.Good))
	}
	return Change{}, false
}

// Promotion follows a promotion: when the primary failed PromoteAfter
// checks in a row, or answered its last check read-only (a switchover
// demoted it), a single replica that answered its last check writable
// and not replicating becomes the primary (slots 0 and i swap). Two or
// more such replicas are ambiguous: nothing moves until one is left.
func (r *Router) Promotion() (Change, bool) {
	p := &r.backends[Primary]
	var why string
	switch {
	case p.Failed >= r.opts.PromoteAfter:
		why = fmt.Sprintf("%s failed %d checks", p.Name, p.Failed)
	case p.Answered && !p.Writable:
		why = fmt.Sprintf("%s is read-only", p.Name)
	default:
		return Change{}, false
	}
	found := 0
	for i := 1; i < len(r.backends); i++ {
		b := &r.backends[i]
		if b.Answered && b.Writable && !b.Replicating {
			if found != 0 {
				return Change{}, false
			}
			found = i
		}
	}
	if found == 0 {
		return Change{}, false
	}
	return r.PromoteTo(found, fmt.Sprintf("%s; %s is writable and not replicating", why, r.backends[found].Name)), true
}

// PromoteTo makes replica i the primary (slots 0 and i swap): a
// promotion seen (Promotion) or told (the cluster's layout names another
// primary). The old primary serves reads only once its checks show it a
// replica within the lag bound.
func (r *Router) PromoteTo(i int, reason string) Change {
	old := r.backends[Primary]
	r.backends[Primary], r.backends[i] = r.backends[i], old
	p := &r.backends[Primary]
	from := p.State
	p.State, p.Good, p.Failed = StateOnline, 1, 0
	q := &r.backends[i]
	q.State, q.Good, q.Answered, q.LagKnown = StateDown, 0, false, false
	return Change{Backend: Primary, Name: p.Name, From: from, To: StateOnline, Promoted: i, Reason: reason}
}

// Index returns the backend named name (its address), or -1.
func (r *Router) Index(name string) int {
	for i, b := range r.backends {
		if b.Name == name {
			return i
		}
	}
	return -1
}

// Tick ages the samples: an online replica whose last sample is older
// than StaleAfter becomes unknown.
func (r *Router) Tick(now time.Time) []Change {
	var out []Change
	for i := 1; i < len(r.backends); i++ {
		b := &r.backends[i]
		if now.Sub(b.LastCheck) <= r.opts.StaleAfter {
			continue
		}
		b.LagKnown, b.Good, b.Answered = false, 0, false
		if b.State != StateOnline {
			continue
		}
		if c, ok := r.move(i, StateUnknown, fmt.Sprintf("no check for %v", now.Sub(b.LastCheck))); ok {
			out = append(out, c)
		}
	}
	return out
}

func (r *Router) move(i int, to State, reason string) (Change, bool) {
	b := &r.backends[i]
	if b.State == to {
		return Change{}, false
	}
	c := Change{Backend: i, Name: b.Name, From: b.State, To: to, Reason: reason}
	b.State = to
	return c, true
}

// Applied records that backend i has applied set (a wait for it
// returned), so later reads of the same writes need no wait there.
func (r *Router) Applied(i int, set *base.GTIDSet) {
	b := &r.backends[i]
	if b.Executed == nil {
		b.Executed = set.Clone()
		return
	}
	b.Executed.AddSet(set)
}

// Session is a client session's routing state. Owned by one session
// (not safe for concurrent use).
type Session struct {
	// Mode is the session's read mode (SET petrel_read_mode, or the
	// proxy's default).
	Mode Mode
	// Pinned: the session changed its connection's state (SET, temporary
	// tables, user locks, ...): every statement goes to its primary
	// connection until it ends.
	Pinned bool
	// InTxn: its primary connection is in a transaction (from the
	// backend's status flags).
	InTxn bool
	// LastWrite is the GTID set its next reads must see (read-your-writes;
	// nil before it writes).
	LastWrite *base.GTIDSet
	// lastRead is the backend its last read ran on, plus one (0: none).
	lastRead int
	// counted is the backend slot the router counts the session on, plus
	// one (0: none): where its reads were last routed or ran.
	counted int
}

// ReadOn records the backend a read of session s ran on.
func (r *Router) ReadOn(s *Session, i int) {
	s.lastRead = i + 1
	r.countOn(s, i)
}

// Moved reports whether ReadOn(s, i) would change anything (the shell
// takes its lock only then).
func (s *Session) Moved(i int) bool { return s.lastRead != i+1 || s.counted != i+1 }

// Leave uncounts a session that ended (or was reset).
func (r *Router) Leave(s *Session) {
	r.countOn(s, -1)
	s.lastRead = 0
}

// countOn counts s on slot i (-1: on none).
func (r *Router) countOn(s *Session, i int) {
	if s.counted == i+1 {
		return
	}
	if j := s.counted - 1; j >= 0 && j < len(r.sessions) && r.sessions[j] > 0 {
		r.sessions[j]--
	}
	s.counted = 0
	if i >= 0 && i < len(r.sessions) {
		r.sessions[i]++
		s.counted = i + 1
	}
}

// Sessions returns how many sessions the router counts on slot i.
func (r *Router) Sessions(i int) int { return r.sessions[i] }

// Dedicated reports whether the session's statements run on its own
// primary connection (a transaction or pinned state).
func (s *Session) Dedicated() bool { return s.Pinned || s.InTxn }

// Wrote records the primary's gtid_executed after the session's write.
func (s *Session) Wrote(set *base.GTIDSet) {
	if s.LastWrite == nil {
		s.LastWrite = set.Clone()
		return
	}
	s.LastWrite.AddSet(set)
}

// Decision is where a statement goes.
type Decision struct {
	// Backend is Primary or a replica's index.
	Backend int
	// Dedicated: run it on the session's own primary connection (and keep
	// the connection while the session is pinned or in a transaction).
	Dedicated bool
	// Pin: the statement changes the connection's state; the session is
	// pinned from now on.
	Pin bool
	// WaitFor, when set, is the GTID set the replica must apply first
	// (WAIT_FOR_EXECUTED_GTID_SET, up to WaitTimeout); when the wait
	// times out the read goes to the primary.
	WaitFor     *base.GTIDSet
	WaitTimeout time.Duration
	// TrackWrite: after it succeeds, read the primary's gtid_executed
	// into the session (read-your-writes).
	TrackWrite bool
	// NeedFloor: the session's reads move to this replica from another
	// backend; read the primary's gtid_executed first and wait for it
	// here too (WaitFor's set joined; up to WaitTimeout), else read on
	// the primary.
	NeedFloor bool
	Reason    string
}

// Route decides where a statement of kind k goes for session s; hint,
// when not nil, is the statement's own mode (a comment hint).
func (r *Router) Route(s *Session, k Kind, hint *Mode) Decision {
	mode := s.Mode
	if hint != nil {
		mode = *hint
	}
	primary := func(reason string) Decision {
		return Decision{Backend: Primary, Dedicated: s.Dedicated(), Reason: reason}
	}
	switch k {
	case KindRead:
	case KindSessionState:
		d := primary("session state")
		d.Dedicated, d.Pin = true, true
		return d
	case KindBegin:
		d := primary("transaction")
		d.Dedicated = true
		return d
	case KindWrite, KindEnd:
		d := primary(k.String())
		d.TrackWrite = mode == ModeReadYourWrites
		return d
	default:
		return primary(k.String())
	}
	if s.Dedicated() {
		if s.Pinned {
			return primary("pinned session")
		}
		return primary("in transaction")
	}
	if mode == ModePrimary {
		return primary("mode primary")
	}
	cands := r.cands[:0]
	for i := 1; i < len(r.backends); i++ {
		b := &r.backends[i]
		if b.State == StateOnline || (mode == ModeAny && b.Answered) {
			cands = append(cands, i)
		}
	}
	r.cands = cands
	if len(cands) == 0 {
		return primary("no replica qualifies")
	}
	// Site tiers: the proxy's own site's replicas while one qualifies;
	// else any other's (the site's relay may be down, or its replicas
	// lag: another site's are still within the bound).
	tier := "replica within lag"
	local := r.seen[:0]
	for _, i := range cands {
		if r.backends[i].Site == r.opts.Site {
			local = append(local, i)
		}
	}
	if len(local) > 0 && len(local) < len(cands) {
		cands = append(cands[:0], local...)
	} else if len(local) == 0 {
		tier = "replica of another site within lag"
	}
	if mode == ModeAny {
		reason := "replica answers (any lag)"
		if len(local) == 0 {
			reason = "replica of another site answers (any lag)"
		}
		d := Decision{Backend: r.pick(s, cands), Reason: reason}
		r.countOn(s, d.Backend)
		return d
	}
	ryw := mode == ModeReadYourWrites && s.LastWrite != nil && !s.LastWrite.IsEmpty()
	has := func(i int) bool {
		e := r.backends[i].Executed
		return e != nil && e.ContainsSet(s.LastWrite)
	}
	var d Decision
	if last := s.lastRead - 1; last > 0 && slices.Contains(cands, last) {
		// Monotonic reads: a replica's data only grows, so the session
		// stays on the replica it read last while that one qualifies.
		d = Decision{Backend: last, Reason: "the session's replica"}
	} else {
		pool := cands
		if ryw {
			seen := r.seen[:0]
			for _, i := range cands {
				if has(i) {
					seen = append(seen, i)
				}
			}
			r.seen = seen
			if len(seen) > 0 {
				pool = seen
			}
		}
		d = Decision{Backend: r.pick(s, pool), Reason: tier}
		if s.lastRead > 0 {
			// Its reads move from another backend, which may have shown
			// it newer data than this one has: wait for the primary's
			// set (the upper bound of anything it can have seen).
			d.NeedFloor, d.WaitTimeout = true, r.opts.WaitTimeout
			d.Reason = "moved to another replica: wait for what the session may have seen"
		}
	}
	if ryw && !has(d.Backend) {
		d.WaitFor, d.WaitTimeout = s.LastWrite.Clone(), r.opts.WaitTimeout
		d.Reason += "; wait for the session's writes"
	}
	// Counted where it goes now, before the read runs: sessions routed
	// at once see each other (packing spills past PackSessions).
	r.countOn(s, d.Backend)
	return d
}

// pick chooses among candidate replicas for session s: round-robin, or
// packed (RouterOptions.PackSessions).
func (r *Router) pick(s *Session, cands []int) int {
	if n := r.opts.PackSessions; n > 0 {
		// s itself does not count where it is now (it is moving).
		on := func(i int) int {
			if s.counted == i+1 {
				return r.sessions[i] - 1
			}
			return r.sessions[i]
		}
		best, fewest := -1, cands[0]
		for _, i := range cands {
			if c := on(i); c < n && (best < 0 || c > on(best)) {
				best = i
			}
			if on(i) < on(fewest) {
				fewest = i
			}
		}
		if best >= 0 {
			return best
		}
		return fewest
	}
	r.next++
	return cands[r.next%len(cands)]
}
