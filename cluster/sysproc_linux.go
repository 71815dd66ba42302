package cluster

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts a node in its own process group (a terminal's ^C
// reaches only the supervisor, which stops the nodes in order) and has the
// kernel send it SIGTERM when the supervisor dies, even by kill -9, so no
// node outlives it. Pdeathsig fires when the forking OS thread exits: the
// supervisor forks from one goroutine locked to its thread for the
// supervisor's whole life (spawner).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// lockFile takes an exclusive, non-blocking flock on f: the kernel
// releases it when the process dies, however it dies.
func lockFile(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}
