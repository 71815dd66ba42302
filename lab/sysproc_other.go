//go:build !linux

package lab

import "syscall"

// sysProcAttr returns nil: parent-death signals are Linux-only, and lab is
// run on Linux (Debian) in practice.
func sysProcAttr() *syscall.SysProcAttr { return nil }
