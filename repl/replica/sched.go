package replica

import (
	"fmt"
	"sort"
)

// The applier's second stage: the scheduling core. It decides when each
// transaction read from the relay log may start applying, on which
// worker, and when a started one may commit: calls in, decisions out, no
// goroutines, no clock, no I/O, so a test replays any interleaving of
// arrivals and completions (testdata/sched). The applier shell
// (applier.go) carries its decisions out, the same for every policy.
//
// Transactions are numbered in relay order from 1 (Seq) and start in that
// order: one that may not start yet holds back those behind it, as
// MySQL's coordinator does, so a transaction never waits for a later one
// and commit order can be kept without deadlock.
//
// The serial policy (replica_parallel_workers 0 or 1) has one worker:
// transactions start in relay order, each as soon as the one before it
// has passed its commit point (its commit may still be completing in the
// commit pipeline, where row locks keep dependent transactions in order),
// with at most depth started and unfinished, and commit at once. A
// barrier (DDL) starts only once every transaction before it has
// finished, and nothing after it starts until it has finished. A
// transaction whose rows are found by a scan (NoKeys: a table without a
// primary key, or one the replica does not have yet), which row locks do
// not order (a DELETE would miss the row a commit still in the pipeline
// inserts), also starts only once every transaction before it has
// finished. The serial policy counts no waits.
//
// The parallel policies run up to Workers transactions at once. A
// transaction T may start once every transaction it depends on has
// finished (its commit is durable and visible):
//
//   - LOGICAL_CLOCK: the source's interval. T depends on every transaction
//     whose sequence_number is at most T's last_committed, in the same
//     source binlog file; numbering restarts at each source file, so the
//     transactions of a new file (last_committed 0 is the file's start)
//     wait for everything before the file. A sequence_number that does
//     not follow the previous one (a gap, or a step back) and an
//     impossible interval (last_committed >= sequence_number) make T wait
//     for everything before it. A transaction without a useful interval (both numbers 0:
//     an older source; or last_committed = sequence_number - 1, which a
//     COMMIT_ORDER source writes for every transaction that did not share
//     a group commit) is scheduled on the write set the replica computed
//     from its row images, when it has one: T depends on the last earlier
//     transaction that wrote a row with an equal primary or unique key,
//     and on every earlier transaction the write-set history does not
//     cover (scheduled by interval, or forgotten when the history
//     overflowed).
//   - DATABASE: T depends on the last earlier transaction that touched
//     each of its databases; transactions on disjoint databases run side
//     by side.
//
// Under both, a barrier (DDL, or a transaction whose tables the replica
// could not tell) runs alone: it starts once everything before it has
// finished and nothing starts until it has finished.
//
// Under every policy a started transaction that has applied its rows asks
// to commit (Applied), and reports its commit point (Committed), which
// frees its worker. Commit order (replica_preserve_commit_order=ON, the
// parallel policies): it may commit once every transaction before it has
// passed its commit point. OFF, and the serial policy, let it commit at
// once.
//
// Finished reports a durable commit; Executed transactions (already in
// gtid_executed, skipped) arrive finished.

// schedPolicy is replica_parallel_type, or serial.
type schedPolicy int

const (
	policySerial schedPolicy = iota
	policyLogicalClock
	policyDatabase
)

// schedOptions configures a core.
type schedOptions struct {
	Policy schedPolicy
	// Depth bounds the serial policy's started, unfinished transactions.
	// Default 1.
	Depth int
	// Workers bounds the parallel policies' transactions applying at once
	// (started, not yet past their commit point). Default 1; always 1 in
	// the serial policy.
	Workers int
	// PreserveOrder: commits in relay order (parallel policies; the
	// serial policy's one worker commits in relay order anyway).
	PreserveOrder bool
	// HistorySize bounds the write-set history (key hashes). Default
	// binlog's 25000.
	HistorySize int
}

// schedTxn is what the core knows of a transaction.
type schedTxn struct {
	Seq     uint64 // relay order, from 1, no gaps
	Barrier bool   // runs alone (DDL)
	// Executed: already applied (in gtid_executed); arrives finished.
	Executed bool
	// The source's interval (GTID event), 0/0 when it has none.
	LastCommitted, SeqNo int64
	// DBs are the databases the transaction changes (DATABASE).
	DBs []string
	// Writeset holds the hashes of the primary and unique keys of its row
	// images; nil when the replica did not compute them. NoKeys: a row of
	// a table without a primary key (the write set cannot be trusted).
	Writeset []uint64
	NoKeys   bool
}

