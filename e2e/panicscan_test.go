package e2e

import (
	"strings"
	"testing"
)

// TestPanicLine checks the log scanner startPetrel's cleanup runs: the
// lines vitess, GMS and the Go runtime write for a panic are found, and
// ordinary lines, including a statement's text with the word in it, are
// not.
func TestPanicLine(t *testing.T) {
	found := []string{
		// vitess, around a connection (a real line, shortened).
		`time="2026-11-26T23:11:05Z" level=error msg="mysql_server caught panic:\nruntime error: invalid memory address or nil pointer dereference\n/usr/local/go/src/runtime/panic.go:336"`,
		// GMS, a panic of a result goroutine, as logged with its error.
		`time="2026-11-26T23:11:05Z" level=warning msg="error running query" error="handler caught panic: runtime error: index out of range [3] with length 3"`,
		"level=error msg=\"panic while running query for server-side cursor: boom\"",
		// The runtime, unrecovered.
		"panic: runtime error: slice bounds out of range\n\ngoroutine 17 [running]:\nmain.main()",
	}
	for _, l := range found {
		log := "time=... level=info msg=\"server started\"\n" + l + "\ntime=... level=info msg=\"shutdown\"\n"
		got := panicLine(log)
		if got == "" {
			t.Errorf("panicLine missed %q", l)
			continue
		}
		if first := strings.SplitN(l, "\n", 2)[0]; !strings.HasPrefix(first, got[:min(len(got), len(first))]) {
			t.Errorf("panicLine(%q) = %q, want the line that shows the panic", l, got)
		}
	}
	clean := "time=... level=info msg=\"server started\"\n" +
		"time=... level=warning msg=\"error running query\" query=\"SELECT 'no panic here'\" error=\"table not found: panics\"\n" +
		"time=... level=info msg=\"shutdown\"\n"
	if got := panicLine(clean); got != "" {
		t.Errorf("panicLine found %q in a clean log", got)
	}
}
