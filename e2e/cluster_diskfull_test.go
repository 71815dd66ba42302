//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestClusterReplicaDiskFull: a replica's disk fills up (its datadir on
// a small tmpfs); its replication stops (the applier with ER_DISK_FULL,
// 1021, or the receiver with a relay log write failure, 1595, no space
// left, whichever writes first); once
// space returns the supervisor restarts the stopped thread by itself and
// the replica catches up with every row. Needs root (mount).
func TestClusterReplicaDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv(strictEnv) == "1" {
			t.Fatalf("TestClusterReplicaDiskFull needs root to mount a tmpfs, and %s=1", strictEnv)
		}
		t.Skip("needs root to mount a tmpfs")
	}
	ctx := testContext(t, 3*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mnt := filepath.Join(dir, "node2")
	if err := os.MkdirAll(mnt, 0o750); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(ctx, "mount", "-t", "tmpfs", "-o", "size=160m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	base := freePortRun(t, 2)
	c := startClusterArgs(t, ctx, bin, dir, base, 2, "--replicas", "1", "--async")
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "node2.log"))
			t.Logf("supervisor log:\n%s\nreplica log:\n%s", tail(c.stderr.String(), 3000), tail(string(b), 3000))
		}
	})
	p, r := clusterNode(t, base), clusterNode(t, base+1)
	mustExec(t, ctx, p, "CREATE DATABASE df", "CREATE TABLE df.t (id INT PRIMARY KEY, pad LONGTEXT)")
	waitCaughtUp(t, ctx, p, r, 30*time.Second)
	filler := fillDisk(t, mnt, 1<<20)
	deadline := time.Now().Add(60 * time.Second)
	stopped := ""
	for i := 0; stopped == ""; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("the replica's replication did not stop on the full disk: %v\n%s", replicaStatus(t, ctx, r, "SHOW REPLICA STATUS"), tail(c.stderr.String(), 2000))
		}
		if i < 2000 { // up to 40 MB: past whatever the relay log preallocated
			mustExec(t, ctx, p, fmt.Sprintf("INSERT INTO df.t VALUES (%d, REPEAT('p', 20000))", i))
		}
		st := replicaStatus(t, ctx, r, "SHOW REPLICA STATUS")
		switch {
		case st["Last_SQL_Errno"] == "1021":
			stopped = "applier"
		case st["Last_IO_Errno"] == "1021" || st["Last_IO_Errno"] == "1595" && strings.Contains(st["Last_IO_Error"], "no space left on device"):
			stopped = "receiver"
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("the replica's %s stopped on the full disk", stopped)
	os.Remove(filler)
	waitCaughtUp(t, ctx, p, r, 60*time.Second)
	sameTable(t, ctx, p, r, "df.t", "id")
	if !strings.Contains(c.stderr.String(), `msg="cluster: replication stopped on a transient error; restarted" node=node2`) {
		t.Errorf("the restart is not logged:\n%s", tail(c.stderr.String(), 3000))
	}
}
