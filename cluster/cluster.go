// Package cluster runs a local Petrel cluster: one primary and N replicas,
// each a `petrel server` child process with its own datadir on loopback,
// replication wired by SQL (CHANGE REPLICATION SOURCE TO ...). It is the
// README's main job (`petrel cluster`), and a supervisor: a node that dies
// is restarted, the nodes die with it. Restarting on the same directory
// resumes the same cluster.
package cluster

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Options configures a cluster.
type Options struct {
	// Dir holds one datadir per node (node1 is the primary) and cluster.json.
	Dir string
	// BasePort is the primary's port; replica i listens on BasePort+i.
	BasePort int
	// Replicas is the number of replicas next to the primary.
	Replicas int
	// Sites is the number of remote sites (the seed's topology): each has
	// a relay (`petrel relay`) fed by the primary and ReplicasPerSite
	// replicas fed by the relay, with the primary as their failover
	// source (SOURCE_CONNECTION_AUTO_FAILOVER).
	Sites, ReplicasPerSite int
	// ProxyPort, when not 0, runs a `petrel proxy` on it in front of the
	// primary and every replica (its admin port is ProxyPort-1).
	ProxyPort int
	// RootPassword is every node's root password.
	RootPassword string
	// Binary is the petrel executable (default: this process's own).
	Binary string
	// Out receives the connection details; Logger the progress.
	Out    io.Writer
	Logger *slog.Logger
	// StartTimeout bounds each node's start; default 60s.
	StartTimeout time.Duration
	// StopTimeout bounds the stop of all nodes (a third each for the replicas,
	// the relays and the primary) before they are killed; default 30s.
	StopTimeout time.Duration
	// Force, when closed, kills the nodes at once instead of waiting for
	// them to stop (a second ^C).
	Force <-chan struct{}
}

// Node is one planned member.
type Node struct {
	Name     string
	Datadir  string
	Port     int
	ServerID int
	Primary  bool
	Role     string // RolePrimary, RoleReplica or RoleRelay
	// Source is the index of the node it replicates from (-1: the
	// primary); Failover lists the sources it may switch to, Source
	// first, with their weights (site replicas only).
	Source   int
	Failover []Weighted
	Site     int // 0: next to the primary
	Config   map[string]string
}

// Weighted is a failover source and its weight.
type Weighted struct{ Node, Weight int }

// Roles.
const (
	RolePrimary = "primary"
	RoleReplica = "replica"
	RoleRelay   = "relay"
	// RoleProxy is `petrel proxy` in front of the others (--proxy).
	RoleProxy = "proxy"
)

// Failover weights of a site replica's sources: its relay, then the
// primary.
const (
	relayWeight   = 70
	primaryWeight = 50
)

// state is persisted in Dir/cluster.json so a restart reuses the
// replication account.
type state struct {
	ReplUser     string `json:"repl_user"`
	ReplPassword string `json:"repl_password"`
}

// Plan lays out the nodes (pure).
func Plan(o Options) ([]Node, error) {
	if o.Replicas < 0 || o.Replicas > 64 {
		return nil, fmt.Errorf("cluster: --replicas %d out of range [0, 64]", o.Replicas)
	}
	if o.Sites < 0 || o.Sites > 16 || o.ReplicasPerSite < 0 || o.ReplicasPerSite > 16 {
		return nil, fmt.Errorf("cluster: --sites %d / --replicas-per-site %d out of range [0, 16]", o.Sites, o.ReplicasPerSite)
	}
	total := 1 + o.Replicas + o.Sites*(1+o.ReplicasPerSite)
	if o.BasePort < 1 || o.BasePort+total-1 > 65535 {
		return nil, fmt.Errorf("cluster: --base-port %d with %d nodes leaves the port range", o.BasePort, total)
	}
	if o.Dir == "" {
		return nil, errors.New("cluster: --datadir is required")
	}
	nodes := make([]Node, 0, total)
	add := func(role string, source, site int) int {
		i := len(nodes)
		n := Node{
			Name: fmt.Sprintf("node%d", i+1), Datadir: filepath.Join(o.Dir, fmt.Sprintf("node%d", i+1)),
			Port: o.BasePort + i, ServerID: i + 1, Primary: role == RolePrimary, Role: role, Source: source, Site: site,
			Config: map[string]string{},
		}
		if role == RoleReplica {
			// Replicas take writes only from replication (a relay
			// refuses them by itself).
			n.Config["super_read_only"] = "ON"
		}
		nodes = append(nodes, n)
		return i
	}
	add(RolePrimary, -1, 0)
	for i := 0; i < o.Replicas; i++ {
		add(RoleReplica, 0, 0)
	}
	for site := 1; site <= o.Sites; site++ {
		relay := add(RoleRelay, 0, site)
		for i := 0; i < o.ReplicasPerSite; i++ {
			r := add(RoleReplica, relay, site)
			nodes[r].Failover = []Weighted{{relay, relayWeight}, {0, primaryWeight}}
		}
	}
	if o.ProxyPort < 0 || o.ProxyPort == 1 || o.ProxyPort > 65535 || (o.ProxyPort > 0 && o.ProxyPort-1 < o.BasePort+total && o.ProxyPort >= o.BasePort) {
		return nil, fmt.Errorf("cluster: --proxy-port %d (admin port %d) overlaps the nodes' ports %d..%d or leaves the range", o.ProxyPort, o.ProxyPort-1, o.BasePort, o.BasePort+total-1)
	}
	if o.ProxyPort > 0 {
		// Last: it starts after the nodes it routes to.
		nodes = append(nodes, Node{Name: "proxy", Port: o.ProxyPort, Role: RoleProxy, Source: -1, Config: map[string]string{}})
	}
	return nodes, nil
}

