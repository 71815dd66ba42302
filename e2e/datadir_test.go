package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// badStartTimeout bounds one `petrel server` that is expected to refuse to
// start; a server that starts anyway is killed at the deadline.
const badStartTimeout = 20 * time.Second

// TestBadDatadirAndConfig checks that petrel refuses to start on a
// directory that is not its datadir, on a corrupt datadir and on a bad
// config file, with a message that names the problem and no panic.
func TestBadDatadirAndConfig(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("foreign directory", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "ibdata1"), []byte("not petrel"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := wantStartFailure(t, ctx, bin, dir)
		if !strings.Contains(out, dir) {
			t.Errorf("message does not name the directory %s:\n%s", dir, out)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "ibdata1")); err != nil || string(b) != "not petrel" {
			t.Errorf("petrel touched a foreign directory's file: %q, %v", b, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("petrel created files in a foreign directory: %d entries, want 1", len(entries))
		}
	})

	t.Run("garbage petrel.json", func(t *testing.T) {
		dir := initDatadir(t, ctx)
		if err := os.WriteFile(filepath.Join(dir, "petrel.json"), []byte("\x00\x17{not json"), 0o640); err != nil {
			t.Fatal(err)
		}
		out := wantStartFailure(t, ctx, bin, dir)
		if !strings.Contains(out, "corrupt") || !strings.Contains(out, "petrel.json") {
			t.Errorf("message does not say petrel.json is corrupt:\n%s", out)
		}
	})

	t.Run("garbage data files", func(t *testing.T) {
		dir := initDatadir(t, ctx)
		n := 0
		err := filepath.WalkDir(filepath.Join(dir, "data"), func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			size := max(info.Size(), 64)
			junk := make([]byte, size)
			if _, err := rand.Read(junk); err != nil {
				return err
			}
			n++
			return os.WriteFile(path, junk, 0o640)
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("no files under %s/data to corrupt", dir)
		}
		t.Logf("overwrote %d files under data/ with random bytes", n)
		out := wantStartFailure(t, ctx, bin, dir)
		if !strings.Contains(out, "petrel server:") || !(strings.Contains(out, dir) || strings.Contains(strings.ToLower(out), "corrupt")) {
			t.Errorf("message neither names the datadir nor says it is corrupt:\n%s", out)
		}
	})

	// After a clean stop the rows may still live only in Pebble's WAL. A
	// WAL that is garbage from its first byte is not a torn tail: the
	// server must refuse to start, or start with the rows; starting empty
	// (and re-creating root) would be silent data loss.
	t.Run("garbage WAL", func(t *testing.T) {
		dir := initDatadir(t, ctx)
		logs, err := filepath.Glob(filepath.Join(dir, "data", "*.log"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range logs {
			info, err := os.Stat(l)
			if err != nil || info.Size() == 0 {
				continue
			}
			junk := make([]byte, info.Size())
			if _, err := rand.Read(junk); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(l, junk, 0o640); err != nil {
				t.Fatal(err)
			}
			n++
		}
		t.Logf("overwrote %d non-empty WAL files with random bytes", n)
		p, err := lab.StartPetrel(ctx, lab.PetrelOptions{Datadir: dir, RootPassword: rootPassword, StartTimeout: badStartTimeout})
		if err != nil {
			if strings.Contains(err.Error(), "goroutine ") || strings.Contains(err.Error(), "panic:") {
				t.Errorf("petrel panicked on a garbage WAL:\n%v", err)
			} else if !strings.Contains(err.Error(), "exited before accepting connections") {
				t.Errorf("start failed, but not by petrel refusing to start: %v", err)
			}
			t.Logf("refused to start: %v", tail(err.Error(), 1<<10))
			return
		}
		defer p.Stop(context.Background())
		db := rootDB(t, p, "")
		var rows int64 = -1
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM d.t").Scan(&rows); err != nil || rows != 3 {
			t.Errorf("petrel started on a datadir whose WAL is garbage and lost the data: SELECT COUNT(*) FROM d.t = %d, %v; want a refusal to start, or 3 rows", rows, err)
		}
	})

	t.Run("config syntax error", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "bad.cnf")
		if err := os.WriteFile(cfg, []byte("[mysqld]\ninnodb_lock_wait_timeout = 5\n[petrel\nserver_id = 3\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := wantStartFailure(t, ctx, bin, filepath.Join(t.TempDir(), "data"), "--config", cfg)
		if !strings.Contains(out, cfg+":3") {
			t.Errorf("message does not name %s line 3:\n%s", cfg, out)
		}
	})

	t.Run("config unknown variable", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "unknown.cnf")
		if err := os.WriteFile(cfg, []byte("[mysqld]\nno_such_variable_xyz = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		datadir := filepath.Join(t.TempDir(), "data")
		out := wantStartFailure(t, ctx, bin, datadir, "--config", cfg)
		if !strings.Contains(out, "no_such_variable_xyz") {
			t.Errorf("message does not name the unknown variable:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(datadir, "petrel.json")); err == nil {
			t.Logf("note: the refused start initialised the datadir %s before rejecting the config", datadir)
		}
	})
}

// initDatadir creates a datadir with a table and some rows, then stops
// the server cleanly.
func initDatadir(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir := t.TempDir()
	p, err := lab.StartPetrel(ctx, lab.PetrelOptions{Datadir: dir, RootPassword: rootPassword})
	if err != nil {
		t.Fatal(err)
	}
	db := rootDB(t, p, "")
	mustExec(t, ctx, db,
		"CREATE DATABASE d",
		"CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(50))",
		"INSERT INTO d.t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	if n := queryInt(t, ctx, db, "SELECT COUNT(*) FROM d.t"); n != 3 {
		t.Fatalf("%d rows, want 3", n)
	}
	db.Close()
	if err := p.Stop(ctx); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	return dir
}

// wantStartFailure runs `petrel server` on datadir and expects it to exit
// non-zero on its own, without a Go panic. It returns the combined output.
func wantStartFailure(t *testing.T, ctx context.Context, bin, datadir string, extra ...string) string {
	t.Helper()
	port, err := lab.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, badStartTimeout)
	defer cancel()
	args := append([]string{"server", "--datadir", datadir, "--port", strconv.Itoa(port),
		"--server-id", "1", "--root-password", rootPassword}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err = cmd.Run()
	s := out.String()
	if ctx.Err() != nil {
		t.Fatalf("petrel server was still running after %v (it should have refused to start); output:\n%s", badStartTimeout, tail(s, 8<<10))
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("petrel server exited with %v, want a non-zero exit; output:\n%s", err, tail(s, 8<<10))
	}
	t.Logf("exit %d after %v: %s", ee.ExitCode(), time.Since(start).Round(time.Millisecond), strings.TrimSpace(tail(s, 1<<10)))
	if strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") {
		t.Errorf("output has a panic or goroutine dump (exit %d):\n%s", ee.ExitCode(), tail(s, 8<<10))
	}
	if strings.Contains(s, "ready for connections") {
		t.Errorf("petrel server reported ready before failing:\n%s", tail(s, 8<<10))
	}
	return s
}
