package cluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
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
	// Async turns semi-sync off (default: on, the primary waits for one
	// replica's acknowledgement, AFTER_SYNC).
	Async bool
	// SemiSyncTimeout is rpl_semi_sync_source_timeout; default 10s
	// (ignored with AutoFailover: strict, no timeout).
	SemiSyncTimeout time.Duration
	// AutoFailover runs the failure detector: a primary confirmed dead is
	// replaced by its most advanced replica (failover.go).
	AutoFailover bool
	// Detector tunes the detector and the promotion (zero: defaults).
	Detector DetectorOptions

	noAcker bool // Async because no replica reads from the primary
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
	// One proxy per site (the primary's, then each remote site's), on
	// ProxyPort+2*site with its admin port below.
	last := o.ProxyPort + 2*o.Sites
	if o.ProxyPort < 0 || o.ProxyPort == 1 || last > 65535 || (o.ProxyPort > 0 && o.ProxyPort-1 < o.BasePort+total && last >= o.BasePort) {
		return nil, fmt.Errorf("cluster: --proxy-port %d (ports %d..%d with the admin ports) overlaps the nodes' ports %d..%d or leaves the range", o.ProxyPort, o.ProxyPort-1, last, o.BasePort, o.BasePort+total-1)
	}
	for site := 0; o.ProxyPort > 0 && site <= o.Sites; site++ {
		// Last: they start after the nodes they route to.
		name := "proxy"
		if site > 0 {
			name = fmt.Sprintf("proxy-site%d", site)
		}
		nodes = append(nodes, Node{Name: name, Port: o.ProxyPort + 2*site, Role: RoleProxy, Source: -1, Site: site, Config: map[string]string{}})
	}
	return nodes, nil
}

// proxyArgs are the `petrel proxy` arguments of the proxy node (pure).
func proxyArgs(nodes []Node, n Node, rootPassword string) []string {
	var reps []string
	for _, r := range nodes {
		if r.Role == RoleReplica {
			reps = append(reps, "127.0.0.1:"+strconv.Itoa(r.Port)+"@"+strconv.Itoa(r.Site))
		}
	}
	return []string{"proxy", "--port", strconv.Itoa(n.Port), "--admin-port", strconv.Itoa(n.Port - 1), "--site", strconv.Itoa(n.Site),
		"--layout", proxyLayoutPath(filepath.Dir(nodes[0].Datadir)),
		"--primary", "127.0.0.1:" + strconv.Itoa(nodes[primaryIndex(nodes)].Port), "--replicas", strings.Join(reps, ","),
		"--monitor-user", "root", "--monitor-password", rootPassword,
		// Every node shares this host's cores: sessions packed onto one
		// replica at a time cost ~30% less CPU per query than spread
		// (docs/PERFORMANCE.md, proxy).
		"--pack-sessions", "8"}
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
	if _, err := Plan(o); err != nil {
		return err
	}
	st0 := o
	o = effective(o)
	if err := os.MkdirAll(o.Dir, 0o750); err != nil {
		return err
	}
	lock, err := lockDir(o.Dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	st, err := loadState(o.Dir)
	if err != nil {
		return err
	}
	nodes, err := Layout(o, st.Primary)
	if err != nil {
		return err
	}
	st.record(st0)
	if err := saveState(o.Dir, st); err != nil {
		return err
	}
	for _, n := range nodes {
		if err := portFree(n); err != nil {
			return err
		}
	}
	if err := WriteProxyLayout(o.Dir, nodes); err != nil {
		return err
	}
	s := newSupervisor(o, nodes)
	defer s.stopAll(o.Force)
	for i := range nodes {
		if _, err := s.start(i); err != nil {
			return err
		}
	}
	dbs := make([]*sql.DB, len(nodes))
	var failed []int
	for i, n := range nodes {
		nctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
		db, err := waitReady(nctx, n, o.RootPassword, s.procs[i])
		cancel()
		if err != nil {
			if i == primaryIndex(nodes) || ctx.Err() != nil {
				return err
			}
			// One node that cannot start (a damaged datadir, say) does
			// not take the others down: they run, it is retried with
			// backoff (and wired once it starts).
			o.Logger.Error("cluster: node failed to start; the others run without it, it is retried", "node", n.Name, "error", err)
			s.procs[i].cmd.Process.Kill()
			failed = append(failed, i)
			continue
		}
		defer db.Close()
		dbs[i] = db
	}
	sctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	if err := wire(sctx, o, nodes, dbs, st); err != nil {
		return err
	}
	printDetails(o, nodes)
	for _, i := range failed {
		fmt.Fprintf(o.Out, "  %s failed to start (retried with backoff): see %s\n", nodes[i].Name, s.procs[i].logPath)
	}
	return s.watch(ctx, st)
}

// wire creates the replication account on the primary, points every
// replica and relay at its source (those with none yet, and those that
// read from another node than the layout says: the layout changed while
// they were down) and sets the primary's semi-sync settings.
func wire(ctx context.Context, o Options, nodes []Node, dbs []*sql.DB, st state) error {
	p := primaryIndex(nodes)
	primary := nodes[p]
	stmts := []string{
		fmt.Sprintf("CREATE USER IF NOT EXISTS '%s'@'%%' IDENTIFIED BY '%s'", st.ReplUser, st.ReplPassword),
		fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'", st.ReplUser),
	}
	var n int
	if err := dbs[p].QueryRowContext(ctx, "SELECT COUNT(*) FROM mysql.user WHERE User = ?", st.ReplUser).Scan(&n); err != nil || n == 0 {
		for _, q := range stmts {
			if _, err := dbs[p].ExecContext(ctx, q); err != nil {
				return fmt.Errorf("cluster: %s: %s: %w", primary.Name, strings.SplitN(q, " IDENTIFIED", 2)[0], err)
			}
		}
	}
	for i, n := range nodes {
		if n.Role == RoleProxy || i == p || dbs[i] == nil {
			continue
		}
		if err := wireNode(ctx, nodes, i, dbs[i], dbs[p], st, o.RootPassword); err != nil {
			return err
		}
	}
	if !o.Async && slices.ContainsFunc(nodes, func(n Node) bool { return n.Role == RoleReplica && n.Source == p }) {
		// Strict semi-sync refuses writes until a replica acknowledges:
		// let one connect first, so the cluster is writable when its
		// details are printed.
		waitSemiClients(ctx, dbs[p], 10*time.Second)
	}
	return execAll(ctx, dbs[p], primary.Name, sourceStatements(o))
}

// waitSemiClients waits, within limit, until a semi-sync replica is
// connected to db (Rpl_semi_sync_source_clients).
func waitSemiClients(ctx context.Context, db *sql.DB, limit time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		var name string
		var n int
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source_clients'").Scan(&name, &n); err == nil && n > 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// execAll runs stmts in order on db.
func execAll(ctx context.Context, db *sql.DB, name string, stmts []string) error {
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("cluster: %s: %s: %w", name, strings.SplitN(q, " IDENTIFIED", 2)[0], err)
		}
	}
	return nil
}

