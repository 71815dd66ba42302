package node

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// TestReplicaSettingsPushed: a SET GLOBAL of a replica setting, of
// semi-sync's replica switch or of the replication sockets' congestion
// control reaches the replica (Replica.Configure) at once, each from its
// own surface; the congestion control reaches the dumps' source too
// (Source.SetTCP).
func TestReplicaSettingsPushed(t *testing.T) {
	n, err := Open(Options{Datadir: t.TempDir() + "/d", RootPassword: "pw", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	set := func(name string, v any) {
		t.Helper()
		if err := n.globals.Set(sql.NewEmptyContext(), name, v); err != nil {
			t.Fatalf("SET GLOBAL %s = %v: %v", name, v, err)
		}
	}
	if s := n.replica.Settings(); s.NetTimeout != 10*time.Second || s.SemiSync || !s.StrictRows {
		t.Fatalf("the replica's settings at start: %+v", s)
	}
	set("replica_net_timeout", int64(7))
	set("rpl_semi_sync_slave_enabled", int8(1))
	set("replica_exec_mode", "IDEMPOTENT")
	if s := n.replica.Settings(); s.NetTimeout != 7*time.Second || !s.SemiSync || s.StrictRows {
		t.Errorf("the replica's settings after SET GLOBAL: %+v", s)
	}
	tcp := n.tcp.Options().CongestionControl
	if tcp == "" {
		t.Skip("no congestion control to choose here")
	}
	if r, s := n.replica.Settings().TCP.CongestionControl, n.source.TCP().CongestionControl; r != tcp || s != tcp {
		t.Errorf("the replica's congestion control %q, the source's %q, the variable's %q", r, s, tcp)
	}
	for _, cc := range []string{"reno", "cubic", "bbr"} {
		if cc != tcp && n.globals.Set(sql.NewEmptyContext(), "replication_tcp_congestion_control", cc) == nil {
			if r, s := n.replica.Settings().TCP.CongestionControl, n.source.TCP().CongestionControl; r != cc || s != cc {
				t.Errorf("after SET GLOBAL replication_tcp_congestion_control = %s: the replica's %q, the source's %q", cc, r, s)
			}
			return
		}
	}
}
