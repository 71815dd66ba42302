package main

import (
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"

	"petrel/node"
)

// serverGCPercent is the garbage collector's target for the server: a
// server's heap is mostly short-lived garbage per statement (rows,
// packets, log events); with Go's default of 100 a write-heavy load
// collects several times a second (sysbench oltp_write_only at 32
// threads: +5% TPS at 400, docs/history/PERFORMANCE-log.md).
const serverGCPercent = 400

// gcHeadroom bounds what the collector lets the heap grow past the live
// heap before the next collection while a large transaction is open
// (issue 29). GOGC=400 alone lets it grow to five times the live heap: a
// large transaction holding 800 MB live would take 4 GB of RSS before a
// collection. At the end of every collection, while storage counts a
// large transaction (node.LargeTransactions), and when one becomes large
// (node.OnLargeTransaction), the soft memory limit is set to
// the live heap plus this headroom plus the runtime's own non-heap memory
// (gcCeiling), never above petrel_memory_limit; otherwise it is
// petrel_memory_limit. Not always: a server holding thousands of
// connections has a live heap of several hundred MB that GOGC=400 lets
// grow freely, and bounding it there cost 40% of its point-select
// throughput (2000 connections, docs/history/PERFORMANCE-log.md).
const gcHeadroom = 256 << 20

// memLimit is petrel_memory_limit (or half the RAM until it is known),
// the ceiling the GC hook never goes above; 0 until set.
var memLimit atomic.Int64

// tuneGC applies serverGCPercent, unless GOGC says otherwise, and a soft
// memory limit of half the machine's RAM (node.DefaultMemoryLimit) until
// the server's own petrel_memory_limit is known (setMemoryLimit).
func tuneGC(logger *slog.Logger) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
		logger.Debug("gc", "percent", serverGCPercent)
	}
	if total := physicalMemory(); total > 0 {
		setMemoryLimit(int64(total/2), logger)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		onEveryGC(func() bool { applyGCCeiling(node.LargeTransactions() > 0); return true })
		// And at once when a transaction becomes large: the next
		// collection may be gigabytes away.
		node.OnLargeTransaction(func() { applyGCCeiling(true) })
	}
}

// setMemoryLimit makes limit bytes (petrel_memory_limit; 0: none) Go's
// soft memory limit, so a large live heap makes the collector work
// harder instead of growing past the server's budget. GOMEMLIMIT, when
// set, wins (Go applied it at start).
func setMemoryLimit(limit int64, logger *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" || limit <= 0 {
		return
	}
	memLimit.Store(limit)
	debug.SetMemoryLimit(limit)
	logger.Debug("gc", "memory_limit", limit)
}

// gcCeiling is the soft memory limit for the next cycle: the live heap,
// the runtime's other memory and the headroom, at most limit (0: none).
func gcCeiling(limit, live, other, headroom int64) int64 {
	c := live + max(other, 0) + headroom
	if c < 0 { // overflow
		c = math.MaxInt64
	}
	if limit > 0 {
		c = min(c, limit)
	}
	return c
}

// gcMetrics are the runtime/metrics gcCeiling reads.
var gcMetrics = []string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
}

// applyGCCeiling sets the soft memory limit from the collection that
// just ended: petrel_memory_limit, or with bounded (a large transaction
// is open) gcCeiling's. Go's limit counts all its mapped memory but what
// it released to the OS, so the runtime's other memory (stacks,
// metadata, fragmentation) is that minus the heap's objects and free
// pages.
func applyGCCeiling(bounded bool) {
	limit := memLimit.Load()
	if !bounded {
		if limit > 0 {
			debug.SetMemoryLimit(limit)
		}
		return
	}
	ms := make([]metrics.Sample, len(gcMetrics))
	for i, n := range gcMetrics {
		ms[i].Name = n
	}
	metrics.Read(ms)
	v := make([]int64, len(ms))
	for i := range ms {
		if ms[i].Value.Kind() == metrics.KindUint64 {
			v[i] = int64(min(ms[i].Value.Uint64(), math.MaxInt64))
		}
	}
	debug.SetMemoryLimit(gcCeiling(max(limit, 0), v[0], v[1]-v[2]-v[3]-v[4], gcHeadroom))
}

// gcSentinel is garbage whose finalizer runs once per collection.
type gcSentinel struct{ _ [16]byte }

// onEveryGC runs fn after every collection until it returns false (on
// the runtime's finalizer goroutine: fn must be quick).
func onEveryGC(fn func() bool) {
	s := &gcSentinel{}
	runtime.SetFinalizer(s, func(*gcSentinel) {
		if fn() {
			onEveryGC(fn)
		}
	})
}
