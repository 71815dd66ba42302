package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"petrel/lab"
)

// TestClusterNodeCannotStart: a relay whose binary log is damaged cannot
// start; `petrel cluster` on the directory still starts the others (the
// banner names the node that failed), retries the relay with backoff,
// and the cluster serves: a write on the primary reaches the replica
// beside it and the site's replica, which fails over to the primary.
func TestClusterNodeCannotStart(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 4)
	args := []string{"--replicas", "1", "--sites", "1", "--replicas-per-site", "1"}
	c := startClusterArgs(t, ctx, bin, dir, base, 4, args...)
	p := clusterNode(t, base)
	mustExec(t, ctx, p, "CREATE DATABASE cs", "CREATE TABLE cs.t (id INT PRIMARY KEY, v VARCHAR(200))")
	for i := 0; i < 50; i++ {
		mustExec(t, ctx, p, fmt.Sprintf("INSERT INTO cs.t VALUES (%d, REPEAT('x', 150))", i))
	}
	site := clusterNode(t, base+3)
	waitCaughtUp(t, ctx, p, site, 30*time.Second)
	c.cmd.Process.Signal(syscall.SIGINT)
	if err := c.wait(t, time.Minute); err != nil {
		t.Fatalf("petrel cluster after Ctrl-C: %v", err)
	}
	for i := 0; i < 4; i++ {
		portClosed(t, base+i, 10*time.Second)
	}
	// Damage the relay's (node3) binary log in the middle.
	f := filepath.Join(dir, "node3", "binlog", "binlog.000001")
	b, err := os.ReadFile(f)
	if err != nil || len(b) < 4000 {
		t.Fatalf("relay binlog: %d bytes, %v", len(b), err)
	}
	// One byte inside a row image (the 'x's of a row in the middle): the
	// event's checksum fails and valid events follow, which is
	// corruption, not a torn tail.
	at := strings.Index(string(b[len(b)/2:]), strings.Repeat("x", 100))
	if at < 0 {
		t.Fatal("no row image found in the relay's binlog")
	}
	b[len(b)/2+at+50] = 'y'
	if err := os.WriteFile(f, b, 0o640); err != nil {
		t.Fatal(err)
	}
	// And its tail ring, which would repair it.
	if err := os.Remove(filepath.Join(dir, "node3", "binlog", "binlog.tail")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}

	c = startClusterArgs(t, ctx, bin, dir, base, 4, args...)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(c.stderr.String(), `msg="cluster: node failed to start; the others run without it, it is retried" node=node3`) {
		if time.Now().After(deadline) {
			t.Fatalf("the relay's failure is not logged:\n%s", c.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p, rep := clusterNode(t, base), clusterNode(t, base+1)
	mustExec(t, ctx, p, "INSERT INTO cs.t VALUES (1000, 'after')")
	waitCaughtUp(t, ctx, p, rep, 30*time.Second)
	waitCaughtUp(t, ctx, p, site, 30*time.Second)
	if n := queryInt(t, ctx, site, "SELECT COUNT(*) FROM cs.t"); n != 51 {
		t.Fatalf("the site replica has %d of 51 rows", n)
	}
	if st := replicaStatus(t, ctx, site, "SHOW REPLICA STATUS"); st["Source_Port"] != fmt.Sprint(base) {
		t.Errorf("the site replica reads from port %s, want the primary's %d (its relay is down)", st["Source_Port"], base)
	}
	if !strings.Contains(c.stderr.String(), `msg="cluster: node exited; restarting it" node=node3`) {
		t.Errorf("the relay is not retried:\n%s", c.stderr)
	}
}
