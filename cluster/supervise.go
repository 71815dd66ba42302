package cluster

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"petrel/failover"
)

// restartPolicy decides when a node that died is started again:
// exponential backoff from Min to Max, starting over at Min once a node
// stayed up for Stable before dying.
type restartPolicy struct {
	Min, Max, Stable time.Duration
}

var defaultRestart = restartPolicy{Min: time.Second, Max: 30 * time.Second, Stable: time.Minute}

// backoff is one node's restart history. It is a pure value: next is
// given the node's uptime before it died and returns the delay.
type backoff struct{ failures int }

func (b *backoff) next(p restartPolicy, uptime time.Duration) time.Duration {
	if uptime >= p.Stable {
		b.failures = 0
	}
	d := p.Max
	if b.failures < 20 {
		d = min(p.Min<<b.failures, p.Max)
	}
	b.failures++
	return d
}

// spawner starts child processes from one goroutine locked to its OS
// thread for the supervisor's whole life: the kernel's parent-death
// signal fires when the forking thread exits, so it must be a thread that
// lives as long as the supervisor. Its goroutine ends (and the thread
// with it) only at close, once every child is stopped.
type spawner struct{ reqs chan func() }

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan func())}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		for f := range s.reqs {
			f()
		}
	}()
	return s
}

func (s *spawner) do(f func()) {
	done := make(chan struct{})
	s.reqs <- func() { f(); close(done) }
	<-done
}

func (s *spawner) close() { close(s.reqs) }

// supervisor owns the nodes' processes: it starts them, restarts one that
// dies (with backoff, logged and counted) while the others keep serving,
// and stops them all, replicas first, within the stop timeout.
type supervisor struct {
	o        Options
	nodes    []Node // the current layout (a failover changes it)
	sp       *spawner
	procs    []*proc // by node index; nil while waiting to restart
	died     chan *proc
	backoffs []backoff
	restarts int

	st        state
	stMod     time.Time          // cluster.json's mtime when last read
	c         *conns             // connections of the detector and the wiring
	det       *failover.Detector // nil until the next round (rebuilt after a change)
	lastWhy   string             // the last verdict logged
	wiring    sync.WaitGroup     // afterStart goroutines
	failovers int
	healed    map[int]time.Time // the last restart of each node's replication (heal.go)
	rounds    int
}

// proc is a running node.
type proc struct {
	index   int
	node    Node
	cmd     *exec.Cmd
	logPath string
	started time.Time
	done    chan struct{}
	exited  time.Time
	err     error
}

func newSupervisor(o Options, nodes []Node) *supervisor {
	o.Detector.defaults()
	return &supervisor{o: o, nodes: nodes, sp: newSpawner(), procs: make([]*proc, len(nodes)),
		died: make(chan *proc, 2*len(nodes)), backoffs: make([]backoff, len(nodes)),
		c: newConns(o.RootPassword, o.Detector.QueryTimeout)}
}

// primaryHold is how long, with automatic failover, a primary that died
// waits before it is restarted: time for the detector to confirm it dead
// and promote a replica (it then comes back as that replica's replica);
// if none is eligible it comes back as the primary.
const primaryHold = 5 * time.Second

// lockDir takes DIR/cluster.lock, so a second supervisor on the same
// directory refuses at once. The kernel drops the lock when this process
// dies, however it dies.
func lockDir(dir string) (*os.File, error) {
	p := filepath.Join(dir, "cluster.lock")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o640)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		b, _ := os.ReadFile(p)
		f.Close()
		holder := strings.TrimSpace(string(b))
		if holder == "" {
			holder = "?"
		}
		return nil, fmt.Errorf("cluster: another petrel cluster (pid %s) is running on %s: stop it first", holder, dir)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// portFree fails when something already listens on a node's port (for
// example a server left from a cluster that was not stopped).
func portFree(n Node) error {
	ports := []int{n.Port}
	if n.Role == RoleProxy {
		ports = append(ports, n.Port-1) // its admin port
	}
	for _, port := range ports {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return fmt.Errorf("cluster: port %d for %s is in use (a server left running by an earlier cluster? see its log %s.log): %w", port, n.Name, filepath.Join(filepath.Dir(n.Datadir), n.Name), err)
		}
		l.Close()
	}
	return nil
}

