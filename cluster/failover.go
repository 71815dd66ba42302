package cluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/failover"
	"petrel/internal/base"
)

// DetectorOptions tune failure detection and promotion, the failover
// core's options plus the shell's timings.
type DetectorOptions struct {
	failover.Options
	// Interval is the time between two rounds of observations; default
	// 200ms.
	Interval time.Duration
	// QueryTimeout bounds each ping and status query; default 500ms.
	QueryTimeout time.Duration
	// ApplyTimeout bounds the wait for the promoted replica to apply its
	// relay log (or, in a switchover, to catch up); default 30s.
	ApplyTimeout time.Duration
}

func (d *DetectorOptions) defaults() {
	if d.Interval <= 0 {
		d.Interval = 200 * time.Millisecond
	}
	if d.QueryTimeout <= 0 {
		d.QueryTimeout = 500 * time.Millisecond
	}
	if d.ApplyTimeout <= 0 {
		d.ApplyTimeout = 30 * time.Second
	}
}

// conns holds one connection pool per node, opened on first use.
type conns struct {
	password string
	timeout  time.Duration
	mu       sync.Mutex
	dbs      map[int]*sql.DB // by port
}

func newConns(password string, timeout time.Duration) *conns {
	return &conns{password: password, timeout: timeout, dbs: map[int]*sql.DB{}}
}

func (c *conns) get(port int) *sql.DB {
	c.mu.Lock()
	defer c.mu.Unlock()
	if db := c.dbs[port]; db != nil {
		return db
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", c.password, "tcp", "127.0.0.1:"+strconv.Itoa(port)
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = c.timeout, 60*time.Second, 10*time.Second
	cfg.Logger = &mysql.NopLogger{}
	conn, _ := mysql.NewConnector(cfg) // the config is valid by construction
	db := sql.OpenDB(conn)
	db.SetMaxIdleConns(2)
	c.dbs[port] = db
	return db
}

func (c *conns) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, db := range c.dbs {
		db.Close()
	}
	c.dbs = map[int]*sql.DB{}
}

// members are the detector's view of the layout: every node but the
// primary and the proxy.
func members(nodes []Node) []failover.Member {
	p := primaryIndex(nodes)
	var out []failover.Member
	for i, n := range nodes {
		if i == p || n.Role == RoleProxy {
			continue
		}
		out = append(out, failover.Member{Name: n.Name, Relay: n.Role == RoleRelay, Direct: n.Source == p, Site: n.Site})
	}
	return out
}

// toStatus reads SHOW REPLICA STATUS into the core's Status.
func toStatus(rs map[string]string) failover.Status {
	var st failover.Status
	switch rs["Replica_IO_Running"] {
	case "Yes":
		st.Receiver = failover.ReceiverConnected
	case "Connecting":
		st.Receiver = failover.ReceiverConnecting
	}
	st.Applier = rs["Replica_SQL_Running"] == "Yes"
	st.ApplierErrno, _ = strconv.Atoi(rs["Last_SQL_Errno"])
	st.ApplierError = rs["Last_SQL_Error"]
	st.Retrieved, _ = base.ParseGTIDSet(rs["Retrieved_Gtid_Set"])
	st.Executed, _ = base.ParseGTIDSet(rs["Executed_Gtid_Set"])
	if v := rs["Seconds_Behind_Source"]; v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			st.Lag, st.LagKnown = time.Duration(n)*time.Second, true
		}
	}
	return st
}

