package clone

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// layout writes files (path relative to root -> content) under root.
func layout(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

// contents reads every file under root (path -> content).
func contents(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out
}

func sameFiles(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for p, c := range want {
		if got[p] != c {
			t.Errorf("%s: %s = %q, want %q", what, p, got[p], c)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: unexpected file %s", what, p)
		}
	}
}

// TestInstallCrashPoints: Install at each state an interrupted clone or
// an interrupted switch can leave.
func TestInstallCrashPoints(t *testing.T) {
	old := map[string]string{
		"petrel.json": "identity", "server-cert.pem": "cert",
		"data/MANIFEST-1": "old-manifest", "data/000001.sst": "old-rows",
		"binlog/binlog.000001": "old-log", "binlog/binlog.index": "./binlog.000001\n",
		"relay/relay.000001": "old-relay",
	}
	staged := map[string]string{
		"data/MANIFEST-9": "new-manifest", "data/000042.sst": "new-rows",
		"binlog/binlog.000007": "new-header", "binlog/binlog.index": "./binlog.000007\n",
	}
	// What a switched datadir holds: its identity and keys, the staged
	// storage and log, and the status file; no relay log.
	switched := map[string]string{"petrel.json": "identity", "server-cert.pem": "cert"}
	for p, c := range staged {
		switched[p] = c
	}
	stage := func(t *testing.T, dir string, complete bool) {
		files := map[string]string{}
		for p, c := range staged {
			files[StagingDir+"/"+p] = c
		}
		if complete {
			files[StagingDir+"/"+completeMarker] = "gtids\n"
			files[StagingDir+"/"+StatusFile] = `{"State":"In Progress","Source":"donor:1","GTIDs":"gtids"}`
		}
		layout(t, dir, files)
	}
	withStatus := func(m map[string]string, dir string) map[string]string {
		out := map[string]string{}
		for p, c := range m {
			out[p] = c
		}
		b, err := os.ReadFile(filepath.Join(dir, StatusFile))
		if err != nil {
			t.Errorf("no %s after the switch: %v", StatusFile, err)
		}
		out[StatusFile] = string(b)
		return out
	}

	t.Run("nothing staged", func(t *testing.T) {
		dir := t.TempDir()
		layout(t, dir, old) // the relay log stays
		if got, err := Install(dir, nil, "relay"); err != nil || got != NothingStaged {
			t.Fatalf("Install: %v, %v", got, err)
		}
		sameFiles(t, "datadir", contents(t, dir), old)
	})
	t.Run("incomplete clone", func(t *testing.T) {
		dir := t.TempDir()
		layout(t, dir, old)
		stage(t, dir, false)
		if got, err := Install(dir, nil, "relay"); err != nil || got != RemovedInterrupted {
			t.Fatalf("Install: %v, %v", got, err)
		}
		sameFiles(t, "datadir", contents(t, dir), old)
	})
	t.Run("complete clone", func(t *testing.T) {
		dir := t.TempDir()
		layout(t, dir, old)
		stage(t, dir, true)
		if got, err := Install(dir, nil, "relay"); err != nil || got != Switched {
			t.Fatalf("Install: %v, %v", got, err)
		}
		sameFiles(t, "datadir", contents(t, dir), withStatus(switched, dir))
		st, ok := LoadStatus(dir, time.Now())
		if !ok || st.State != StateCompleted || st.Source != "donor:1" {
			t.Fatalf("status after the switch: %+v %v", st, ok)
		}
	})
	t.Run("switch interrupted after data moved", func(t *testing.T) {
		dir := t.TempDir()
		layout(t, dir, old)
		stage(t, dir, true)
		// The first Install removed data/ and moved the staged one in,
		// then the process died.
		os.RemoveAll(filepath.Join(dir, "data"))
		if err := os.Rename(filepath.Join(dir, StagingDir, "data"), filepath.Join(dir, "data")); err != nil {
			t.Fatal(err)
		}
		if got, err := Install(dir, nil, "relay"); err != nil || got != Switched {
			t.Fatalf("Install: %v, %v", got, err)
		}
		sameFiles(t, "datadir", contents(t, dir), withStatus(switched, dir))
	})
	t.Run("switch interrupted after everything moved", func(t *testing.T) {
		dir := t.TempDir()
		layout(t, dir, old)
		stage(t, dir, true)
		for _, p := range parts {
			os.RemoveAll(filepath.Join(dir, p))
			if err := os.Rename(filepath.Join(dir, StagingDir, p), filepath.Join(dir, p)); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := Install(dir, nil, "relay"); err != nil || got != Switched {
			t.Fatalf("Install: %v, %v", got, err)
		}
		sameFiles(t, "datadir", contents(t, dir), withStatus(switched, dir))
	})
}
