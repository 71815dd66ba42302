//go:build !linux

package main

import "time"

// readCPU knows only Linux's /proc; elsewhere the report says "unknown".
func readCPU() cpuSnapshot { return cpuSnapshot{at: time.Now()} }

// processCPU is unknown outside Linux.
func processCPU(int) (time.Duration, bool) { return 0, false }