func (s *supervisor) start(i int) (*proc, error) {
	o, n := s.o, s.nodes[i]
	cnf := filepath.Join(o.Dir, n.Name+".cnf")
	body := "[petrel]\n"
	for k, v := range n.Config {
		body += k + " = " + v + "\n"
	}
	if err := os.WriteFile(cnf, []byte(body), 0o640); err != nil {
		return nil, err
	}
	logPath := filepath.Join(o.Dir, n.Name+".log")
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o640)
	if err != nil {
		return nil, err
	}
	sub := "server"
	if n.Role == RoleRelay {
		sub = "relay"
	}
	cmd := exec.Command(o.Binary, sub, "--datadir", n.Datadir, "--port", strconv.Itoa(n.Port),
		"--server-id", strconv.Itoa(n.ServerID), "--root-password", o.RootPassword, "--config", cnf)
	if n.Role == RoleProxy {
		cmd = exec.Command(o.Binary, proxyArgs(s.nodes, n, o.RootPassword)...)
	}
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = sysProcAttr()
	s.sp.do(func() { err = cmd.Start() })
	if err != nil {
		lf.Close()
		return nil, fmt.Errorf("cluster: start %s: %w", n.Name, err)
	}
	p := &proc{index: i, node: n, cmd: cmd, logPath: logPath, started: time.Now(), done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		p.exited = time.Now()
		lf.Close()
		close(p.done)
		select {
		case s.died <- p:
		default: // only during shutdown, when nobody listens
		}
	}()
	s.procs[i] = p
	o.Logger.Info("cluster: started", "node", n.Name, "port", n.Port, "pid", cmd.Process.Pid)
	return p, nil
}

// watch keeps the nodes running until ctx ends: a node that exits is
// started again after its backoff (and wired to its source once it
// answers); the others are left alone. Every round it reads cluster.json
// (a petrel failover or switchover may have changed the primary) and,
// with AutoFailover, runs the detector.
func (s *supervisor) watch(ctx context.Context, st state) error {
	s.st = st
	if fi, err := os.Stat(statePath(s.o.Dir)); err == nil {
		s.stMod = fi.ModTime()
	}
	restart := make(chan int, len(s.nodes))
	var timers []*time.Timer
	defer func() {
		for _, t := range timers {
			t.Stop()
		}
	}()
	interval := time.Second
	if s.o.AutoFailover {
		interval = s.o.Detector.Interval
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			s.o.Logger.Info("cluster: stopping", "restarts", s.restarts, "failovers", s.failovers)
			return nil
		case p := <-s.died:
			if s.procs[p.index] != p {
				continue
			}
			s.procs[p.index] = nil
			delay := s.backoffs[p.index].next(defaultRestart, p.exited.Sub(p.started))
			if s.o.AutoFailover && p.index == primaryIndex(s.nodes) {
				// It comes back in another role (or, with no replica
				// eligible, as the primary it was): not a crash loop.
				s.backoffs[p.index] = backoff{}
				delay = primaryHold
			}
			s.restarts++
			s.o.Logger.Error("cluster: node exited; restarting it", "node", p.node.Name, "status", exitStatus(p.err),
				"uptime", p.exited.Sub(p.started).Round(time.Millisecond), "restart_in", delay, "restarts", s.restarts, "log", p.logPath)
			i := p.index
			timers = append(timers, time.AfterFunc(delay, func() { restart <- i }))
		case i := <-restart:
			if s.procs[i] != nil {
				continue
			}
			if _, err := s.start(i); err != nil {
				delay := s.backoffs[i].next(defaultRestart, 0)
				s.o.Logger.Error("cluster: restart failed", "node", s.nodes[i].Name, "error", err, "retry_in", delay)
				timers = append(timers, time.AfterFunc(delay, func() { restart <- i }))
				continue
			}
			s.afterStart(ctx, i)
		case <-tick.C:
			s.reload()
			if s.o.AutoFailover {
				s.detect(ctx)
			}
			if s.rounds++; s.rounds%max(1, int(time.Second/interval)) == 0 {
				s.heal(ctx)
			}
		}
	}
}

