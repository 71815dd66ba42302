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
// threads: +5% TPS at 400, docs/history/PERFORMANCE-log.md).
const serverGCPercent = 400

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
}

// setMemoryLimit makes limit bytes (petrel_memory_limit; 0: none) Go's
// soft memory limit, so a large live heap makes the collector work
// harder instead of growing past the server's budget. GOMEMLIMIT, when
// set, wins (Go applied it at start).
func setMemoryLimit(limit int64, logger *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" || limit <= 0 {
		return
	}
	debug.SetMemoryLimit(limit)
	logger.Debug("gc", "memory_limit", limit)
}