// schedStart is a decision: transaction Seq starts on worker Worker
// (from 1).
type schedStart struct {
	Seq    uint64
	Worker int
}

// schedDecision is what a call lets happen now.
type schedDecision struct {
	Start  []schedStart
	Commit []uint64 // may commit now
}

// Why a transaction at the head of the queue waited (counters).
type schedWaits struct {
	Dependency  uint64 // a transaction it depends on had not finished
	Barrier     uint64 // a barrier (DDL) before or at it
	Workers     uint64 // every worker busy
	CommitOrder uint64 // applied, waiting for earlier commits
	// Serialised counts transactions with an impossible interval,
	// scheduled after everything before them.
	Serialised uint64
	// ByWriteset counts transactions scheduled on the replica's write set.
	ByWriteset uint64
}

func (w schedWaits) plus(o schedWaits) schedWaits {
	return schedWaits{Dependency: w.Dependency + o.Dependency, Barrier: w.Barrier + o.Barrier, Workers: w.Workers + o.Workers,
		CommitOrder: w.CommitOrder + o.CommitOrder, Serialised: w.Serialised + o.Serialised, ByWriteset: w.ByWriteset + o.ByWriteset}
}

type txnState uint8

const (
	stQueued txnState = iota
	stRunning
	stApplied   // asked to commit
	stGranted   // let commit
	stCommitted // past its commit point, not yet durable
	stFinished
)

type coreTxn struct {
	schedTxn
	state   txnState
	worker  int
	after   uint64   // starts once every Seq <= after finished
	deps    []uint64 // and these finished
	waiting bool     // counted in waits already
}

// schedCore is the scheduling core. Not safe for concurrent use: its
// shell serialises calls.
type schedCore struct {
	opts    schedOptions
	queue   []*coreTxn // arrived, not started, in relay order
	running map[uint64]*coreTxn
	barrier bool   // a barrier is running
	last    uint64 // the last Seq that arrived
	stopped bool   // Failed: nothing more starts or commits
	drain   bool   // Drain: nothing more starts

	// parallel policies
	busy     int
	free     []int               // idle workers, ascending
	lwm      uint64              // every Seq <= lwm finished
	finished map[uint64]struct{} // finished above lwm
	commit   uint64              // Seqs < commit passed their commit point (or were executed)
	done     map[uint64]bool     // committed or executed at or above commit
	// LOGICAL_CLOCK: the current source file's transactions, sequence
	// number to Seq, ascending; floor is what every transaction of the
	// file waits for (everything before the file).
	epoch   []srcSeq
	floor   uint64
	prevSrc int64
	// write-set history: key hash to the last Seq that wrote it; wsFloor
	// is the newest Seq the history does not cover.
	history map[uint64]uint64
	wsFloor uint64
	// DATABASE: the last Seq that touched each database.
	lastDB map[string]uint64

	waits schedWaits
}

type srcSeq struct {
	src int64
	seq uint64
}

func newSchedCore(o schedOptions) *schedCore {
	if o.Depth < 1 {
		o.Depth = 1
	}
	if o.Workers < 1 || o.Policy == policySerial {
		o.Workers = 1
	}
	if o.Policy == policySerial {
		o.PreserveOrder = false
	}
	if o.HistorySize < 1 {
		o.HistorySize = 25000
	}
	c := &schedCore{opts: o, running: map[uint64]*coreTxn{}, finished: map[uint64]struct{}{},
		done: map[uint64]bool{}, history: map[uint64]uint64{}, lastDB: map[string]uint64{}, commit: 1}
	for w := 1; w <= o.Workers; w++ {
		c.free = append(c.free, w)
	}
	return c
}

// Arrive offers the next transaction in relay order.
func (c *schedCore) Arrive(t schedTxn) (schedDecision, error) {
	if t.Seq != c.last+1 {
		return schedDecision{}, fmt.Errorf("replica: scheduler: transaction %d arrived after %d", t.Seq, c.last)
	}
	c.last = t.Seq
	ct := &coreTxn{schedTxn: t}
	if c.opts.Policy != policySerial {
		c.dependencies(ct)
	}
	c.queue = append(c.queue, ct)
	return c.decide(nil), nil
}

// Rotate reports that the source started a new binlog file: its
// sequence numbers start again.
func (c *schedCore) Rotate() {
	c.epoch, c.prevSrc = c.epoch[:0], 0
	c.floor = c.last
}

