package labrun

import (
	"errors"
	"strings"
	"testing"

	"petrel/lab"
)

// TestPositions: both systems' positions count the primary's
// transactions.
func TestPositions(t *testing.T) {
	uuid := "3e11fa47-71ca-11e1-9e33-c80aa9429562"
	for _, tc := range []struct {
		set  string
		want int64
	}{
		{uuid + ":1-42", 42},
		{"aaaaaaaa-71ca-11e1-9e33-c80aa9429562:1-9,\n" + uuid + ":1-7:9", 7},
		{uuid + ":3-9", 0}, // a gap at the start: not in order from 1
		{"", 0},
	} {
		if got, err := lab.GTIDCount(tc.set, uuid); err != nil || got != tc.want {
			t.Errorf("lab.GTIDCount(%q) = %d, %v; want %d", tc.set, got, err, tc.want)
		}
	}
	if _, err := lab.GTIDCount(uuid+":1-x", uuid); err == nil {
		t.Error("a bad GTID set was accepted")
	}
	for pos, want := range map[string]int64{"0-1-1234": 1234, "1-2-5,0-1-17": 17, "": 0, "1-1-9": 0} {
		if got, err := lab.MariaDBSeq(pos); err != nil || got != want {
			t.Errorf("lab.MariaDBSeq(%q) = %d, %v; want %d", pos, got, err, want)
		}
	}
}

// TestExplainStart: a port taken between FreePort and the server's bind
// gets advice; other errors pass through unchanged.
func TestExplainStart(t *testing.T) {
	err := explainStart(errors.New("listen tcp 127.0.0.1:21000: bind: address already in use"))
	if !strings.Contains(err.Error(), "ports in use") || !strings.Contains(err.Error(), "bind: address already in use") {
		t.Errorf("explained: %v", err)
	}
	other := errors.New("boom")
	if got := explainStart(other); got != other {
		t.Errorf("explainStart(boom) = %v", got)
	}
}

// TestLagHelpers: the lag figures read the samples as documented.
func TestLagHelpers(t *testing.T) {
	pts := []Point{{0, 0}, {1, 0.2}, {2, 1.5}, {3, 0.8}, {4, 0.1}, {5, 0}}
	if got := maxIn(pts, 1, 4); got != 1.5 {
		t.Errorf("maxIn = %v", got)
	}
	if got := meanIn(pts, 1, 3); got != (0.2+1.5)/2 {
		t.Errorf("meanIn = %v", got)
	}
	// Under 0.5 s for good from x=4 on: settled 1 s after x=3... the last
	// sample at or over the limit is x=3.
	if got := settledAfter(pts, 2, 0.5); got != 1 {
		t.Errorf("settledAfter = %v, want 1", got)
	}
	b := bucket([]Commit{{At: 50e6, Latency: 3e6}, {At: 60e6, Latency: 9e6}, {At: 150e6, Latency: 1e6}}, 0.1, 0.2, false)
	if len(b) != 2 || b[0].Y != 9 || b[1].Y != 1 {
		t.Errorf("bucket max latency = %v", b)
	}
	r := bucket([]Commit{{At: 50e6}, {At: 60e6}, {At: 150e6}}, 0.1, 0.2, true)
	if len(r) != 2 || r[0].Y != 20 || r[1].Y != 10 {
		t.Errorf("bucket rate = %v", r)
	}
}
