//go:build unix

package lab

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// RaiseFileLimit raises this process's open-files limit (RLIMIT_NOFILE)
// to at least want where it can, and returns the soft limit it ends
// with. Every process lab starts afterwards (petrel, mariadbd, sysbench,
// mariadb-slap) inherits it: a 10000-client run needs 10000 sockets in
// the load generator and as many in the server, and mariadbd sizes
// open_files_limit (and may lower max_connections) from the limit it
// starts with.
//
// The soft limit goes up to the hard one; as root the hard one goes up
// too, to want but at most fs.nr_open. Setrlimit is called even when the
// soft limit already suffices: the Go runtime raises its own soft limit
// at start and gives children the original one back unless the program
// sets the limit itself.
func RaiseFileLimit(want uint64) (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	if l.Max < want && os.Geteuid() == 0 {
		hard := want
		if n := nrOpen(); n > 0 && n < hard {
			hard = n
		}
		if hard > l.Max {
			raised := syscall.Rlimit{Cur: hard, Max: hard}
			if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
				l = raised
			}
		}
	}
	if l.Cur < want {
		l.Cur = min(want, l.Max)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	return l.Cur, nil
}

// nrOpen is the kernel's ceiling on a process's open files, 0 if unknown.
func nrOpen() uint64 {
	b, err := os.ReadFile("/proc/sys/fs/nr_open")
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n
}