// wireNode points node i at its source unless it already reads from it.
// A node that never replicated and holds transactions the primary lacks
// (an old primary whose tail was not cut: errant GTIDs) is refused: it
// stays read-only and unwired, and the error says what it holds.
func wireNode(ctx context.Context, nodes []Node, i int, db, primary *sql.DB, st state, rootPassword string) error {
	n := nodes[i]
	rs, err := showReplicaStatus(ctx, db)
	if err != nil {
		return fmt.Errorf("cluster: %s: %w", n.Name, err)
	}
	switch {
	case rs == nil:
		if err := checkErrant(ctx, n.Name, db, primary); err != nil {
			return err
		}
		return execAll(ctx, db, n.Name, wireStatements(nodes, i, st, rootPassword))
	}
	list, err := failoverListStatements(ctx, db, nodes, i)
	if err != nil {
		return fmt.Errorf("cluster: %s: %w", n.Name, err)
	}
	if err := execAll(ctx, db, n.Name, list); err != nil {
		return err
	}
	if rs["Source_Port"] == strconv.Itoa(nodes[n.Source].Port) {
		return nil // replication resumes by itself
	}
	if err := checkErrant(ctx, n.Name, db, primary); err != nil {
		return err
	}
	return execAll(ctx, db, n.Name, repointStatements(nodes, i, st, rootPassword, rs))
}

// checkErrant fails when the node's gtid_executed is not a subset of the
// primary's.
func checkErrant(ctx context.Context, name string, db, primary *sql.DB) error {
	var mine, theirs string
	if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_executed").Scan(&mine); err != nil {
		return fmt.Errorf("cluster: %s: %w", name, err)
	}
	if mine == "" {
		return nil
	}
	if err := primary.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_executed").Scan(&theirs); err != nil {
		return fmt.Errorf("cluster: the primary: %w", err)
	}
	var extra string
	if err := primary.QueryRowContext(ctx, "SELECT GTID_SUBTRACT(?, ?)", mine, theirs).Scan(&extra); err != nil {
		return fmt.Errorf("cluster: the primary: %w", err)
	}
	if extra != "" {
		return fmt.Errorf("cluster: %s holds transactions the primary lacks (errant GTIDs %s): it is left read-only and not replicating; rebuild it (petrel clone) or remove those transactions", name, extra)
	}
	return nil
}