// Applied reports that a started transaction applied its rows and asks
// to commit.
func (c *schedCore) Applied(seq uint64) (schedDecision, error) {
	t, ok := c.running[seq]
	if !ok || t.state != stRunning {
		return schedDecision{}, fmt.Errorf("replica: scheduler: transaction %d applied but was not running", seq)
	}
	t.state = stApplied
	var grant []uint64
	if !c.opts.PreserveOrder && !c.stopped {
		t.state = stGranted
		grant = []uint64{seq}
	} else if seq != c.commit {
		c.waits.CommitOrder++
	}
	return c.decide(grant), nil
}

// Committed reports that a transaction passed its commit point (its
// place in the replica's binlog is fixed): its worker is free.
func (c *schedCore) Committed(seq uint64) (schedDecision, error) {
	t, ok := c.running[seq]
	if !ok || t.state != stGranted {
		return schedDecision{}, fmt.Errorf("replica: scheduler: transaction %d committed but was not let commit", seq)
	}
	t.state = stCommitted
	c.release(t)
	c.markDone(seq)
	return c.decide(nil), nil
}

// Finished reports that a committed transaction finished: its commit is
// durable.
func (c *schedCore) Finished(seq uint64) (schedDecision, error) {
	t, ok := c.running[seq]
	if !ok || t.state != stCommitted {
		return schedDecision{}, fmt.Errorf("replica: scheduler: transaction %d finished but was not running", seq)
	}
	delete(c.running, seq)
	if t.Barrier {
		c.barrier = false
	}
	c.markFinished(seq)
	return c.decide(nil), nil
}

// markDone records that seq passed its commit point, for commit order
// (kept only when commit order is, so the map stays small).
func (c *schedCore) markDone(seq uint64) {
	if c.opts.PreserveOrder {
		c.done[seq] = true
	}
}

// Failed reports that a started transaction failed: the applier stops,
// nothing more starts or commits.
func (c *schedCore) Failed(seq uint64) {
	c.stopped = true
	if t, ok := c.running[seq]; ok {
		c.release(t)
		delete(c.running, seq)
	}
}

// Drain starts nothing more; started transactions still commit (a stop).
func (c *schedCore) Drain() { c.drain = true }

// Running is how many transactions started and have not finished.
func (c *schedCore) Running() int { return len(c.running) }

// Waiting is how many transactions arrived and may not start yet.
func (c *schedCore) Waiting() int { return len(c.queue) }

// Waits returns the wait counters.
func (c *schedCore) Waits() schedWaits { return c.waits }

func (c *schedCore) release(t *coreTxn) {
	if t.worker == 0 {
		return
	}
	c.busy--
	i := sort.SearchInts(c.free, t.worker)
	c.free = append(c.free, 0)
	copy(c.free[i+1:], c.free[i:])
	c.free[i] = t.worker
	t.worker = 0
}

func (c *schedCore) markFinished(seq uint64) {
	c.finished[seq] = struct{}{}
	for {
		if _, ok := c.finished[c.lwm+1]; !ok {
			return
		}
		delete(c.finished, c.lwm+1)
		c.lwm++
	}
}

func (c *schedCore) isFinished(seq uint64) bool {
	if seq <= c.lwm {
		return true
	}
	_, ok := c.finished[seq]
	return ok
}

// dependencies computes what t waits for, at its arrival (in relay order).
func (c *schedCore) dependencies(t *coreTxn) {
	all := t.Seq - 1 // everything before it
	if t.Executed {
		c.recordSrc(t)
		return
	}
	if t.Barrier || (c.opts.Policy == policyDatabase && len(t.DBs) == 0) {
		t.Barrier, t.after = true, all
		c.recordSrc(t)
		c.clearHistory(t.Seq)
		for db := range c.lastDB {
			c.lastDB[db] = t.Seq
		}
		return
	}
	switch c.opts.Policy {
	case policyDatabase:
		for _, db := range t.DBs {
			if s := c.lastDB[db]; s > 0 {
				t.deps = append(t.deps, s)
			}
			c.lastDB[db] = t.Seq
		}
		// Anything before the last barrier is finished once it is.
		t.after = c.wsFloor
	case policyLogicalClock:
		t.after = c.logicalClock(t)
		c.recordSrc(t)
	}
}

