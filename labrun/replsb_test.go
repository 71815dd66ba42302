package labrun

import (
	"strings"
	"testing"
	"time"
)

// The primary is idle at 0 until 100 ms, commits 100 transactions by
// 200 ms and 100 more by 300 ms, then is idle again.
func TestLagAt(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	primary := []point{{at(0), 0}, {at(100), 0}, {at(200), 100}, {at(300), 200}, {at(400), 200}}
	for _, c := range []struct {
		ms   int
		n    int64
		want time.Duration
	}{
		{50, 0, 0},                        // idle, nothing to apply
		{150, 0, 49 * time.Millisecond},   // transaction 1 committed at 101 ms
		{250, 100, 49 * time.Millisecond}, // 101 at 201 ms
		{250, 50, 99 * time.Millisecond},
		{220, 150, 0}, // ahead of the primary's estimated 120
		{350, 200, 0},
		{350, 190, 59 * time.Millisecond},
		{500, 100, 299 * time.Millisecond}, // after the last primary sample
	} {
		if got := lagAt(primary, point{at(c.ms), c.n}); got != c.want {
			t.Errorf("lagAt(%d ms, %d) = %v, want %v", c.ms, c.n, got, c.want)
		}
	}
}

func TestSummarizeLag(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	primary := []point{{at(0), 0}, {at(1000), 1000}}
	var replica []replicaSample
	for i := 1; i <= 100; i++ { // lag i ms at t = 10*i ms
		replica = append(replica, replicaSample{point{at(10 * i), int64(9*i - 1)}, "0"})
	}
	replica[99].behind = "NULL"
	replica = append(replica, replicaSample{point{at(2000), 0}, "7"}) // after the window
	r := summarizeLag(primary, replica, at(0), at(1000))
	if r.samples != 100 || r.max != 100*time.Millisecond || r.p99 != 99*time.Millisecond {
		t.Errorf("samples %d max %v p99 %v; want 100, 100ms, 99ms", r.samples, r.max, r.p99)
	}
	if r.mean != 50500*time.Microsecond {
		t.Errorf("mean %v, want 50.5ms", r.mean)
	}
	if r.behindMax != 0 || r.behindNull != 1 {
		t.Errorf("behind max %d null %d, want 0 and 1", r.behindMax, r.behindNull)
	}
}

// A variant configures the applier with statements and, after a plus
// sign, the replica's start-up settings and the primary's.
func TestApplierVariant(t *testing.T) {
	stmts, err := variantSetup("petrel", "w8+mt16")
	if err != nil || len(stmts) != 4 || stmts[1] != "SET GLOBAL replica_parallel_workers = 8" {
		t.Errorf("petrel/w8+mt16 statements %q (%v)", stmts, err)
	}
	if stmts, err := variantSetup("petrel", "db4"); err != nil || stmts[2] != "SET GLOBAL replica_parallel_type = 'DATABASE'" {
		t.Errorf("petrel/db4 statements %q (%v)", stmts, err)
	}
	if stmts, err := variantSetup("mariadb", "conservative-8"); err != nil || len(stmts) != 4 || stmts[1] != "SET GLOBAL slave_parallel_mode = 'conservative'" {
		t.Errorf("mariadb/conservative-8 statements %q (%v)", stmts, err)
	}
	for _, bad := range [][2]string{{"petrel", "x4"}, {"petrel", "w-1"}, {"mariadb", "fast-4"}, {"mariadb", "optimistic"}, {"mysql", "w1"}} {
		if _, err := variantSetup(bad[0], bad[1]); err == nil {
			t.Errorf("%s/%s accepted", bad[0], bad[1])
		}
	}
	vars, err := replicaVariables("petrel", "w8+mt16")
	if err != nil || len(vars) != 1 || vars["petrel_memtable_size"] != "16M" {
		t.Errorf("petrel/w8+mt16 replica settings %v (%v)", vars, err)
	}
	if vars, err := replicaVariables("petrel", "w8"); err != nil || vars != nil {
		t.Errorf("petrel/w8 replica settings %v (%v), want none", vars, err)
	}
	if vars, err := replicaVariables("petrel", "w8+co"); err != nil || vars != nil {
		t.Errorf("petrel/w8+co replica settings %v (%v), want none", vars, err)
	}
	if ps := primarySetup("petrel", "w8+mt16+co"); len(ps) != 1 || !strings.Contains(ps[0], "COMMIT_ORDER") {
		t.Errorf("petrel/w8+mt16+co primary statements %q", ps)
	}
	if ps := primarySetup("petrel", "w8+mt16"); ps != nil {
		t.Errorf("petrel/w8+mt16 primary statements %q, want none", ps)
	}
	for _, bad := range []string{"w8+mt0", "w8+xx", "w8+mt"} {
		if _, err := replicaVariables("petrel", bad); err == nil {
			t.Errorf("petrel/%s accepted", bad)
		}
	}
	// The sizes' variants all parse.
	for _, m := range []Mode{Tiny, Quick, Full} {
		for sys, vs := range replsbSize(m).variants {
			for _, v := range vs {
				if _, err := variantSetup(sys, v); err != nil {
					t.Errorf("%s: %v", m, err)
				}
				if _, err := replicaVariables(sys, v); err != nil {
					t.Errorf("%s: %v", m, err)
				}
			}
		}
	}
}
