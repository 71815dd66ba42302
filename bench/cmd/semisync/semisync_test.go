package main

import (
	"testing"
	"time"
)

func TestDiffCountsAcksFromLinkBytes(t *testing.T) {
	const file = "binlog.000001" // an ack is 4 + 1 + 8 + 13 = 26 bytes
	a := counters{commits: 100, groups: 40, yesTx: 10, linkUp: 1000, file: file, status: "ON"}
	b := counters{commits: 160, groups: 55, yesTx: 70, linkUp: 1000 + 20*26, file: file, status: "ON"}
	d := diff(a, b)
	if d.acks != 20 || !d.acksExact {
		t.Fatalf("acks = %d exact=%v, want 20 exact", d.acks, d.acksExact)
	}
	if got := d.commitsPerAck(); got != 3 {
		t.Errorf("commits per ack = %v, want 3", got)
	}
	if got := d.commitsPerGroup(); got != 4 {
		t.Errorf("commits per group = %v, want 4", got)
	}
	b.linkUp++
	if d := diff(a, b); d.acksExact {
		t.Errorf("%d bytes counted as a whole number of acks", b.linkUp-a.linkUp)
	}
	b.file = "binlog.000002"
	if d := diff(a, b); d.acks != 0 || d.acksExact {
		t.Errorf("acks across a rotation = %d exact=%v, want unknown", d.acks, d.acksExact)
	}
}

func TestRTTBound(t *testing.T) {
	s := slapRun{rtt: 90 * time.Millisecond, d: delta{commits: 550}}
	if got := s.rttBound(10); got != 4950*time.Millisecond {
		t.Errorf("RTT bound = %v, want 4.95s", got)
	}
}

func TestSlapSeconds(t *testing.T) {
	out := "Benchmark\n\tAverage number of seconds to run all queries: 50.089 seconds\n\tMinimum number of seconds to run all queries: 50.089 seconds\n"
	m := slapSeconds.FindStringSubmatch(out)
	if m == nil || m[1] != "50.089" {
		t.Fatalf("slapSeconds matched %q", m)
	}
}

// Even rounds run the plan backwards, and every switch to sync_binlog=0
// (the probe of it needs semi-sync ON) follows or is a semi-sync step.
func TestPlanAlternatesAndProbesWithSemiSyncOn(t *testing.T) {
	fwd, back := sbPlan("petrel", 1), sbPlan("petrel", 2)
	for i := range fwd {
		if fwd[i] != back[len(back)-1-i] {
			t.Fatalf("round 2 %v is not round 1 %v reversed", back, fwd)
		}
	}
	current := 1
	for round := 1; round <= 4; round++ {
		for _, s := range sbPlan("petrel", round) {
			if s.syncBinlog != current && s.syncBinlog == 0 && !s.mode.semi() {
				t.Fatalf("round %d switches to sync_binlog=0 in an async step", round)
			}
			current = s.syncBinlog
		}
	}
}

// Tables show the mean over rounds.
func TestFindSBAveragesRounds(t *testing.T) {
	r := &systemResult{}
	for i, tps := range []float64{100, 300} {
		run := sbRun{round: i + 1, syncBinlog: 1, mode: semiWrite, threads: 32}
		run.res.TPS = tps
		r.sb = append(r.sb, run)
	}
	got, ok := findSB(r, sbKey{1, semiWrite, 32})
	if !ok || got.res.TPS != 200 {
		t.Fatalf("mean TPS %v (found %v), want 200", got.res.TPS, ok)
	}
	if _, ok := findSB(r, sbKey{0, semiWrite, 32}); ok {
		t.Fatal("found a configuration that never ran")
	}
}