// observe runs one round: the observer's ping of the primary and every
// member's status, in parallel, each bounded by the query timeout. It
// returns the statuses it got and whether the primary answered the ping.
func observe(ctx context.Context, d *failover.Detector, c *conns, nodes []Node, observer string, timeout time.Duration, now func() time.Time) (map[string]failover.Status, bool) {
	p := primaryIndex(nodes)
	var mu sync.Mutex
	got := map[string]failover.Status{}
	answered := false
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		qctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		err := c.get(nodes[p].Port).PingContext(qctx)
		mu.Lock()
		d.Ping(observer, err == nil, now())
		answered = err == nil
		mu.Unlock()
	}()
	for i, n := range nodes {
		if i == p || n.Role == RoleProxy {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			qctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			rs, err := showReplicaStatus(qctx, c.get(n.Port))
			if err != nil || rs == nil {
				return // no observation: it goes stale
			}
			st := toStatus(rs)
			mu.Lock()
			got[n.Name] = st
			_ = d.Observe(n.Name, st, now())
			mu.Unlock()
		}()
	}
	wg.Wait()
	return got, answered
}

// promotion carries out a failover or switchover choice.
type promotion struct {
	o       Options
	st      state
	nodes   []Node // the layout before
	to      int
	c       *conns
	log     *slog.Logger
	kind    string // "failover" or "switchover"
	why     string
	waitOn  string             // switchover: the old primary's gtid_executed to reach
	catchUp []failover.CatchUp // failover: nodes holding more, to replicate from first
}

// run promotes nodes[to]: it applies its relay log to the end (or, in a
// switchover, reaches waitOn), stops replicating and forgets its source,
// takes the primary's semi-sync settings and turns read-write; the new
// layout is saved; every other node is pointed at it by GTID
// auto-position (the old primary too when it is alive). It returns the
// new layout.
func (pr promotion) run(ctx context.Context) ([]Node, error) {
	n := pr.nodes[pr.to]
	db := pr.c.get(n.Port)
	target := pr.waitOn
	if pr.kind == "failover" {
		// The source is gone: take what the relay log holds, no more.
		if _, err := db.ExecContext(ctx, "STOP REPLICA IO_THREAD"); err != nil {
			return nil, fmt.Errorf("cluster: %s: STOP REPLICA IO_THREAD: %w", n.Name, err)
		}
		rs, err := showReplicaStatus(ctx, db)
		if err != nil || rs == nil {
			return nil, fmt.Errorf("cluster: %s: SHOW REPLICA STATUS: %v", n.Name, err)
		}
		target = rs["Retrieved_Gtid_Set"]
	}
	if target != "" {
		var res sql.NullInt64
		secs := int(pr.o.Detector.ApplyTimeout.Seconds() + 0.5)
		if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT WAIT_FOR_EXECUTED_GTID_SET('%s', %d)", target, secs)).Scan(&res); err != nil {
			return nil, fmt.Errorf("cluster: %s: waiting for its relay log to be applied: %w", n.Name, err)
		}
		if res.Int64 != 0 {
			return nil, fmt.Errorf("cluster: %s did not apply %s within %v: not promoted", n.Name, target, pr.o.Detector.ApplyTimeout)
		}
	}
	for _, u := range pr.catchUp {
		if err := pr.catchUpFrom(ctx, db, u); err != nil {
			pr.log.Warn("cluster: promoted replica not caught up; those transactions are not on the new primary", "node", n.Name, "from", u.Node, "error", err)
		}
	}
	stmts := append([]string{"STOP REPLICA", "RESET REPLICA ALL"}, sourceStatements(pr.o)...)
	stmts = append(stmts, "SET GLOBAL super_read_only = OFF", "SET GLOBAL read_only = OFF")
	if err := execAll(ctx, db, n.Name, stmts); err != nil {
		return nil, err
	}
	old := primaryIndex(pr.nodes)
	next := withPrimary(pr.nodes, pr.to)
	roleConfig(pr.o, next)
	st := pr.st
	st.Primary = n.Name
	st.Changes = append(st.Changes, Change{At: time.Now().UTC(), Kind: pr.kind, From: pr.nodes[old].Name, To: n.Name, Why: pr.why})
	if err := saveState(pr.o.Dir, st); err != nil {
		return next, fmt.Errorf("cluster: %s is the primary but cluster.json was not updated: %w", n.Name, err)
	}
	if err := WriteProxyLayout(pr.o.Dir, next); err != nil {
		// The proxies follow the promotion by their own checks too.
		pr.log.Warn("cluster: proxy layout not updated", "error", err)
	}
	pr.log.Info("cluster: promoted", "kind", pr.kind, "primary", n.Name, "old", pr.nodes[old].Name, "why", pr.why)
	var wg sync.WaitGroup
	for i, m := range next {
		if i == pr.to || m.Role == RoleProxy || (i == old && pr.kind == "failover") {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			mdb := pr.c.get(m.Port)
			if i == old {
				// A switchover: the old primary, read-only since the
				// switch began, becomes a replica.
				if err := execAll(rctx, mdb, m.Name, []string{"SET GLOBAL rpl_semi_sync_source_enabled = OFF", "SET GLOBAL rpl_semi_sync_replica_enabled = ON"}); err != nil {
					pr.log.Error("cluster: old primary not demoted", "node", m.Name, "error", err)
					return
				}
			}
			if err := wireNode(rctx, next, i, mdb, db, st, pr.o.RootPassword); err != nil {
				pr.log.Error("cluster: node not repointed (it is at its next start)", "node", m.Name, "error", err)
			}
		}()
	}
	wg.Wait()
	return next, nil
}

