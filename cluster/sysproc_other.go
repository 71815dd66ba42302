//go:build !linux

package cluster

import (
	"os"
	"syscall"
)

// sysProcAttr: own process group only; parent-death signals are
// Linux-only, and `petrel cluster` runs on Linux in practice.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// lockFile: no advisory lock outside Linux.
func lockFile(*os.File) error { return nil }
