package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"petrel/internal/fsutil"
)

// state is persisted in Dir/cluster.json: the replication account, the
// options the cluster was last started with (so that `petrel failover`
// and `petrel switchover` find the nodes) and which node is the primary,
// which a failover or switchover changes; a restart of `petrel cluster`
// on the directory resumes that topology.
type state struct {
	ReplUser     string `json:"repl_user"`
	ReplPassword string `json:"repl_password"`
	// Primary is the primary's name; "" is node1 (never failed over).
	Primary         string `json:"primary,omitempty"`
	BasePort        int    `json:"base_port,omitempty"`
	Replicas        int    `json:"replicas,omitempty"`
	Sites           int    `json:"sites,omitempty"`
	ReplicasPerSite int    `json:"replicas_per_site,omitempty"`
	ProxyPort       int    `json:"proxy_port,omitempty"`
	Async           bool   `json:"async,omitempty"`
	AutoFailover    bool   `json:"auto_failover,omitempty"`
	// Changes are the role changes, oldest first.
	Changes []Change `json:"changes,omitempty"`
}

// Change is one failover or switchover.
type Change struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"` // "failover" or "switchover"
	From string    `json:"from"`
	To   string    `json:"to"`
	Why  string    `json:"why"`
}

func statePath(dir string) string { return filepath.Join(dir, "cluster.json") }

// readState reads cluster.json; missing is os.ErrNotExist.
func readState(dir string) (state, error) {
	var st state
	b, err := os.ReadFile(statePath(dir))
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil || st.ReplUser == "" {
		return st, fmt.Errorf("cluster: %s is corrupt; refusing to start", statePath(dir))
	}
	return st, nil
}

// loadState reads cluster.json or creates it with a new replication
// account.
func loadState(dir string) (state, error) {
	st, err := readState(dir)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return st, err
	}
	buf := make([]byte, 12)
	_, _ = rand.Read(buf)
	st = state{ReplUser: "repl", ReplPassword: hex.EncodeToString(buf)}
	return st, saveState(dir, st)
}

// saveState replaces cluster.json whole (a reader never sees half of it).
func saveState(dir string, st state) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(statePath(dir), append(b, '\n'), 0o600)
}

// record stores the options the cluster runs with.
func (st *state) record(o Options) {
	st.BasePort, st.Replicas, st.Sites, st.ReplicasPerSite, st.ProxyPort = o.BasePort, o.Replicas, o.Sites, o.ReplicasPerSite, o.ProxyPort
	st.Async, st.AutoFailover = o.Async, o.AutoFailover
}

// options are the recorded options over o's Dir and password.
func (st state) options(o Options) Options {
	o.BasePort, o.Replicas, o.Sites, o.ReplicasPerSite, o.ProxyPort = st.BasePort, st.Replicas, st.Sites, st.ReplicasPerSite, st.ProxyPort
	o.Async, o.AutoFailover = st.Async, st.AutoFailover
	return effective(o)
}

// effective turns semi-sync off when no replica reads from the primary
// (a --sites layout without --replicas: relays do not acknowledge), where
// every commit would wait out the timeout.
func effective(o Options) Options {
	nodes, err := Plan(o)
	if err != nil || o.Async {
		return o
	}
	if !slices.ContainsFunc(nodes, func(n Node) bool { return n.Role == RoleReplica && n.Source == 0 }) {
		o.Async, o.noAcker = true, true
	}
	return o
}

// Layout is Plan with the primary named in cluster.json (pure): every
// node's role, source and settings.
func Layout(o Options, primary string) ([]Node, error) {
	o = effective(o)
	nodes, err := Plan(o)
	if err != nil {
		return nil, err
	}
	if primary != "" && primary != nodes[0].Name {
		p := slices.IndexFunc(nodes, func(n Node) bool { return n.Name == primary })
		if p < 0 || nodes[p].Role != RoleReplica {
			return nil, fmt.Errorf("cluster: cluster.json names %q as the primary, which is not a replica of this layout", primary)
		}
		nodes = withPrimary(nodes, p)
	}
	roleConfig(o, nodes)
	return nodes, nil
}

// primaryIndex is the primary's index in nodes.
func primaryIndex(nodes []Node) int {
	return slices.IndexFunc(nodes, func(n Node) bool { return n.Role == RolePrimary })
}

// withPrimary returns nodes with replica p as the primary (pure): the old
// primary becomes p's replica; every node that read from the old primary
// reads from p, and site replicas fail over to p.
func withPrimary(nodes []Node, p int) []Node {
	old := primaryIndex(nodes)
	out := make([]Node, len(nodes))
	for i, n := range nodes {
		n.Config, n.Failover = maps.Clone(n.Config), slices.Clone(n.Failover)
		out[i] = n
	}
	if p == old {
		return out
	}
	for i := range out {
		n := &out[i]
		if n.Role == RoleProxy {
			continue
		}
		if n.Source == old {
			n.Source = p
		}
		for j := range n.Failover {
			if n.Failover[j].Node == old {
				n.Failover[j].Node = p
			}
		}
	}
	np, op := &out[p], &out[old]
	np.Role, np.Primary, np.Source, np.Failover = RolePrimary, true, -1, nil
	op.Role, op.Primary, op.Source, op.Failover = RoleReplica, false, p, nil
	return out
}

// roleConfig sets each node's settings for its role (pure). Replicas are
// super_read_only and start with init_rpl_role=SLAVE, which cuts a
// binlog tail storage never committed: a crashed primary that comes back
// as a replica drops what was never acknowledged instead of committing
// it. Unless Async, every replica acknowledges semi-sync (relays do not:
// they hold no data to promote). The primary's semi-sync settings are
// set once it is wired (sourceStatements), not in its option file: the
// account statements of the first start would wait for acknowledgements
// no replica can give yet.
func roleConfig(o Options, nodes []Node) {
	for i := range nodes {
		n := &nodes[i]
		for _, k := range []string{"super_read_only", "init_rpl_role", "rpl_semi_sync_replica_enabled"} {
			delete(n.Config, k)
		}
		switch n.Role {
		case RolePrimary:
			if !o.Async {
				n.Config["rpl_semi_sync_replica_enabled"] = "ON"
			}
		case RoleReplica:
			n.Config["super_read_only"] = "ON"
			n.Config["init_rpl_role"] = "SLAVE"
			if !o.Async {
				n.Config["rpl_semi_sync_replica_enabled"] = "ON"
			}
		}
	}
}

// sourceStatements set the primary's semi-sync settings (AFTER_SYNC, one
// acknowledgement; with AutoFailover strict: the wait never gives up, so
// a primary cut off from its replicas stops taking writes instead of
// becoming a second primary), or switch semi-sync off with Async. A
// promoted replica takes the same.
func sourceStatements(o Options) []string {
	if o.Async {
		return []string{"SET GLOBAL rpl_semi_sync_source_enabled = OFF"}
	}
	strict := "OFF"
	if o.AutoFailover {
		strict = "ON"
	}
	return []string{
		fmt.Sprintf("SET GLOBAL rpl_semi_sync_source_timeout = %d", o.semiTimeout().Milliseconds()),
		"SET GLOBAL rpl_semi_sync_source_wait_point = AFTER_SYNC",
		"SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = 1",
		"SET GLOBAL rpl_semi_sync_source_enabled = ON",
		"SET GLOBAL rpl_semi_sync_source_strict = " + strict,
	}
}

func (o Options) semiTimeout() time.Duration {
	if o.SemiSyncTimeout > 0 {
		return o.SemiSyncTimeout
	}
	return 10 * time.Second
}
