package clonesql

import (
	"testing"

	gms "github.com/dolthub/go-mysql-server/sql"

	"petrel/sqlengine"
)

// TestSettingsPushed: SET GLOBAL clone_max_data_bandwidth reaches what
// the donor reads before each chunk (Vars.MaxBandwidth, in bytes per
// second), clone_enable_compression what CLONE INSTANCE asks for; an
// out-of-range value is refused and changes nothing.
func TestSettingsPushed(t *testing.T) {
	g := sqlengine.NewGlobals()
	v := Variables(g)
	setGlobal := func(t *testing.T, name string, v any) {
		t.Helper()
		if err := g.Set(gms.NewEmptyContext(), name, v); err != nil {
			t.Fatalf("SET GLOBAL %s = %v: %v", name, v, err)
		}
	}
	if s := v.Settings(); s.MaxBandwidth != 0 || s.Compression {
		t.Fatalf("defaults: %+v", s)
	}
	setGlobal(t, "clone_max_data_bandwidth", uint64(3))
	setGlobal(t, "clone_enable_compression", int8(1))
	if got := v.MaxBandwidth(); got != 3<<20 {
		t.Errorf("MaxBandwidth after SET GLOBAL clone_max_data_bandwidth = 3: %d, want %d", got, 3<<20)
	}
	if err := g.Set(gms.NewEmptyContext(), "clone_max_data_bandwidth", uint64(2<<20)); err == nil || v.MaxBandwidth() != 3<<20 {
		t.Errorf("clone_max_data_bandwidth = 2097152: %v, MaxBandwidth %d", err, v.MaxBandwidth())
	}
	if !v.Settings().Compression {
		t.Error("clone_enable_compression = ON did not reach the settings")
	}
}