// repointStatements move an already replicating node i to the source the
// layout gives it (by GTID auto-position): a relay forgets the source it
// followed (RESET REPLICA keeps its binlog); a site replica's failover
// list is brought in line with the layout.
func repointStatements(nodes []Node, i int, st state, rootPassword string, rs map[string]string) []string {
	n := nodes[i]
	src := nodes[n.Source]
	out := []string{"STOP REPLICA"}
	if n.Role == RoleRelay {
		out = append(out, "RESET REPLICA")
	}
	user, pw := st.ReplUser, st.ReplPassword
	if len(n.Failover) > 0 {
		user, pw = "root", rootPassword
	}
	out = append(out, fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='%s', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1", src.Port, user, pw))
	return append(out, "START REPLICA")
}

// failoverListStatements bring a site replica's failover source list in
// line with the layout (after a failover the primary it falls back to is
// another node).
func failoverListStatements(ctx context.Context, db *sql.DB, nodes []Node, i int) ([]string, error) {
	n := nodes[i]
	if len(n.Failover) == 0 {
		return nil, nil
	}
	rows, err := db.QueryContext(ctx, "SELECT PORT FROM performance_schema.replication_asynchronous_connection_failover")
	if err != nil {
		return nil, err
	}
	have := map[int]bool{}
	for rows.Next() {
		var port int
		if err := rows.Scan(&port); err != nil {
			rows.Close()
			return nil, err
		}
		have[port] = true
	}
	rows.Close()
	want := map[int]int{}
	for _, w := range n.Failover {
		want[nodes[w.Node].Port] = w.Weight
	}
	var out []string
	for port := range have {
		if _, ok := want[port]; !ok {
			out = append(out, fmt.Sprintf("SELECT asynchronous_connection_failover_delete_source('', '127.0.0.1', %d, '')", port))
		}
	}
	for _, w := range n.Failover {
		if port := nodes[w.Node].Port; !have[port] {
			out = append(out, fmt.Sprintf("SELECT asynchronous_connection_failover_add_source('', '127.0.0.1', %d, '', %d)", port, w.Weight))
		}
	}
	return out, nil
}

// showReplicaStatus is SHOW REPLICA STATUS's row by column, nil when the
// node has no source.
func showReplicaStatus(ctx context.Context, db *sql.DB) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW REPLICA STATUS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		return nil, rows.Err()
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	m := make(map[string]string, len(cols))
	for i, c := range cols {
		m[c] = vals[i].String
	}
	return m, nil
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
	fmt.Fprintf(o.Out, "petrel cluster: %d node(s) in %s, %s (Ctrl-C stops them)\n", len(nodes), o.Dir, replicationMode(o))
	for _, n := range nodes {
		fmt.Fprintf(o.Out, "  %-6s %-62s mariadb -h 127.0.0.1 -P %d -u root -p'%s'   datadir %s\n", n.Name, describe(nodes, n), n.Port, o.RootPassword, n.Datadir)
	}
}

// replicationMode says how commits are acknowledged and whether failover
// is automatic, for the banner.
func replicationMode(o Options) string {
	var m string
	switch {
	case o.noAcker:
		m = "asynchronous replication (no replica beside the primary to acknowledge semi-sync; add --replicas)"
	case o.Async:
		m = "asynchronous replication"
	case o.AutoFailover:
		m = "semi-sync (each commit waits for 1 replica's acknowledgement, no timeout: strict)"
	default:
		m = fmt.Sprintf("semi-sync (each commit waits for 1 replica's acknowledgement, timeout %v, then asynchronous)", o.semiTimeout())
	}
	if o.AutoFailover {
		m += ", automatic failover"
	}
	return m
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
		if n.Site > 0 {
			return fmt.Sprintf("%sproxy (reads to its site's replicas within 1s of lag, then the others'; admin port %d)", site, n.Port-1)
		}
		return fmt.Sprintf("proxy (reads to replicas within 1s of lag; admin port %d)", n.Port-1)
	case len(n.Failover) > 1:
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