// afterStart wires a restarted node once it answers: a replica or relay
// to the source the layout gives it (it may have been the primary, or
// been down during a failover), the primary's semi-sync settings.
func (s *supervisor) afterStart(ctx context.Context, i int) {
	nodes, st, p := slices.Clone(s.nodes), s.st, s.procs[i]
	if nodes[i].Role == RoleProxy {
		return
	}
	s.wiring.Add(1)
	go func() {
		defer s.wiring.Done()
		actx, cancel := context.WithTimeout(ctx, s.o.StartTimeout)
		defer cancel()
		db, err := waitReady(actx, nodes[i], s.o.RootPassword, p)
		if err != nil {
			s.o.Logger.Error("cluster: restarted node not wired", "node", nodes[i].Name, "error", err)
			return
		}
		defer db.Close()
		pi := primaryIndex(nodes)
		if i == pi {
			err = execAll(actx, db, nodes[i].Name, sourceStatements(s.o))
		} else {
			err = wireNode(actx, nodes, i, db, s.c.get(nodes[pi].Port), st, s.o.RootPassword)
		}
		if err != nil {
			s.o.Logger.Error("cluster: restarted node not wired", "node", nodes[i].Name, "error", err)
			return
		}
		s.o.Logger.Info("cluster: restarted node wired", "node", nodes[i].Name, "role", nodes[i].Role)
		if nodes[i].Role == RoleRelay {
			s.returnToRelay(actx, nodes, i, db)
		}
	}()
}

