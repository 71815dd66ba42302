package replsql_test

import (
	"io"
	"log/slog"
	"testing"

	gms "github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/tcptune"
	"petrel/sqlengine"
	"petrel/surface/replsql"
)

// TestTCPSettingsPushed: SET GLOBAL replication_tcp_congestion_control is
// what the next replication socket gets (TCP.Options), with the
// keepalives and TCP_NODELAY unchanged; an algorithm this process cannot
// use is refused.
func TestTCPSettingsPushed(t *testing.T) {
	g := sqlengine.NewGlobals()
	tcp := replsql.TCPVariables(g, slog.New(slog.NewTextHandler(io.Discard, nil)))
	k, err := tcptune.ReadKernel()
	if err != nil {
		t.Skipf("no TCP congestion control to choose: %v", err)
	}
	def := tcp.Options().CongestionControl
	other := ""
	for _, a := range k.Available {
		if a != def && k.Usable(a) {
			other = a
		}
	}
	if def == "" || other == "" {
		t.Skipf("one usable congestion control here (%q): nothing to change to", def)
	}
	ctx := gms.NewEmptyContext()
	if err := g.Set(ctx, "replication_tcp_congestion_control", other); err != nil {
		t.Fatal(err)
	}
	o := tcp.Options()
	if o.CongestionControl != other || !o.NoDelay || o.KeepAliveCount == 0 {
		t.Errorf("after SET GLOBAL replication_tcp_congestion_control = %s: %+v", other, o)
	}
	if err := g.Set(ctx, "replication_tcp_congestion_control", "no-such-algorithm"); err == nil || tcp.Options().CongestionControl != other {
		t.Errorf("an unknown algorithm: %v, options %+v", err, tcp.Options())
	}
}