// proxyArgs are the `petrel proxy` arguments of the proxy node (pure).
func proxyArgs(nodes []Node, n Node, rootPassword string) []string {
	var reps []string
	for _, r := range nodes {
		if r.Role == RoleReplica {
			reps = append(reps, "127.0.0.1:"+strconv.Itoa(r.Port))
		}
	}
	return []string{"proxy", "--port", strconv.Itoa(n.Port), "--admin-port", strconv.Itoa(n.Port - 1),
		"--primary", "127.0.0.1:" + strconv.Itoa(nodes[0].Port), "--replicas", strings.Join(reps, ","),
		"--monitor-user", "root", "--monitor-password", rootPassword}
}

// Run starts the cluster and supervises it until ctx ends, then stops
// every node (replicas first) within StopTimeout, at once if Force closes
// first. A node that dies is restarted with backoff while the others keep
// serving; the nodes die with the supervisor (parent-death signal); a
// second supervisor on the same directory, or a node port already in use,
// is refused before anything starts.
func Run(ctx context.Context, o Options) error {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.StopTimeout == 0 {
		o.StopTimeout = 30 * time.Second
	}
	if o.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		o.Binary = exe
	}
	nodes, err := Plan(o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o750); err != nil {
		return err
	}
	lock, err := lockDir(o.Dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	for _, n := range nodes {
		if err := portFree(n); err != nil {
			return err
		}
	}
	st, err := loadState(o.Dir)
	if err != nil {
		return err
	}
	s := newSupervisor(o, nodes)
	defer s.stopAll(o.Force)
	for i := range nodes {
		if _, err := s.start(i); err != nil {
			return err
		}
	}
	sctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	dbs := make([]*sql.DB, len(nodes))
	for i, n := range nodes {
		db, err := waitReady(sctx, n, o.RootPassword, s.procs[i])
		if err != nil {
			return err
		}
		defer db.Close()
		dbs[i] = db
	}
	if err := wire(sctx, nodes, dbs, st, o.RootPassword); err != nil {
		return err
	}
	printDetails(o, nodes)
	return s.watch(ctx)
}

func loadState(dir string) (state, error) {
	p := filepath.Join(dir, "cluster.json")
	var st state
	b, err := os.ReadFile(p)
	if err == nil {
		if err := json.Unmarshal(b, &st); err != nil || st.ReplUser == "" {
			return st, fmt.Errorf("cluster: %s is corrupt; refusing to start", p)
		}
		return st, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return st, err
	}
	buf := make([]byte, 12)
	_, _ = rand.Read(buf)
	st = state{ReplUser: "repl", ReplPassword: hex.EncodeToString(buf)}
	b, _ = json.MarshalIndent(st, "", "  ")
	return st, os.WriteFile(p, append(b, '\n'), 0o600)
}

