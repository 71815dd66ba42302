package labrun

import "testing"

func TestSemiDiffCountsAcksFromLinkBytes(t *testing.T) {
	const file = "binlog.000001" // an ack is 4 + 1 + 8 + 13 = 26 bytes
	a := semiCounters{commits: 100, groups: 40, yesTx: 10, linkUp: 1000, file: file, status: "ON"}
	b := semiCounters{commits: 160, groups: 55, yesTx: 70, linkUp: 1000 + 20*26, file: file, status: "ON"}
	d := semiDiff(a, b)
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
	if d := semiDiff(a, b); d.acksExact {
		t.Errorf("%d bytes counted as a whole number of acks", b.linkUp-a.linkUp)
	}
	b.file = "binlog.000002"
	if d := semiDiff(a, b); d.acks != 0 || d.acksExact {
		t.Errorf("acks across a rotation = %d exact=%v, want unknown", d.acks, d.acksExact)
	}
}

// Semi-sync held: ON with one client, no_tx still, yes_tx grew; async:
// OFF at both ends. Each broken condition is an error.
func TestSemiCheck(t *testing.T) {
	p := &semiPair{f: Names{SemiStatusPrefix: "Rpl_semi_sync_source_"}}
	on := semiCounters{status: "ON", clients: 1}
	good := semiDelta{commits: 10, yesTx: 10, statusEnd: "ON"}
	if err := p.check(semiWrite, on, good); err != nil {
		t.Errorf("semi-sync run that held: %v", err)
	}
	for name, tc := range map[string]struct {
		before semiCounters
		d      semiDelta
	}{
		"no client":      {semiCounters{status: "ON"}, good},
		"fell back":      {on, semiDelta{commits: 10, yesTx: 9, noTx: 1, statusEnd: "ON"}},
		"OFF at the end": {on, semiDelta{commits: 10, yesTx: 10, statusEnd: "OFF"}},
		"nothing acked":  {on, semiDelta{commits: 10, statusEnd: "ON"}},
	} {
		if err := p.check(semiWrite, tc.before, tc.d); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	off := semiCounters{status: "OFF"}
	if err := p.check(async, off, semiDelta{statusEnd: "OFF"}); err != nil {
		t.Errorf("async run that stayed OFF: %v", err)
	}
	if err := p.check(async, off, semiDelta{statusEnd: "ON"}); err == nil {
		t.Error("async run that ended ON: accepted")
	}
}

// Even rounds run the plan backwards, and every switch to sync_binlog=0
// (the probe of it needs semi-sync ON) follows or is a semi-sync step.
func TestSbPlanAlternatesAndProbesWithSemiSyncOn(t *testing.T) {
	fwd, back := sbPlan("petrel", 1), sbPlan("petrel", 2)
	if len(fwd) != 6 || len(sbPlan("mariadb", 1)) != 4 {
		t.Fatalf("plans of %d and %d steps, want 6 (Petrel: 3 modes x 2) and 4", len(fwd), len(sbPlan("mariadb", 1)))
	}
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
