package cluster

import (
	"strings"
	"testing"
)

// TestPlanSites: --sites lays out a primary, then per site a relay fed by
// the primary and its replicas fed by the relay, failing over to the
// primary; ports and server ids follow the order; the statements wire
// each node to its source.
func TestPlanSites(t *testing.T) {
	nodes, err := Plan(Options{Dir: "/d", BasePort: 4000, Replicas: 1, Sites: 2, ReplicasPerSite: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, n := range nodes {
		if n.Port != 4000+i || n.ServerID != i+1 || n.Name != "node"+string(rune('1'+i)) {
			t.Errorf("node %d: %+v", i, n)
		}
		got = append(got, describe(nodes, n))
	}
	want := []string{
		"primary",
		"replica (super_read_only; replicates from node1)",
		"site 1 relay (replicates from node1)",
		"site 1 replica (super_read_only; from node3, fails over to node1)",
		"site 1 replica (super_read_only; from node3, fails over to node1)",
		"site 2 relay (replicates from node1)",
		"site 2 replica (super_read_only; from node6, fails over to node1)",
		"site 2 replica (super_read_only; from node6, fails over to node1)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("layout:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if nodes[2].Config["super_read_only"] != "" || nodes[3].Config["super_read_only"] != "ON" {
		t.Errorf("super_read_only: relay %q, replica %q", nodes[2].Config["super_read_only"], nodes[3].Config["super_read_only"])
	}
	st := state{ReplUser: "repl", ReplPassword: "rp"}
	relay := strings.Join(wireStatements(nodes, 2, st, "root-pw"), "; ")
	if !strings.Contains(relay, "SOURCE_PORT=4000, SOURCE_USER='repl', SOURCE_PASSWORD='rp'") || !strings.HasSuffix(relay, "START REPLICA") {
		t.Errorf("relay statements: %s", relay)
	}
	site := strings.Join(wireStatements(nodes, 7, st, "root-pw"), "; ")
	for _, w := range []string{"add_source('', '127.0.0.1', 4005, '', 70)", "add_source('', '127.0.0.1', 4000, '', 50)",
		"SOURCE_PORT=4005, SOURCE_USER='root', SOURCE_PASSWORD='root-pw'", "SOURCE_RETRY_COUNT=1", "SOURCE_CONNECTION_AUTO_FAILOVER=1"} {
		if !strings.Contains(site, w) {
			t.Errorf("site replica statements lack %q: %s", w, site)
		}
	}
	for _, o := range []Options{{Dir: "/d", BasePort: 4000, Sites: 17}, {Dir: "/d", BasePort: 65530, Sites: 2, ReplicasPerSite: 2}} {
		if _, err := Plan(o); err == nil {
			t.Errorf("Plan(%+v) accepted", o)
		}
	}
}

// TestPlanProxy: --proxy adds a proxy node last, in front of the primary
// and every replica (site replicas included, relays not), on its own
// port and admin port below it.
func TestPlanProxy(t *testing.T) {
	nodes, err := Plan(Options{Dir: "/d", BasePort: 4000, Replicas: 2, Sites: 1, ReplicasPerSite: 1, ProxyPort: 6033})
	if err != nil {
		t.Fatal(err)
	}
	p := nodes[len(nodes)-1]
	if p.Role != RoleProxy || p.Port != 6033 || len(nodes) != 6 {
		t.Fatalf("nodes %+v", nodes)
	}
	got := strings.Join(proxyArgs(nodes, p, "pw"), " ")
	want := "proxy --port 6033 --admin-port 6032 --primary 127.0.0.1:4000 --replicas 127.0.0.1:4001,127.0.0.1:4002,127.0.0.1:4004 --monitor-user root --monitor-password pw"
	if got != want {
		t.Fatalf("proxy args:\n%s\nwant\n%s", got, want)
	}
	if d := describe(nodes, p); d != "proxy (reads to replicas within 1s of lag; admin port 6032)" {
		t.Errorf("describe: %q", d)
	}
	for _, port := range []int{4003, 4005, 4001, 1} {
		if _, err := Plan(Options{Dir: "/d", BasePort: 4000, Replicas: 2, Sites: 1, ReplicasPerSite: 1, ProxyPort: port}); err == nil {
			t.Errorf("proxy port %d accepted", port)
		}
	}
}
