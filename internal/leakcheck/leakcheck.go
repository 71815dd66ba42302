// Package leakcheck fails a package's tests when goroutines running
// Petrel's code outlive them: every wait and worker must have an owner
// that stops it. Goroutines of libraries (Pebble's, for a DB a crash test
// abandoned as a killed process would) are not counted unless Petrel code
// started or runs in them.
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// module is the prefix of Petrel's functions in stack traces.
const module = "petrel/"

// Main runs the tests, then fails the run if Petrel goroutines are left
// after a grace period (goroutines that are ending get up to wait).
func Main(m *testing.M, wait time.Duration) {
	code := m.Run()
	if code == 0 {
		if leaked := Wait(wait); len(leaked) > 0 {
			fmt.Fprintf(os.Stderr, "leakcheck: %d goroutine(s) running Petrel code outlived the tests:\n\n%s\n", len(leaked), strings.Join(leaked, "\n\n"))
			code = 1
		}
	}
	os.Exit(code)
}

// Wait returns the Petrel goroutines still running after up to d.
func Wait(d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		leaked := Running()
		if len(leaked) == 0 || time.Now().After(deadline) {
			return leaked
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Running returns the stacks of the goroutines, other than the caller's,
// with a Petrel function in their stack or Petrel code as their creator.
func Running() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	blocks := strings.Split(string(buf), "\n\n")
	var out []string
	for i, b := range blocks {
		if i == 0 || !petrel(b) { // the first is the caller's own goroutine
			continue
		}
		out = append(out, b)
	}
	return out
}

// petrel reports whether a goroutine's stack runs or was created by
// Petrel code (test functions included: a test's own goroutine left
// running is a leak too).
func petrel(stack string) bool {
	for _, line := range strings.Split(stack, "\n") {
		line = strings.TrimPrefix(line, "created by ")
		if strings.HasPrefix(line, module) {
			return true
		}
	}
	return false
}
