package sqlengine

import "testing"

// TestStatusPerEngine: two engines in one process keep their own status
// variables (Engine.RegisterStatus, StatusSnapshot), and SHOW GLOBAL
// STATUS, which GMS reads without a session, answers from the engine
// started last.
func TestStatusPerEngine(t *testing.T) {
	a := openStatsEnv(t, t.TempDir())
	defer a.close()
	a.e.RegisterStatus("Petrel_test_engine", func() any { return uint64(1) })
	b := openStatsEnv(t, t.TempDir())
	defer b.close()
	b.e.RegisterStatus("Petrel_test_engine", func() any { return uint64(2) })

	if got := a.e.StatusSnapshot()["Petrel_test_engine"]; got != uint64(1) {
		t.Errorf("first engine's snapshot: %v, want 1", got)
	}
	if got := b.e.StatusSnapshot()["Petrel_test_engine"]; got != uint64(2) {
		t.Errorf("second engine's snapshot: %v, want 2", got)
	}
	// Each engine's own counters, not the other's: the first engine's
	// commits are its own.
	a.must("CREATE DATABASE d")
	a.s.SetCurrentDatabase("d")
	a.must("CREATE TABLE t (id INT PRIMARY KEY)")
	a.must("INSERT INTO t VALUES (1), (2)")
	ca, cb := a.e.StatusSnapshot()["Petrel_commits"], b.e.StatusSnapshot()["Petrel_commits"]
	if ca == cb {
		t.Errorf("Petrel_commits: both engines read %v", ca)
	}
	if got := b.must("SHOW GLOBAL STATUS LIKE 'Petrel_test_engine'"); got != "[[Petrel_test_engine 2]]" {
		t.Errorf("SHOW GLOBAL STATUS: %s, want the second engine's 2", got)
	}
}