// catchUpFrom replicates into the replica being promoted (db) what u's
// binary log holds beyond it (a relay served its site transactions the
// old primary sent before they were acknowledged): after this they are
// the new primary's, not errant on the relay's replicas.
func (pr promotion) catchUpFrom(ctx context.Context, db *sql.DB, u failover.CatchUp) error {
	i := slices.IndexFunc(pr.nodes, func(n Node) bool { return n.Name == u.Node })
	if i < 0 {
		return fmt.Errorf("no node %s", u.Node)
	}
	stmts := []string{"STOP REPLICA",
		fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='root', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1", pr.nodes[i].Port, pr.o.RootPassword),
		"START REPLICA"}
	if err := execAll(ctx, db, pr.nodes[pr.to].Name, stmts); err != nil {
		return err
	}
	var res sql.NullInt64
	secs := int(pr.o.Detector.ApplyTimeout.Seconds() + 0.5)
	if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT WAIT_FOR_EXECUTED_GTID_SET('%s', %d)", u.Set, secs)).Scan(&res); err != nil {
		return err
	}
	if res.Int64 != 0 {
		return fmt.Errorf("did not reach %s within %v", u.Set, pr.o.Detector.ApplyTimeout)
	}
	pr.log.Info("cluster: promoted replica caught up", "node", pr.nodes[pr.to].Name, "from", u.Node, "gtids", u.Set.String())
	return nil
}

// fence makes the old primary refuse writes if it answers (it may be
// alive behind a partition, or back already): super_read_only. Best
// effort, within the query timeout: a primary nobody reaches takes no
// writes either, strict semi-sync holding every commit it gets.
func fence(ctx context.Context, c *conns, n Node, timeout time.Duration) error {
	fctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := c.get(n.Port).ExecContext(fctx, "SET GLOBAL super_read_only = ON")
	return err
}

// lockFailover takes DIR/failover.lock so that two failovers (the
// supervisor's and a manual one) never run at once.
func lockFailover(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "failover.lock"), os.O_CREATE|os.O_RDWR, 0o640)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, errors.New("cluster: another failover or switchover is running on this cluster")
	}
	return f, nil
}

// CommandOptions configure `petrel failover` and `petrel switchover`.
type CommandOptions struct {
	// Dir is the cluster's directory (cluster.json).
	Dir string
	// RootPassword logs in to the nodes (petrel cluster's --root-password).
	RootPassword string
	// To names the replica to promote (switchover; "" = the best).
	To string
	// Wait bounds how long a failover watches for the primary to be
	// confirmed dead; default 10s.
	Wait time.Duration
	// Detector tunes detection and promotion.
	Detector DetectorOptions
	Out      *os.File
	Logger   *slog.Logger
}