// returnToRelay moves the site replicas that failed over to the primary
// while their relay was down back to it, once it holds everything each
// of them executed (MySQL's asynchronous failover does not move back by
// itself).
func (s *supervisor) returnToRelay(ctx context.Context, nodes []Node, relay int, rdb *sql.DB) {
	pdb := s.c.get(nodes[primaryIndex(nodes)].Port)
	for j, n := range nodes {
		if n.Source != relay || n.Role != RoleReplica {
			continue
		}
		db := s.c.get(n.Port)
		for ctx.Err() == nil {
			rs, err := showReplicaStatus(ctx, db)
			if err != nil || rs == nil || rs["Source_Port"] == strconv.Itoa(nodes[relay].Port) {
				break // down (it comes back to its planned source), unwired, or home
			}
			var relaySet string
			var covered int
			if err := rdb.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_executed").Scan(&relaySet); err == nil {
				pdb.QueryRowContext(ctx, "SELECT GTID_SUBSET(?, ?)", rs["Executed_Gtid_Set"], relaySet).Scan(&covered)
			}
			if covered == 1 {
				err := execAll(ctx, db, n.Name, []string{"STOP REPLICA",
					fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d", nodes[relay].Port), "START REPLICA"})
				if err != nil {
					s.o.Logger.Error("cluster: site replica not moved back to its relay", "node", nodes[j].Name, "error", err)
				} else {
					s.o.Logger.Info("cluster: site replica back on its relay", "node", nodes[j].Name, "relay", nodes[relay].Name)
				}
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// reload adopts a primary changed in cluster.json by petrel failover or
// switchover.
func (s *supervisor) reload() {
	fi, err := os.Stat(statePath(s.o.Dir))
	if err != nil || fi.ModTime().Equal(s.stMod) {
		return
	}
	s.stMod = fi.ModTime()
	st, err := readState(s.o.Dir)
	if err != nil {
		s.o.Logger.Error("cluster: cluster.json unreadable; keeping the layout", "error", err)
		return
	}
	cur := s.nodes[primaryIndex(s.nodes)].Name
	s.st = st
	if st.Primary == "" || st.Primary == cur {
		return
	}
	nodes, err := Layout(s.o, st.Primary)
	if err != nil {
		s.o.Logger.Error("cluster: cluster.json's primary not adopted", "error", err)
		return
	}
	last := Change{Kind: "?"}
	if len(st.Changes) > 0 {
		last = st.Changes[len(st.Changes)-1]
	}
	s.o.Logger.Info("cluster: adopting a new primary", "primary", st.Primary, "old", cur, "kind", last.Kind)
	s.adopt(nodes, last.Kind == "failover")
}

// adopt switches to a new layout. After a failover the old primary's
// process, if it runs (it came back, or it is alive behind a partition),
// is killed: it restarts as the new primary's replica, its unacknowledged
// tail cut (init_rpl_role=SLAVE). The proxies follow proxy-layout.json,
// which the promotion rewrote.
func (s *supervisor) adopt(nodes []Node, fenceOld bool) {
	old := primaryIndex(s.nodes)
	s.nodes = nodes
	s.det, s.lastWhy = nil, ""
	for i, p := range s.procs {
		if p == nil {
			continue
		}
		if i == old && fenceOld {
			s.o.Logger.Warn("cluster: restarting for the new layout", "node", nodes[i].Name, "role", nodes[i].Role)
			p.cmd.Process.Kill()
		}
	}
}

// detect runs one round of the failure detector and, once the primary is
// confirmed dead, promotes the replica the core chooses.
func (s *supervisor) detect(ctx context.Context) {
	p := primaryIndex(s.nodes)
	if s.det == nil {
		d, err := failover.New(s.o.Detector.Options, s.nodes[p].Name, members(s.nodes))
		if err != nil {
			s.o.Logger.Error("cluster: failure detector", "error", err)
			return
		}
		s.det = d
	}
	observe(ctx, s.det, s.c, s.nodes, "supervisor", s.o.Detector.QueryTimeout, time.Now)
	dec := s.det.Decide(time.Now())
	// Logged when the verdict (or the choice) changes, not every round.
	key, why := dec.Verdict.String(), dec.Why
	if dec.Choice != nil {
		key += dec.Choice.Why
		why += "; " + dec.Choice.Why
	}
	if dec.Verdict != failover.Alive && key != s.lastWhy {
		s.o.Logger.Warn("cluster: primary "+dec.Verdict.String(), "primary", s.nodes[p].Name, "why", why)
	}
	s.lastWhy = key
	if dec.Verdict != failover.Dead || dec.Choice.Promote == "" {
		return
	}
	lock, err := lockFailover(s.o.Dir)
	if err != nil {
		s.o.Logger.Warn("cluster: failover deferred", "error", err)
		return
	}
	defer lock.Close()
	if s.reload(); primaryIndex(s.nodes) != p {
		return // petrel failover or switchover changed the primary meanwhile
	}
	for _, n := range dec.Choice.Notes {
		s.o.Logger.Warn("cluster: failover note", "note", n)
	}
	start := time.Now()
	to := slices.IndexFunc(s.nodes, func(n Node) bool { return n.Name == dec.Choice.Promote })
	next, err := promotion{o: s.o, st: s.st, nodes: s.nodes, to: to, c: s.c, log: s.o.Logger, kind: "failover", catchUp: dec.Choice.CatchUp,
		why: fmt.Sprintf("%s dead (%s); %s", s.nodes[p].Name, dec.Why, dec.Choice.Why)}.run(ctx)
	if next == nil {
		s.o.Logger.Error("cluster: failover failed; the detector starts over", "error", err)
		s.det = nil
		return
	}
	if err != nil {
		s.o.Logger.Error("cluster: failover", "error", err)
	}
	s.failovers++
	if st, err := readState(s.o.Dir); err == nil {
		s.st = st
	}
	if fi, err := os.Stat(statePath(s.o.Dir)); err == nil {
		s.stMod = fi.ModTime()
	}
	s.o.Logger.Warn("cluster: failover done", "primary", next[to].Name, "old", s.nodes[p].Name, "promoted_in", time.Since(start).Round(time.Millisecond), "failovers", s.failovers)
	s.adopt(next, true)
}

// exitStatus says how a node ended ("signal: killed", "exit status 1").
func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// stopAll stops every node: SIGTERM to the replicas, then to the relays,
// then to the primary, each group given a third of the stop timeout; what
// is still running then, or at once when force closes, gets SIGKILL.
// Then the spawner ends.
func (s *supervisor) stopAll(force <-chan struct{}) {
	var proxies, replicas, relays, primary []*proc
	for i, p := range s.procs {
		switch n := s.nodes[i]; {
		case p == nil:
		case n.Role == RoleProxy:
			proxies = append(proxies, p)
		case n.Role == RolePrimary:
			primary = append(primary, p)
		case n.Role == RoleRelay:
			relays = append(relays, p)
		default:
			replicas = append(replicas, p)
		}
	}
	for _, group := range [][]*proc{proxies, replicas, relays, primary} {
		stopGroup(s.o.Logger, group, s.o.StopTimeout/3, force)
	}
	s.wiring.Wait() // their nodes are gone: each ends at once
	s.c.close()
	s.sp.close()
}

func stopGroup(log *slog.Logger, ps []*proc, within time.Duration, force <-chan struct{}) {
	for _, p := range ps {
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for _, p := range ps {
		select {
		case <-p.done:
			continue
		case <-deadline.C:
			log.Warn("cluster: nodes did not stop in time; killing them", "within", within)
		case <-force:
			log.Warn("cluster: second signal; killing the nodes")
		}
		for _, q := range ps {
			q.cmd.Process.Kill()
		}
		for _, q := range ps {
			<-q.done
		}
		return
	}
}
