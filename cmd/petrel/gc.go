package main

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// serverGCPercent is the garbage collector's target for the server: a
// server's heap is mostly short-lived garbage per statement (rows,
// packets, log events); with Go's default of 100 a write-heavy load
// collects several times a second (sysbench oltp_write_only at 32
// threads: +5% TPS at 400, docs/PERFORMANCE.md).
const serverGCPercent = 400

// tuneGC applies serverGCPercent and a soft memory limit of half the
// machine's RAM (so a large live heap makes the collector work harder
// instead of growing 5x), unless GOGC or GOMEMLIMIT say otherwise.
func tuneGC(logger *slog.Logger) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
		logger.Debug("gc", "percent", serverGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := physicalMemory(); total > 0 {
			debug.SetMemoryLimit(int64(total / 2))
			logger.Debug("gc", "memory_limit", total/2)
		}
	}
}
