package e2e

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"petrel/lab"
)

// TestDiskFull runs Petrel on a small tmpfs, fills it, and checks that a
// commit that cannot be made durable fails with a disk-full error and
// leaves nothing visible, that further writes are refused while reads go
// on, that writes resume by themselves once space returns, and that every
// acknowledged row survives a restart. Needs root (mount); CI is root.
func TestDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("PETREL_LAB_STRICT") == "1" {
			t.Fatal("TestDiskFull needs root to mount a tmpfs")
		}
		t.Skip("needs root to mount a tmpfs")
	}
	ctx := testContext(t, 3*time.Minute)
	mnt := t.TempDir()
	if out, err := exec.CommandContext(ctx, "mount", "-t", "tmpfs", "-o", "size=160m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	datadir := filepath.Join(mnt, "petrel")
	p := startPetrel(t, ctx, lab.PetrelOptions{Datadir: datadir})
	db := rootDB(t, p, "")
	db.SetMaxOpenConns(1)
	mustExec(t, ctx, db, "CREATE DATABASE dfull", "CREATE TABLE dfull.t (id INT PRIMARY KEY, pad LONGBLOB)")

	// Leave about 2 MiB free.
	var st syscall.Statfs_t
	if err := syscall.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	filler := filepath.Join(mnt, "filler")
	if err := os.WriteFile(filler, make([]byte, free-2<<20), 0o600); err != nil && !strings.Contains(err.Error(), "no space") {
		t.Fatal(err)
	}

	pad := strings.Repeat("x", 256<<10)
	acked := 0
	var failErr error
	for id := 1; id <= 40; id++ {
		_, err := db.ExecContext(ctx, "INSERT INTO dfull.t VALUES (?, ?)", id, pad)
		if err != nil {
			failErr = err
			break
		}
		acked = id
	}
	if failErr == nil {
		t.Fatal("40 inserts of 256 KiB fit in 2 MiB: the disk never filled")
	}
	if n := errNo(failErr); n != 1021 && n != 3 {
		t.Fatalf("insert on a full disk: %v (error %d), want 1021 (disk full) or 3", failErr, n)
	}
	t.Logf("%d rows acknowledged before the disk filled; then: %v", acked, failErr)
	if got := queryInt(t, ctx, db, "SELECT COUNT(*) FROM dfull.t"); got != int64(acked) {
		t.Fatalf("%d rows visible after the failed commit, want %d", got, acked)
	}
	// Still full: refused, with the same clear error, not half-applied.
	if _, err := db.ExecContext(ctx, "INSERT INTO dfull.t VALUES (1000, 'small')"); err == nil {
		t.Fatal("write accepted while the disk is still full")
	} else if n := errNo(err); n != 1021 && n != 3 {
		t.Fatalf("write while full: %v, want 1021 or 3", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if _, err = db.ExecContext(ctx, "INSERT INTO dfull.t VALUES (1001, 'after')"); err == nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("writes did not resume within 30 s of freeing space: %v", err)
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	db2 := rootDB(t, p, "")
	if got := queryInt(t, ctx, db2, "SELECT COUNT(*) FROM dfull.t"); got != int64(acked)+1 {
		t.Fatalf("after restart %d rows, want %d", got, acked+1)
	}
	var s sql.NullString
	if err := db2.QueryRowContext(ctx, "SELECT pad FROM dfull.t WHERE id = 1001").Scan(&s); err != nil || s.String != "after" {
		t.Fatalf("row written after space returned: %q %v", s.String, err)
	}
	_ = context.Background
}
