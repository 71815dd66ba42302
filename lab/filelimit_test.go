//go:build unix

package lab

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A limit RaiseFileLimit set is the one a child starts with (the Go
// runtime gives children the limit the process started with unless the
// program sets it itself): sh's `ulimit -n` reports it.
func TestRaiseFileLimitReachesChildren(t *testing.T) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	want := min(l.Max, 4096)
	got, err := RaiseFileLimit(want)
	if err != nil {
		t.Fatal(err)
	}
	if got < want {
		t.Fatalf("RaiseFileLimit(%d) = %d with a hard limit of %d", want, got, l.Max)
	}
	out, err := exec.Command("sh", "-c", "ulimit -n").Output()
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		t.Fatalf("ulimit -n printed %q", out)
	}
	if child != got {
		t.Fatalf("a child's open-files limit is %d, RaiseFileLimit returned %d", child, got)
	}
}
