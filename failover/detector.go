// Package failover is the failure detector and promotion policy of a
// primary/replica cluster, as a pure core: observations go in (an
// observer's ping of the primary answered or not; a replica's status: its
// receiver connected to the primary or not, its retrieved and executed
// GTID sets, its applier running or stopped and its lag), decisions come
// out (the primary is alive, suspected or confirmed dead; which replica to
// promote and why, or that none is eligible and why). Time is passed in;
// there are no goroutines, sockets or sleeps. The shell that polls the
// nodes and carries a decision out is cluster/failover.go.
//
// Invariants:
//   - The primary is dead only when an observer's ping goes unanswered AND
//     the receivers of a majority of the primary's direct followers
//     (replicas and relays reading from it) are disconnected, with at
//     least Options.MinObservers distinct observers seeing it down, each
//     for Options.DownFor, and no fresh observation seeing it up. One
//     partitioned replica (or a partitioned observer) cannot trigger it.
//   - The replica promoted holds a superset of every eligible replica's
//     GTIDs (executed plus retrieved); a replica whose applier is stopped
//     or lags more than Options.MaxLag is never promoted, and a decision
//     says so whenever such a node, or a relay, holds GTIDs the promoted
//     one lacks.
package failover

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"petrel/internal/base"
)

// Options tunes the detector and the choice.
type Options struct {
	// MinObservers is how many distinct observers must see the primary
	// down before it is declared dead; default 2.
	MinObservers int
	// DownFor is how long each of them must have seen it down
	// continuously; default 1s.
	DownFor time.Duration
	// Fresh is the age past which an observation no longer counts (its
	// observer may be partitioned itself); default 5s.
	Fresh time.Duration
	// MaxLag is the applier lag past which a replica is not promoted;
	// default 30s.
	MaxLag time.Duration
}

func (o *Options) defaults() {
	if o.MinObservers <= 0 {
		o.MinObservers = 2
	}
	if o.DownFor <= 0 {
		o.DownFor = time.Second
	}
	if o.Fresh <= 0 {
		o.Fresh = 5 * time.Second
	}
	if o.MaxLag <= 0 {
		o.MaxLag = 30 * time.Second
	}
}

// Member is a node other than the primary.
type Member struct {
	Name string
	// Relay nodes keep the binlog but no data: never promoted.
	Relay bool
	// Direct members read from the primary: their receiver's state is an
	// observation of it.
	Direct bool
	// Site 0 is next to the primary. A replica of the lowest site with an
	// eligible replica is promoted (the primary stays in its data
	// centre), catching up first from any node holding more.
	Site int
}

// Receiver is a replica's receiver (IO thread) state.
type Receiver int

const (
	// ReceiverStopped: not running (STOP REPLICA): no evidence either way.
	ReceiverStopped Receiver = iota
	// ReceiverConnecting: running, not connected (retrying).
	ReceiverConnecting
	// ReceiverConnected: running and connected to its source.
	ReceiverConnected
)

// Status is one observation of a replica (SHOW REPLICA STATUS).
type Status struct {
	Receiver Receiver
	// Applier is the SQL thread running; ApplierErrno its last error.
	Applier      bool
	ApplierErrno int
	ApplierError string
	// Retrieved and Executed are Retrieved_Gtid_Set and gtid_executed
	// (nil: empty).
	Retrieved, Executed *base.GTIDSet
	// Lag is Seconds_Behind_Source when LagKnown.
	Lag      time.Duration
	LagKnown bool
}

// holds is what the replica has or will have once its relay log is
// applied.
func (s Status) holds() *base.GTIDSet {
	h := base.NewGTIDSet()
	if s.Executed != nil {
		h.AddSet(s.Executed)
	}
	if s.Retrieved != nil {
		h.AddSet(s.Retrieved)
	}
	return h
}

// Verdict is the detector's view of the primary.
type Verdict int

const (
	// Unknown: nothing fresh was observed.
	Unknown Verdict = iota
	// Alive: a fresh observation sees it up.
	Alive
	// Suspected: seen down, not (yet) confirmed.
	Suspected
	// Dead: confirmed (see the package invariants).
	Dead
)

func (v Verdict) String() string {
	return [...]string{"unknown", "alive", "suspected", "dead"}[v]
}

// Decision is what Decide returns.
type Decision struct {
	Verdict Verdict
	// Why explains the verdict.
	Why string
	// Choice is set when Verdict is Dead.
	Choice *Choice
}

// view is one observer's latest view of the primary.
type view struct {
	ping      bool // a ping (not a receiver)
	up        bool
	seen      time.Time
	downSince time.Time
}

// Detector watches one primary. Not safe for concurrent use.
type Detector struct {
	o       Options
	primary string
	members []Member
	byName  map[string]int
	views   map[string]*view
	status  map[string]Status
	seen    map[string]time.Time // when each member's status was taken
}

