package lab

import "syscall"

// sysProcAttr puts a server in its own process group, so a terminal's ^C
// reaches only the test or benchmark (which then stops the server cleanly),
// and has the kernel SIGKILL it if the thread that started it dies, so a
// crashed or timed-out test binary does not leak servers.
//
// Pdeathsig fires when the forking OS thread exits. The Go runtime keeps
// its threads alive unless some goroutine exits while locked to one
// (runtime.LockOSThread without Unlock); processes using lab should not do
// that.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
