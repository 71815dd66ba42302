package cluster

import (
	"strings"
	"testing"
	"time"
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
	p, p1 := nodes[len(nodes)-2], nodes[len(nodes)-1]
	if p.Role != RoleProxy || p.Port != 6033 || p.Site != 0 || p1.Role != RoleProxy || p1.Port != 6035 || p1.Site != 1 || len(nodes) != 7 {
		t.Fatalf("nodes %+v", nodes)
	}
	got := strings.Join(proxyArgs(nodes, p, "pw"), " ")
	want := "proxy --port 6033 --admin-port 6032 --site 0 --layout /d/proxy-layout.json --primary 127.0.0.1:4000 --replicas 127.0.0.1:4001@0,127.0.0.1:4002@0,127.0.0.1:4004@1 --monitor-user root --monitor-password pw --pack-sessions 8"
	if got != want {
		t.Fatalf("proxy args:\n%s\nwant\n%s", got, want)
	}
	if got := strings.Join(proxyArgs(nodes, p1, "pw"), " "); !strings.HasPrefix(got, "proxy --port 6035 --admin-port 6034 --site 1 ") {
		t.Fatalf("site 1's proxy args: %s", got)
	}
	if d := describe(nodes, p); d != "proxy (reads to replicas within 1s of lag; admin port 6032)" {
		t.Errorf("describe: %q", d)
	}
	if d := describe(nodes, p1); d != "site 1 proxy (reads to its site's replicas within 1s of lag, then the others'; admin port 6034)" {
		t.Errorf("describe: %q", d)
	}
	for _, port := range []int{4003, 4005, 4001, 1, 3999, 65534} {
		if _, err := Plan(Options{Dir: "/d", BasePort: 4000, Replicas: 2, Sites: 1, ReplicasPerSite: 1, ProxyPort: port}); err == nil {
			t.Errorf("proxy port %d accepted", port)
		}
	}
}

// TestLayoutAfterFailover: with cluster.json naming a replica as the
// primary, the layout makes it the primary, the old primary its
// read-only replica (cutting an unacknowledged tail at start), points
// the relays and the other replicas at it and has the site replicas
// fail over to it; a relay or an unknown node cannot be the primary.
func TestLayoutAfterFailover(t *testing.T) {
	o := Options{Dir: "/d", BasePort: 4000, Replicas: 2, Sites: 1, ReplicasPerSite: 1}
	nodes, err := Layout(o, "node3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, n.Name+": "+describe(nodes, n))
	}
	want := []string{
		"node1: replica (super_read_only; replicates from node3)",
		"node2: replica (super_read_only; replicates from node3)",
		"node3: primary",
		"node4: site 1 relay (replicates from node3)",
		"node5: site 1 replica (super_read_only; from node4, fails over to node3)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("layout:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := nodes[0].Config; c["super_read_only"] != "ON" || c["init_rpl_role"] != "SLAVE" || c["rpl_semi_sync_replica_enabled"] != "ON" {
		t.Errorf("old primary's settings: %v", c)
	}
	if c := nodes[2].Config; c["super_read_only"] != "" || c["init_rpl_role"] != "" {
		t.Errorf("new primary's settings: %v", c)
	}
	if c := nodes[3].Config; len(c) != 0 {
		t.Errorf("relay's settings: %v (a relay does not acknowledge)", c)
	}
	st := state{ReplUser: "repl", ReplPassword: "rp"}
	rp := strings.Join(repointStatements(nodes, 3, st, "pw", nil), "; ")
	if rp != "STOP REPLICA; RESET REPLICA; CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=4002, SOURCE_USER='repl', SOURCE_PASSWORD='rp', SOURCE_AUTO_POSITION=1; START REPLICA" {
		t.Errorf("relay repoint: %s", rp)
	}
	if strings.Join(sourceStatements(Options{AutoFailover: true}), "; ") != "SET GLOBAL rpl_semi_sync_source_timeout = 10000; SET GLOBAL rpl_semi_sync_source_wait_point = AFTER_SYNC; "+
		"SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = 1; SET GLOBAL rpl_semi_sync_source_enabled = ON; SET GLOBAL rpl_semi_sync_source_strict = ON" {
		t.Errorf("source statements: %v", sourceStatements(Options{AutoFailover: true}))
	}
	for _, p := range []string{"node4", "node9"} {
		if _, err := Layout(o, p); err == nil {
			t.Errorf("Layout with primary %s accepted", p)
		}
	}
	if again, _ := Layout(o, "node1"); again[0].Role != RolePrimary || again[2].Source != 0 {
		t.Errorf("Layout(node1) is not the planned layout")
	}
}

// TestReplicationMode: semi-sync by default, off with --async or when no
// replica reads from the primary (relays do not acknowledge), strict
// with --auto-failover; the banner says which.
func TestReplicationMode(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Replicas: 2}, "semi-sync (each commit waits for 1 replica's acknowledgement, timeout 10s, then asynchronous)"},
		{Options{Replicas: 2, Async: true}, "asynchronous replication"},
		{Options{Replicas: 2, AutoFailover: true}, "semi-sync (each commit waits for 1 replica's acknowledgement, no timeout: strict), automatic failover"},
		{Options{Sites: 2, ReplicasPerSite: 1}, "asynchronous replication (no replica beside the primary to acknowledge semi-sync; add --replicas)"},
		{Options{Sites: 1, ReplicasPerSite: 1, Replicas: 1, SemiSyncTimeout: 3 * time.Second}, "semi-sync (each commit waits for 1 replica's acknowledgement, timeout 3s, then asynchronous)"},
	} {
		c.o.Dir, c.o.BasePort = "/d", 4000
		o := effective(c.o)
		if got := replicationMode(o); got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
		nodes, err := Layout(c.o, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			want := !o.Async && (n.Role == RolePrimary || n.Role == RoleReplica)
			if got := n.Config["rpl_semi_sync_replica_enabled"] == "ON"; got != want {
				t.Errorf("%+v: %s (%s) acknowledges semi-sync: %v, want %v", c.o, n.Name, n.Role, got, want)
			}
		}
	}
}
