package main

import "testing"

// TestParseTaskClock: perf stat -x, output yields task-clock's
// milliseconds; output without the counter is an error.
func TestParseTaskClock(t *testing.T) {
	out := "\n12345.67,msec,task-clock,12345670000,100.00,1.987,CPUs utilized\n"
	if ms, err := parseTaskClock(out); err != nil || ms != 12345.67 {
		t.Fatalf("got %v, %v", ms, err)
	}
	if _, err := parseTaskClock("<not counted>,msec,task-clock,0,100.00,,\n"); err == nil {
		t.Fatal("<not counted>: no error")
	}
	if _, err := parseTaskClock("perf: permission denied\n"); err == nil {
		t.Fatal("no counter: no error")
	}
}