// wire creates the replication account on the primary and points every
// replica and relay that has no source yet at its source.
func wire(ctx context.Context, nodes []Node, dbs []*sql.DB, st state, rootPassword string) error {
	primary := nodes[0]
	stmts := []string{
		fmt.Sprintf("CREATE USER IF NOT EXISTS '%s'@'%%' IDENTIFIED BY '%s'", st.ReplUser, st.ReplPassword),
		fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'", st.ReplUser),
	}
	for _, q := range stmts {
		if _, err := dbs[0].ExecContext(ctx, q); err != nil {
			return fmt.Errorf("cluster: %s: %s: %w", primary.Name, q, err)
		}
	}
	for i, n := range nodes[1:] {
		if n.Role == RoleProxy {
			continue
		}
		db := dbs[i+1]
		rows, err := db.QueryContext(ctx, "SHOW REPLICA STATUS")
		if err != nil {
			return fmt.Errorf("cluster: %s: %w", n.Name, err)
		}
		configured := rows.Next()
		rows.Close()
		if configured {
			continue // restarted: replication resumes by itself
		}
		for _, s := range wireStatements(nodes, i+1, st, rootPassword) {
			if _, err := db.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("cluster: %s: %s: %w", n.Name, strings.SplitN(s, " IDENTIFIED", 2)[0], err)
			}
		}
	}
	return nil
}

// wireStatements are the statements that point node i at its source
// (pure). Replicas of the primary and relays log in with the replication
// account; a site replica logs in to its relay with root (a relay applies
// no account statements, so it has only its own accounts, and MySQL's
// failover uses one set of credentials for every source), retries once a
// second and fails over after one failed retry.
func wireStatements(nodes []Node, i int, st state, rootPassword string) []string {
	n := nodes[i]
	src := nodes[n.Source]
	if len(n.Failover) == 0 {
		return []string{
			fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='%s', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1", src.Port, st.ReplUser, st.ReplPassword),
			"START REPLICA",
		}
	}
	var out []string
	for _, w := range n.Failover {
		out = append(out, fmt.Sprintf("SELECT asynchronous_connection_failover_add_source('', '127.0.0.1', %d, '', %d)", nodes[w.Node].Port, w.Weight))
	}
	return append(out,
		fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='root', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=1, SOURCE_CONNECTION_AUTO_FAILOVER=1", src.Port, rootPassword),
		"START REPLICA")
}

func printDetails(o Options, nodes []Node) {
	fmt.Fprintf(o.Out, "petrel cluster: %d node(s) in %s (Ctrl-C stops them)\n", len(nodes), o.Dir)
	for _, n := range nodes {
		fmt.Fprintf(o.Out, "  %-6s %-62s mariadb -h 127.0.0.1 -P %d -u root -p'%s'   datadir %s\n", n.Name, describe(nodes, n), n.Port, o.RootPassword, n.Datadir)
	}
}

// describe is a node's role line in the connection details.
func describe(nodes []Node, n Node) string {
	site := ""
	if n.Site > 0 {
		site = fmt.Sprintf("site %d ", n.Site)
	}
	switch {
	case n.Role == RolePrimary:
		return "primary"
	case n.Role == RoleRelay:
		return site + "relay (replicates from " + nodes[n.Source].Name + ")"
	case n.Role == RoleProxy:
		return fmt.Sprintf("proxy (reads to replicas within 1s of lag; admin port %d)", n.Port-1)
	case len(n.Failover) > 0:
		return fmt.Sprintf("%sreplica (super_read_only; from %s, fails over to %s)", site, nodes[n.Source].Name, nodes[n.Failover[1].Node].Name)
	}
	return "replica (super_read_only; replicates from " + nodes[n.Source].Name + ")"
}

// waitReady pings the node as root until it answers.
func waitReady(ctx context.Context, n Node, password string, p *proc) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", password, "tcp", "127.0.0.1:"+strconv.Itoa(n.Port)
	cfg.Timeout = 2 * time.Second
	cfg.Logger = &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := db.PingContext(pctx)
		cancel()
		if err == nil {
			return db, nil
		}
		select {
		case <-p.done:
			db.Close()
			return nil, fmt.Errorf("cluster: %s exited during start-up (%v); see %s", n.Name, p.err, p.logPath)
		case <-ctx.Done():
			db.Close()
			return nil, fmt.Errorf("cluster: %s not ready: %v (last error: %v); see %s", n.Name, ctx.Err(), err, p.logPath)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
