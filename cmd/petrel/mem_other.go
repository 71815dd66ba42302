//go:build !linux

package main

// physicalMemory is unknown here: no memory limit is set.
func physicalMemory() uint64 { return 0 }
