package e2e

import (
	"fmt"
	"net"
	"testing"
	"time"

	"petrel/lab"
)

// TestReplicaLinkHeals puts a faulty link between replica and source
// under a sustained insert load: cuts, resets, a black hole longer than
// replica_net_timeout (a half-open link only a read timeout detects), an
// outage, latency, and a source restart. The replica must heal each time
// by itself and end identical, with every acknowledged row, and its lag
// must never read 0 while it cannot know.
func TestReplicaLinkHeals(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	rep := startReplicaServer(t, ctx, 2, nil) // replica_net_timeout = 2 s
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUser(t, ctx, sdb)
	mustExec(t, ctx, sdb, "CREATE DATABASE f", "CREATE TABLE f.t (id BIGINT PRIMARY KEY, w INT NOT NULL, n INT NOT NULL)")
	link, err := lab.StartLink(net.JoinHostPort("127.0.0.1", fmt.Sprint(src.Port())))
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	pointAt(t, ctx, rdb, link.Port(), "")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)

	load := startInsertLoad(ctx, sdb, "f.t", 4, 0)
	pause := func(d time.Duration) { time.Sleep(d) }
	step := func(name string, fault func()) {
		t.Helper()
		pause(700 * time.Millisecond)
		fault()
		t.Logf("fault: %s", name)
	}
	step("cut", func() { link.Cut() })
	step("reset", func() { link.Reset() })
	step("black hole for 4 s", func() {
		link.BlackHole(true)
		pause(3500 * time.Millisecond)
		st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
		if lag := st["Seconds_Behind_Source"]; lag == "0" {
			t.Errorf("black-holed for 3.5 s (replica_net_timeout 2 s): Seconds_Behind_Source = 0, want NULL or > 0 (IO %s)", st["Replica_IO_Running"])
		}
		pause(500 * time.Millisecond)
		link.BlackHole(false)
	})
	step("outage for 3 s", func() {
		if err := link.Down(true); err != nil {
			t.Fatal(err)
		}
		pause(3 * time.Second)
		if err := link.Down(false); err != nil {
			t.Fatal(err)
		}
	})
	step("100 ms one-way latency for 2 s", func() {
		link.SetLatency(100 * time.Millisecond)
		pause(2 * time.Second)
		link.SetLatency(0)
	})
	step("source restart", func() {
		if err := src.Restart(ctx); err != nil {
			t.Fatal(err)
		}
	})
	pause(time.Second)
	acked := load.finish()
	sdb = rootDB(t, src, "")
	waitCaughtUp(t, ctx, sdb, rdb, 60*time.Second)
	n := sameTable(t, ctx, sdb, rdb, "f.t", "id")
	if n < len(acked) || len(acked) == 0 {
		t.Fatalf("source has %d rows, %d acknowledged", n, len(acked))
	}
	st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
	if st["Replica_IO_Running"] != "Yes" || st["Replica_SQL_Running"] != "Yes" || st["Seconds_Behind_Source"] != "0" {
		t.Errorf("after healing: IO=%s SQL=%s lag=%s", st["Replica_IO_Running"], st["Replica_SQL_Running"], st["Seconds_Behind_Source"])
	}
	connects := globalStatus(t, ctx, rdb, "Replica_connects")
	if connects < 5 {
		t.Errorf("Replica_connects = %d; the faults should have forced at least 5 connections", connects)
	}
	t.Logf("%d rows identical after the faults; %d connections; last IO error: %s", n, connects, st["Last_IO_Error"])
}