func (co *CommandOptions) open() (Options, state, []Node, error) {
	if co.Logger == nil {
		co.Logger = slog.Default()
	}
	if co.Out == nil {
		co.Out = os.Stdout
	}
	if co.Wait <= 0 {
		co.Wait = 10 * time.Second
	}
	co.Detector.defaults()
	st, err := readState(co.Dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("cluster: %s has no cluster.json: not a petrel cluster directory", co.Dir)
		}
		return Options{}, st, nil, err
	}
	if st.BasePort == 0 {
		return Options{}, st, nil, fmt.Errorf("cluster: %s records no layout (started by an older petrel?): run petrel cluster on it once", statePath(co.Dir))
	}
	o := st.options(Options{Dir: co.Dir, RootPassword: co.RootPassword, Detector: co.Detector})
	nodes, err := Layout(o, st.Primary)
	return o, st, nodes, err
}

// Failover is `petrel failover --cluster DIR`: it watches the primary for
// up to Wait; once the core confirms it dead it promotes the replica the
// core chooses, repoints the others, fences the old primary and updates
// cluster.json. A primary that is alive, or not confirmed dead, or no
// eligible replica: an error saying why, and nothing is changed.
func Failover(ctx context.Context, co CommandOptions) error {
	// The lock first: the layout read next is then the one this
	// command changes (the supervisor may have just promoted).
	lock, err := lockFailover(co.Dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	o, st, nodes, err := co.open()
	if err != nil {
		return err
	}
	c := newConns(co.RootPassword, co.Detector.QueryTimeout)
	defer c.close()
	p := primaryIndex(nodes)
	d, err := failover.New(co.Detector.Options, nodes[p].Name, members(nodes))
	if err != nil {
		return err
	}
	deadline := time.Now().Add(co.Wait)
	var dec failover.Decision
	for {
		_, answered := observe(ctx, d, c, nodes, "petrel-failover", co.Detector.QueryTimeout, time.Now)
		dec = d.Decide(time.Now())
		if dec.Verdict == failover.Alive && answered {
			// It answers this command: no need to watch longer. (Seen
			// up only by replicas, it may be partitioned from them a
			// moment before their receivers notice: keep watching.)
			return fmt.Errorf("cluster: the primary %s is alive (%s): nothing done; petrel switchover moves the primary role", nodes[p].Name, dec.Why)
		}
		if dec.Verdict == failover.Dead || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(co.Detector.Interval):
		}
	}
	if dec.Verdict != failover.Dead {
		return fmt.Errorf("cluster: the primary %s is not confirmed dead after %v (%s: %s): nothing done", nodes[p].Name, co.Wait, dec.Verdict, dec.Why)
	}
	ch := dec.Choice
	for _, n := range ch.Notes {
		fmt.Fprintf(co.Out, "note: %s\n", n)
	}
	if ch.Promote == "" {
		return fmt.Errorf("cluster: the primary %s is dead (%s) but %s: nothing done", nodes[p].Name, dec.Why, ch.Why)
	}
	to := slices.IndexFunc(nodes, func(n Node) bool { return n.Name == ch.Promote })
	start := time.Now()
	// The supervisor, if one runs, reads the new layout from cluster.json.
	if _, err := (promotion{o: o, st: st, nodes: nodes, to: to, c: c, log: co.Logger, kind: "failover", catchUp: ch.CatchUp,
		why: fmt.Sprintf("%s dead (%s); %s", nodes[p].Name, dec.Why, ch.Why)}).run(ctx); err != nil {
		return err
	}
	took := time.Since(start)
	if err := fence(ctx, c, nodes[p], co.Detector.QueryTimeout); err == nil {
		fmt.Fprintf(co.Out, "the old primary %s answered and was made read-only\n", nodes[p].Name)
	}
	fmt.Fprintf(co.Out, "failover: %s is the primary (%s), promoted in %v; %s rejoins as its replica when it restarts\n",
		ch.Promote, ch.Why, took.Round(time.Millisecond), nodes[p].Name)
	return nil
}