// New returns a detector of primary, whose other nodes are members.
func New(o Options, primary string, members []Member) (*Detector, error) {
	o.defaults()
	d := &Detector{o: o, primary: primary, members: members, byName: map[string]int{},
		views: map[string]*view{}, status: map[string]Status{}, seen: map[string]time.Time{}}
	for i, m := range members {
		if m.Name == "" || m.Name == primary {
			return nil, fmt.Errorf("failover: member %d has name %q", i, m.Name)
		}
		if _, dup := d.byName[m.Name]; dup {
			return nil, fmt.Errorf("failover: member %q twice", m.Name)
		}
		d.byName[m.Name] = i
	}
	return d, nil
}

func (d *Detector) observe(observer string, ping, up bool, now time.Time) {
	key := observer
	if ping {
		key = "ping:" + observer
	}
	v := d.views[key]
	if v == nil {
		v = &view{ping: ping}
		d.views[key] = v
	}
	v.seen = now
	switch {
	case up:
		v.up, v.downSince = true, time.Time{}
	case v.up || v.downSince.IsZero():
		v.up, v.downSince = false, now
	}
}

// Ping records that observer pinged the primary: answered (ok) or not.
func (d *Detector) Ping(observer string, ok bool, now time.Time) {
	d.observe(observer, true, ok, now)
}

// Observe records a member's status. A direct member's receiver is also
// an observation of the primary (connected: up; connecting: down;
// stopped: none).
func (d *Detector) Observe(member string, st Status, now time.Time) error {
	i, ok := d.byName[member]
	if !ok {
		return fmt.Errorf("failover: unknown member %q", member)
	}
	d.status[member], d.seen[member] = st, now
	if d.members[i].Direct && st.Receiver != ReceiverStopped {
		d.observe(member, false, st.Receiver == ReceiverConnected, now)
	}
	return nil
}

// Decide judges the primary at now and, once it is dead, chooses the
// replica to promote.
func (d *Detector) Decide(now time.Time) Decision {
	var up, down, waiting []string
	pingDown, direct, directDown := false, 0, 0
	for _, m := range d.members {
		if m.Direct {
			direct++
		}
	}
	keys := make([]string, 0, len(d.views))
	for k := range d.views {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { // a node's two views side by side
		a, b := strings.TrimPrefix(keys[i], "ping:"), strings.TrimPrefix(keys[j], "ping:")
		return a < b || a == b && keys[i] < keys[j]
	})
	for _, k := range keys {
		v := d.views[k]
		if now.Sub(v.seen) > d.o.Fresh {
			continue
		}
		name := strings.TrimPrefix(k, "ping:")
		switch {
		case v.up:
			if len(up) == 0 || up[len(up)-1] != name {
				up = append(up, name)
			}
		case now.Sub(v.downSince) >= d.o.DownFor:
			if len(down) == 0 || down[len(down)-1] != name { // a node's ping and receiver: one observer
				down = append(down, name)
			}
			if v.ping {
				pingDown = true
			} else {
				directDown++
			}
		default:
			waiting = append(waiting, fmt.Sprintf("%s (down %v of %v)", name, now.Sub(v.downSince), d.o.DownFor))
		}
	}
	switch {
	case len(up) > 0:
		return Decision{Verdict: Alive, Why: "seen up by " + strings.Join(up, ", ")}
	case len(down) == 0 && len(waiting) == 0:
		return Decision{Verdict: Unknown, Why: "no fresh observation of " + d.primary}
	}
	var missing []string
	if len(down) < d.o.MinObservers {
		missing = append(missing, fmt.Sprintf("%d of %d observers see it down", len(down), d.o.MinObservers))
	}
	if !pingDown {
		missing = append(missing, "no observer's ping has gone unanswered for long enough")
	}
	if directDown*2 <= direct {
		missing = append(missing, fmt.Sprintf("%d of %d followers' receivers disconnected (a majority needed)", directDown, direct))
	}
	if len(missing) > 0 {
		if len(waiting) > 0 {
			missing = append(missing, "waiting: "+strings.Join(waiting, ", "))
		}
		return Decision{Verdict: Suspected, Why: strings.Join(missing, "; ")}
	}
	c := Choose(d.o, d.members, d.fresh(now))
	return Decision{Verdict: Dead, Why: "down for " + strings.Join(down, ", "), Choice: &c}
}

// fresh returns the members' statuses that are fresh at now.
func (d *Detector) fresh(now time.Time) map[string]Status {
	out := map[string]Status{}
	for name, st := range d.status {
		if now.Sub(d.seen[name]) <= d.o.Fresh {
			out[name] = st
		}
	}
	return out
}

// Choice is the replica to promote, or none.
type Choice struct {
	// Promote is the member to promote; "" when none is eligible.
	Promote string
	// Why says why it (or none) was chosen.
	Why string
	// Notes name every node passed over and every node holding GTIDs the
	// chosen one lacks.
	Notes []string
	// CatchUp lists the nodes whose binary log holds GTIDs the chosen one
	// lacks (a relay that ran ahead, a replica that executed more), most
	// first: the promotion first replicates from them, so that what they
	// serve downstream is not lost or left errant.
	CatchUp []CatchUp
}

