package lab

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// An Impairment is what a WAN does to the packets crossing it in one
// direction. The zero value is a perfect line: no delay, loss or cap.
// A packet meets the faults in this order, as on a real path:
//
//  1. The bandwidth cap (RateBps): the packet waits in a FIFO queue
//     until the line has sent everything ahead of it, then takes
//     size*8/RateBps to serialize. A packet that would find the queue
//     over its limit (QueueBytes or QueueDelay) is tail-dropped.
//  2. Loss on the line (Loss, then Burst): the packet has used its share
//     of the rate, as a packet corrupted on the wire has, and is gone.
//  3. Propagation: it arrives Delay (±Jitter) after leaving the queue.
//     Jitter never reorders: a packet is not delivered before the one
//     sent ahead of it, unless Reorder picked it, in which case it is
//     held ReorderDelay longer and later packets may overtake it.
type Impairment struct {
	// Delay is the one-way propagation delay. Default 0.
	Delay time.Duration
	// Jitter varies each packet's delay uniformly within Delay±Jitter
	// (never below zero). Default 0.
	Jitter time.Duration
	// Loss is the probability, 0 to 1, that a packet is dropped at
	// random, independently of the others. Default 0.
	Loss float64
	// Burst is bursty loss on top of Loss. Default none.
	Burst GilbertElliott
	// Reorder is the probability, 0 to 1, that a packet is held
	// ReorderDelay longer than its delay, so packets sent after it can
	// arrive first. Default 0.
	Reorder float64
	// ReorderDelay is the extra delay of a reordered packet. Default 5ms
	// when Reorder is set.
	ReorderDelay time.Duration
	// RateBps caps the line at this many bits per second of IP packets.
	// Default 0: no cap, no queue.
	RateBps int64
	// QueueBytes limits the queue in front of the cap, in bytes of
	// packets waiting (including the one being serialized). Default 0:
	// no byte limit.
	QueueBytes int
	// QueueDelay limits the queue by the time a packet would wait in it
	// before starting to serialize. Default 100ms when RateBps is set
	// and QueueBytes is not, so the queue is always bounded.
	QueueDelay time.Duration
}

// GilbertElliott is a two-state Markov loss model: the line is good or
// bad; after each packet it moves good→bad with probability PGoodBad and
// bad→good with PBadGood; in the bad state a packet is lost with
// probability LossBad (in the good state Burst loses nothing). The mean
// burst length is 1/PBadGood packets. The zero value never leaves the
// good state.
type GilbertElliott struct {
	PGoodBad float64
	PBadGood float64
	LossBad  float64
}

const (
	defaultReorderDelay = 5 * time.Millisecond
	defaultQueueDelay   = 100 * time.Millisecond
)

// withDefaults validates imp and fills the defaults its comments state.
func (imp Impairment) withDefaults() (Impairment, error) {
	var errs []error
	for _, p := range []struct {
		name string
		v    float64
	}{{"Loss", imp.Loss}, {"Reorder", imp.Reorder}, {"Burst.PGoodBad", imp.Burst.PGoodBad},
		{"Burst.PBadGood", imp.Burst.PBadGood}, {"Burst.LossBad", imp.Burst.LossBad}} {
		if !(p.v >= 0 && p.v <= 1) {
			errs = append(errs, fmt.Errorf("%s %v is not a probability (0 to 1)", p.name, p.v))
		}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Delay", imp.Delay}, {"Jitter", imp.Jitter}, {"ReorderDelay", imp.ReorderDelay}, {"QueueDelay", imp.QueueDelay}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s %v is negative", d.name, d.v))
		}
	}
	if imp.RateBps < 0 || imp.QueueBytes < 0 {
		errs = append(errs, fmt.Errorf("RateBps %d or QueueBytes %d is negative", imp.RateBps, imp.QueueBytes))
	}
	if imp.Burst.PGoodBad > 0 && imp.Burst.PBadGood == 0 {
		errs = append(errs, errors.New("Burst.PBadGood is 0: the line would stay bad for ever"))
	}
	if len(errs) > 0 {
		return imp, fmt.Errorf("lab: wan impairment: %w", errors.Join(errs...))
	}
	if imp.Reorder > 0 && imp.ReorderDelay == 0 {
		imp.ReorderDelay = defaultReorderDelay
	}
	if imp.RateBps > 0 && imp.QueueBytes == 0 && imp.QueueDelay == 0 {
		imp.QueueDelay = defaultQueueDelay
	}
	return imp, nil
}