// Switchover is `petrel switchover --cluster DIR [--to nodeN]`: the live
// primary stops taking writes (super_read_only), the chosen replica
// catches up with everything it committed, is promoted, and the old
// primary becomes its replica. No committed transaction is lost; if the
// replica cannot catch up in time the old primary takes writes again and
// nothing changes.
func Switchover(ctx context.Context, co CommandOptions) error {
	// The lock first: the layout read next is then the one this
	// command changes (the supervisor may have just promoted).
	lock, err := lockFailover(co.Dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	o, st, nodes, err := co.open()
	if err != nil {
		return err
	}
	c := newConns(co.RootPassword, co.Detector.QueryTimeout)
	defer c.close()
	p := primaryIndex(nodes)
	pdb := c.get(nodes[p].Port)
	d, err := failover.New(co.Detector.Options, nodes[p].Name, members(nodes))
	if err != nil {
		return err
	}
	statuses, _ := observe(ctx, d, c, nodes, "petrel-switchover", co.Detector.QueryTimeout, time.Now)
	if err := pdb.PingContext(ctx); err != nil {
		return fmt.Errorf("cluster: the primary %s does not answer (%v): petrel failover replaces a dead primary", nodes[p].Name, err)
	}
	ms := members(nodes)
	if co.To != "" {
		i := slices.IndexFunc(nodes, func(n Node) bool { return n.Name == co.To })
		switch {
		case i < 0:
			return fmt.Errorf("cluster: --to %s: no such node", co.To)
		case i == p:
			return fmt.Errorf("cluster: --to %s: it is the primary already", co.To)
		case nodes[i].Role != RoleReplica:
			return fmt.Errorf("cluster: --to %s: a %s holds no data and cannot be the primary", co.To, nodes[i].Role)
		}
		ms = slices.DeleteFunc(ms, func(m failover.Member) bool { return m.Name != co.To })
	}
	ch := failover.Choose(co.Detector.Options, ms, statuses)
	if ch.Promote == "" {
		return fmt.Errorf("cluster: switchover: %s: nothing done", ch.Why)
	}
	to := slices.IndexFunc(nodes, func(n Node) bool { return n.Name == ch.Promote })
	start := time.Now()
	if err := execAll(ctx, pdb, nodes[p].Name, []string{"SET GLOBAL super_read_only = ON"}); err != nil {
		return err
	}
	// Commits already past the read-only check finish; read the set
	// until it holds still.
	var gtids string
	for i := 0; i < 50; i++ {
		var g string
		if err := pdb.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_executed").Scan(&g); err != nil {
			return fmt.Errorf("cluster: %s: %w", nodes[p].Name, err)
		}
		if g == gtids {
			break
		}
		gtids = g
		time.Sleep(20 * time.Millisecond)
	}
	next, err := promotion{o: o, st: st, nodes: nodes, to: to, c: c, log: co.Logger, kind: "switchover", waitOn: gtids,
		why: fmt.Sprintf("switchover from %s; %s", nodes[p].Name, ch.Why)}.run(ctx)
	if err != nil {
		if next == nil {
			// Nothing changed: the old primary takes writes again.
			if _, uerr := pdb.ExecContext(ctx, "SET GLOBAL super_read_only = OFF"); uerr != nil {
				err = fmt.Errorf("%w; and the old primary stays read-only: %v", err, uerr)
			}
		}
		return err
	}
	fmt.Fprintf(co.Out, "switchover: %s is the primary, %s its replica; writes were stopped for %v\n",
		ch.Promote, nodes[p].Name, time.Since(start).Round(time.Millisecond))
	return nil
}