// CatchUp is a node to catch up from and what it holds.
type CatchUp struct {
	Node string
	Set  *base.GTIDSet
}

// Choose picks, among members with a status, the replica to promote (pure;
// also the switchover's choice, where no detection is involved).
func Choose(o Options, members []Member, status map[string]Status) Choice {
	o.defaults()
	type cand struct {
		m     Member
		st    Status
		holds *base.GTIDSet
	}
	var eligible []cand
	var notes, refused []string
	all := map[string]*base.GTIDSet{}
	for _, m := range members {
		st, ok := status[m.Name]
		if !ok {
			if !m.Relay {
				refused = append(refused, m.Name+": did not answer")
			}
			continue
		}
		h := st.holds()
		all[m.Name] = h
		switch {
		case m.Relay:
			continue
		case !st.Applier && st.ApplierErrno != 0:
			refused = append(refused, fmt.Sprintf("%s: applier stopped (error %d: %s)", m.Name, st.ApplierErrno, st.ApplierError))
		case !st.Applier:
			refused = append(refused, m.Name+": applier stopped")
		case st.LagKnown && st.Lag > o.MaxLag:
			refused = append(refused, fmt.Sprintf("%s: applier %v behind (more than %v)", m.Name, st.Lag, o.MaxLag))
		default:
			eligible = append(eligible, cand{m, st, h})
		}
	}
	if len(eligible) == 0 {
		why := "no eligible replica"
		if len(refused) > 0 {
			why += ": " + strings.Join(refused, "; ")
		}
		return Choice{Why: why}
	}
	backlog := func(c cand) int64 {
		if c.st.Executed == nil {
			return c.holds.Count()
		}
		return c.holds.Subtract(c.st.Executed).Count()
	}
	// The site next to the primary first (promoting across the WAN moves
	// every write's round trip there; what a farther node holds beyond is
	// caught up from it before the promotion), then most GTIDs (a
	// superset holds at least as many), then the least left to apply,
	// then the member order.
	sort.SliceStable(eligible, func(i, j int) bool {
		a, b := eligible[i], eligible[j]
		if a.m.Site != b.m.Site {
			return a.m.Site < b.m.Site
		}
		if na, nb := a.holds.Count(), b.holds.Count(); na != nb {
			return na > nb
		}
		return backlog(a) < backlog(b)
	})
	best := eligible[0]
	why := fmt.Sprintf("%s holds the most GTIDs (%d", best.m.Name, best.holds.Count())
	if n := backlog(best); n > 0 {
		why += fmt.Sprintf(", %d of them still to apply from its relay log", n)
	}
	why += ")"
	sameSite := 0
	for _, c := range eligible {
		if c.m.Site == best.m.Site {
			sameSite++
		}
	}
	switch {
	case sameSite < len(eligible) && best.m.Site == 0:
		why += fmt.Sprintf(" beside the primary (%d of %d eligible replicas are there)", sameSite, len(eligible))
	case sameSite < len(eligible):
		why += fmt.Sprintf(" at site %d, the nearest with an eligible replica (%d of %d are there)", best.m.Site, sameSite, len(eligible))
	case len(eligible) > 1:
		why += fmt.Sprintf(" of %d eligible replicas", len(eligible))
	}
	for _, c := range eligible[1:] {
		if c.m.Site != best.m.Site && c.holds.Count() > best.holds.Count() {
			notes = append(notes, fmt.Sprintf("preferred to %s at site %d holding %d: nearer the primary", c.m.Name, c.m.Site, c.holds.Count()))
			break
		}
	}
	for _, r := range refused {
		notes = append(notes, "passed over "+r)
	}
	var catchUp []CatchUp
	for _, m := range members {
		h := all[m.Name]
		if h == nil || m.Name == best.m.Name {
			continue
		}
		// What its binary log holds: a relay's is everything it
		// received; a replica's what it executed.
		logged := h
		if !m.Relay {
			logged = base.NewGTIDSet()
			if st := status[m.Name]; st.Executed != nil {
				logged = st.Executed
			}
		}
		if !logged.Subtract(best.holds).IsEmpty() {
			catchUp = append(catchUp, CatchUp{Node: m.Name, Set: logged})
		}
		if extra := h.Subtract(best.holds); !extra.IsEmpty() {
			kind := "replica"
			if m.Relay {
				kind = "relay"
			}
			notes = append(notes, fmt.Sprintf("%s %s holds %d GTIDs %s lacks (%s)", kind, m.Name, extra.Count(), best.m.Name, extra))
		}
	}
	sort.SliceStable(catchUp, func(i, j int) bool { return catchUp[i].Set.Count() > catchUp[j].Set.Count() })
	return Choice{Promote: best.m.Name, Why: why, Notes: notes, CatchUp: catchUp}
}