// logicalClock is LOGICAL_CLOCK's answer for t.
func (c *schedCore) logicalClock(t *coreTxn) uint64 {
	all := t.Seq - 1
	lc, sn := t.LastCommitted, t.SeqNo
	noInterval := lc == 0 && sn == 0
	serialInterval := sn > 0 && lc == sn-1
	if (noInterval || serialInterval) && t.Writeset != nil {
		if after, ok := c.byWriteset(t); ok {
			c.waits.ByWriteset++
			return after
		}
		return all
	}
	// Not in the history: later write-set transactions wait for it.
	c.wsFloor = t.Seq
	switch {
	case noInterval:
		return all
	case lc < 0 || lc >= sn:
		c.waits.Serialised++
		return all
	case c.prevSrc != 0 && sn != c.prevSrc+1:
		// A gap or a step back: the numbers cannot be trusted.
		c.epoch, c.floor = c.epoch[:0], all
		return all
	case lc == 0:
		return c.floor
	}
	// The newest transaction of this file numbered at most lc.
	i := sort.Search(len(c.epoch), func(i int) bool { return c.epoch[i].src > lc })
	after := c.floor
	if i > 0 && c.epoch[i-1].seq > after {
		after = c.epoch[i-1].seq
	}
	return after
}

// byWriteset is the write-set answer for t, and records t's keys.
func (c *schedCore) byWriteset(t *coreTxn) (uint64, bool) {
	if t.NoKeys || len(t.Writeset) == 0 {
		c.clearHistory(t.Seq)
		return 0, false
	}
	after := max(c.wsFloor, c.floor)
	for _, h := range t.Writeset {
		if s, ok := c.history[h]; ok && s > after {
			after = s
		}
	}
	if len(c.history)+len(t.Writeset) > c.opts.HistorySize {
		c.clearHistory(t.Seq)
		return after, true
	}
	for _, h := range t.Writeset {
		c.history[h] = t.Seq
	}
	return after, true
}

func (c *schedCore) clearHistory(seq uint64) {
	clear(c.history)
	c.wsFloor = seq
}

func (c *schedCore) recordSrc(t *coreTxn) {
	if t.SeqNo <= 0 {
		return
	}
	if n := len(c.epoch); n > 0 && c.epoch[n-1].src >= t.SeqNo {
		c.epoch, c.floor = c.epoch[:0], t.Seq-1
	}
	c.epoch = append(c.epoch, srcSeq{src: t.SeqNo, seq: t.Seq})
	c.prevSrc = t.SeqNo
}

func (c *schedCore) decide(grant []uint64) schedDecision {
	var d schedDecision
	d.Commit = grant
	if c.stopped {
		d.Commit = nil
		return d
	}
	d.Start = c.start()
	if c.opts.PreserveOrder {
		for c.done[c.commit] {
			delete(c.done, c.commit)
			c.commit++
		}
		if t, ok := c.running[c.commit]; ok && t.state == stApplied {
			t.state = stGranted
			d.Commit = append(d.Commit, t.Seq)
		}
	}
	return d
}

func (c *schedCore) start() []schedStart {
	var start []schedStart
	for len(c.queue) > 0 && !c.stopped && !c.drain {
		t := c.queue[0]
		if t.Executed {
			c.queue = c.queue[1:]
			c.markDone(t.Seq)
			c.markFinished(t.Seq)
			continue
		}
		if why := c.blocked(t); why != nil {
			if !t.waiting && c.opts.Policy != policySerial {
				t.waiting = true
				*why++
			}
			break
		}
		c.queue = c.queue[1:]
		t.state = stRunning
		t.worker = c.free[0]
		c.free = c.free[1:]
		c.busy++
		c.running[t.Seq] = t
		if t.Barrier {
			c.barrier = true
		}
		start = append(start, schedStart{Seq: t.Seq, Worker: t.worker})
	}
	return start
}

// blocked says which counter t's wait goes to, nil if it may start.
func (c *schedCore) blocked(t *coreTxn) *uint64 {
	if c.opts.Policy == policySerial {
		return c.blockedSerial(t)
	}
	switch {
	case c.barrier:
		return &c.waits.Barrier
	case t.Barrier && c.lwm < t.Seq-1:
		return &c.waits.Barrier
	case c.lwm < t.after:
		return &c.waits.Dependency
	}
	for _, d := range t.deps {
		if !c.isFinished(d) {
			return &c.waits.Dependency
		}
	}
	if c.busy >= c.opts.Workers {
		return &c.waits.Workers
	}
	return nil
}

// blockedSerial is blocked under the serial policy.
func (c *schedCore) blockedSerial(t *coreTxn) *uint64 {
	switch {
	case c.barrier, t.Barrier && len(c.running) > 0:
		return &c.waits.Barrier
	case t.NoKeys && len(c.running) > 0:
		return &c.waits.Dependency
	case c.busy >= c.opts.Workers || len(c.running) >= c.opts.Depth:
		return &c.waits.Workers
	}
	return nil
}
