package replica

import "fmt"

// The applier's second stage: the scheduling core. It decides when each
// transaction read from the relay log may start applying, and nothing
// else: calls in, decisions out, no goroutines, no clock, no I/O, so a
// test replays any interleaving of arrivals and completions (testdata/
// sched). The applier (applier.go) carries its decisions out.
//
// The policy is serial: transactions start in relay order, each as soon as
// the one before it has started (its commit may still be completing in
// the commit pipeline, where row locks keep dependent transactions in
// order), with at most depth started and unfinished. A barrier (DDL)
// starts only once every transaction before it has finished, and nothing
// after it starts until it has finished. The parallel applier replaces
// this policy, not the loop around it.

// schedTxn is what the core knows of a transaction.
type schedTxn struct {
	Seq     uint64 // relay order, from 1, no gaps
	Barrier bool   // runs alone (DDL)
}

// schedCore is the scheduling core. Not safe for concurrent use: its
// shell serialises calls.
type schedCore struct {
	depth   int
	queue   []schedTxn // arrived, not started, in relay order
	running map[uint64]schedTxn
	barrier bool   // a barrier is running
	last    uint64 // the last Seq that arrived
}

func newSchedCore(depth int) *schedCore {
	if depth < 1 {
		depth = 1
	}
	return &schedCore{depth: depth, running: map[uint64]schedTxn{}}
}

// Arrive offers the next transaction in relay order and returns the
// transactions that may start now, in order.
func (c *schedCore) Arrive(t schedTxn) ([]uint64, error) {
	if t.Seq != c.last+1 {
		return nil, fmt.Errorf("replica: scheduler: transaction %d arrived after %d", t.Seq, c.last)
	}
	c.last = t.Seq
	c.queue = append(c.queue, t)
	return c.startable(), nil
}

// Finished reports that a started transaction finished (committed or
// failed) and returns the transactions that may start now, in order.
func (c *schedCore) Finished(seq uint64) ([]uint64, error) {
	t, ok := c.running[seq]
	if !ok {
		return nil, fmt.Errorf("replica: scheduler: transaction %d finished but was not running", seq)
	}
	delete(c.running, seq)
	if t.Barrier {
		c.barrier = false
	}
	return c.startable(), nil
}

// Running is how many transactions started and have not finished.
func (c *schedCore) Running() int { return len(c.running) }

// Waiting is how many transactions arrived and may not start yet.
func (c *schedCore) Waiting() int { return len(c.queue) }

func (c *schedCore) startable() []uint64 {
	var start []uint64
	for len(c.queue) > 0 && !c.barrier && len(c.running) < c.depth {
		t := c.queue[0]
		if t.Barrier && len(c.running) > 0 {
			break
		}
		c.queue = c.queue[1:]
		c.running[t.Seq] = t
		start = append(start, t.Seq)
		if t.Barrier {
			c.barrier = true
		}
	}
	return start
}
