package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Restart delays double from Min up to Max, and start over after a node
// stayed up for Stable.
func TestBackoff(t *testing.T) {
	p := restartPolicy{Min: time.Second, Max: 30 * time.Second, Stable: time.Minute}
	var b backoff
	var got []time.Duration
	for i := 0; i < 7; i++ {
		got = append(got, b.next(p, time.Second))
	}
	want := []time.Duration{1, 2, 4, 8, 16, 30, 30}
	for i := range want {
		if got[i] != want[i]*time.Second {
			t.Fatalf("delays %v, want %v seconds", got, want)
		}
	}
	if d := b.next(p, 2*time.Minute); d != time.Second {
		t.Fatalf("after a stable run: %v, want 1s", d)
	}
	if d := b.next(p, 0); d != 2*time.Second {
		t.Fatalf("dying again at once: %v, want 2s", d)
	}
}

// A second supervisor on a directory in use is refused, naming the first.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	f, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockDir(dir)
	if err == nil || !strings.Contains(err.Error(), "another petrel cluster (pid ") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second lock: %v", err)
	}
	f.Close()
	g, err := lockDir(dir)
	if err != nil {
		t.Fatalf("after the first released it: %v", err)
	}
	g.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, "cluster.lock")); strings.TrimSpace(string(b)) == "" {
		t.Error("the lock file does not name its holder")
	}
}

// TestHealStatement: replication stopped on a full disk is restarted;
// stopped on any other error, or running, it is left alone.
func TestHealStatement(t *testing.T) {
	for _, c := range []struct {
		rs   map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"Replica_IO_Running": "Yes", "Replica_SQL_Running": "Yes"}, ""},
		{map[string]string{"Replica_IO_Running": "Yes", "Replica_SQL_Running": "No", "Last_SQL_Errno": "1021"}, "START REPLICA SQL_THREAD"},
		{map[string]string{"Replica_IO_Running": "Yes", "Replica_SQL_Running": "No", "Last_SQL_Errno": "1062"}, ""},
		{map[string]string{"Replica_IO_Running": "No", "Replica_SQL_Running": "No", "Last_SQL_Errno": "0"}, ""},
		{map[string]string{"Replica_IO_Running": "No", "Last_IO_Errno": "1021", "Replica_SQL_Running": "Yes"}, "START REPLICA IO_THREAD"},
		{map[string]string{"Replica_IO_Running": "No", "Last_IO_Errno": "1595", "Last_IO_Error": "relay log write failed: write relay.000001: no space left on device", "Replica_SQL_Running": "Yes"}, "START REPLICA IO_THREAD"},
		{map[string]string{"Replica_IO_Running": "No", "Last_IO_Errno": "1595", "Last_IO_Error": "relay log write failed: checksum", "Replica_SQL_Running": "Yes"}, ""},
	} {
		if got := healStatement(c.rs); got != c.want {
			t.Errorf("healStatement(%v) = %q, want %q", c.rs, got, c.want)
		}
	}
}