// wanDrop says why a packet was dropped.
type wanDrop int

const (
	wanDelivered wanDrop = iota
	wanDropQueue         // tail drop at the bandwidth cap's full queue
	wanDropLoss          // random loss
	wanDropBurst         // Gilbert-Elliott loss in the bad state
)

func (d wanDrop) String() string {
	return [...]string{"delivered", "queue", "loss", "burst"}[d]
}

// A wanVerdict is the policy's decision on one packet: deliver it at At,
// or drop it.
type wanVerdict struct {
	Drop      wanDrop
	At        time.Time
	Reordered bool // held ReorderDelay longer than its turn
}

// wanPolicy is the impairment of one direction as a deterministic core:
// packets go in with their arrival time and size, verdicts come out. It
// has no clock, goroutine or I/O; its randomness is a PCG seeded at
// construction, and it draws the same numbers for the same inputs, so a
// scenario replays exactly. Not safe for concurrent use.
type wanPolicy struct {
	imp Impairment
	rng *rand.Rand

	bad       bool      // Gilbert-Elliott state
	busyUntil time.Time // when the cap has sent every queued packet
	lastAt    time.Time // latest delivery time of an in-order packet
}

// newWANPolicy returns a policy for imp, which must have passed
// withDefaults, drawing from a generator seeded with seed.
func newWANPolicy(imp Impairment, seed uint64) *wanPolicy {
	return &wanPolicy{imp: imp, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// set replaces the impairment for packets arriving from now on. The queue
// (packets already accepted keep their times), the line's state (unless
// bursts are switched off) and the generator carry on.
func (p *wanPolicy) set(imp Impairment) {
	p.imp = imp
	if imp.Burst.PGoodBad == 0 {
		p.bad = false // no bursts any more: the line is good
	}
}

// queued returns the bytes waiting at the cap at now, including the
// unsent part of the packet being serialized.
func (p *wanPolicy) queued(now time.Time) int64 {
	if p.imp.RateBps == 0 || !p.busyUntil.After(now) {
		return 0
	}
	return int64(p.busyUntil.Sub(now).Seconds() * float64(p.imp.RateBps) / 8)
}

// arrive decides the fate of a packet of size bytes that reaches the line
// at now. Calls must come in non-decreasing now.
func (p *wanPolicy) arrive(now time.Time, size int) wanVerdict {
	imp := &p.imp
	depart := now
	if imp.RateBps > 0 {
		start := now
		if p.busyUntil.After(now) {
			start = p.busyUntil
		}
		wait := start.Sub(now)
		if (imp.QueueDelay > 0 && wait > imp.QueueDelay) ||
			(imp.QueueBytes > 0 && p.queued(now)+int64(size) > int64(imp.QueueBytes)) {
			return wanVerdict{Drop: wanDropQueue}
		}
		depart = start.Add(time.Duration(int64(size) * 8 * int64(time.Second) / imp.RateBps))
		p.busyUntil = depart
	}
	if imp.Loss > 0 && p.rng.Float64() < imp.Loss {
		return wanVerdict{Drop: wanDropLoss}
	}
	if imp.Burst.PGoodBad > 0 || p.bad {
		lost := p.bad && p.rng.Float64() < imp.Burst.LossBad
		if p.bad {
			p.bad = p.rng.Float64() >= imp.Burst.PBadGood
		} else {
			p.bad = p.rng.Float64() < imp.Burst.PGoodBad
		}
		if lost {
			return wanVerdict{Drop: wanDropBurst}
		}
	}
	delay := imp.Delay
	if imp.Jitter > 0 {
		delay += time.Duration((p.rng.Float64()*2 - 1) * float64(imp.Jitter))
		delay = max(delay, 0)
	}
	at := depart.Add(delay)
	if imp.Reorder > 0 && p.rng.Float64() < imp.Reorder {
		return wanVerdict{At: at.Add(imp.ReorderDelay), Reordered: true}
	}
	if at.Before(p.lastAt) {
		at = p.lastAt
	}
	p.lastAt = at
	return wanVerdict{At: at}
}

// ParseRate parses a bandwidth in bits per second, as tc writes it:
// "20mbit", "1.5mbit", "64kbit", "1gbit" or a plain number of bits/s.
func ParseRate(s string) (int64, error) {
	num, mult := strings.ToLower(s), 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}} {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSuffix(num, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("lab: rate %q is not a number of bits/s with an optional kbit, mbit or gbit suffix", s)
	}
	return int64(math.Round(v * mult)), nil
}
