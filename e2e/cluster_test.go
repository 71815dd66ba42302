package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// freePortRun finds n consecutive free loopback ports.
func freePortRun(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		// Below the ephemeral range (32768-): an outgoing connection's
		// local port cannot take a node's between this check and its bind.
		base := 12000 + rand.IntN(20000-n)
		ok := true
		for i := 0; i < n && ok; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no run of free ports")
	return 0
}

// syncBuffer is an io.Writer safe to read while a process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// clusterRun is a running `petrel cluster`.
type clusterRun struct {
	cmd     *exec.Cmd
	details string
	stderr  *syncBuffer // the supervisor's log
	exited  chan struct{}
	err     error
}

// startCluster runs `petrel cluster` and waits for its connection details.
func startCluster(t *testing.T, ctx context.Context, bin, dir string, base, replicas int) *clusterRun {
	t.Helper()
	return startClusterArgs(t, ctx, bin, dir, base, replicas+1, "--replicas", fmt.Sprint(replicas))
}

// startClusterArgs runs `petrel cluster` with args and waits for the
// connection details of its nodes.
func startClusterArgs(t *testing.T, ctx context.Context, bin, dir string, base, nodes int, args ...string) *clusterRun {
	t.Helper()
	c := &clusterRun{stderr: &syncBuffer{}, exited: make(chan struct{})}
	c.cmd = exec.Command(bin, append([]string{"cluster", "--datadir", dir, "--base-port", fmt.Sprint(base), "--root-password", rootPassword}, args...)...)
	out, _ := c.cmd.StdoutPipe()
	c.cmd.Stderr = c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
		c.err = c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-c.exited:
		default:
			c.cmd.Process.Signal(syscall.SIGINT)
			<-c.exited
		}
	})
	var got []string
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("petrel cluster exited before it was ready: %s\n%s", strings.Join(got, "\n"), c.stderr)
			}
			got = append(got, l)
			if len(got) == nodes+1 {
				c.details = strings.Join(got, "\n")
				return c
			}
		case <-ctx.Done():
			t.Fatalf("petrel cluster not ready: %s\n%s", strings.Join(got, "\n"), c.stderr)
		}
	}
}

// wait waits for the supervisor to exit.
func (c *clusterRun) wait(t *testing.T, within time.Duration) error {
	t.Helper()
	select {
	case <-c.exited:
		return c.err
	case <-time.After(within):
		t.Fatalf("petrel cluster still running after %v:\n%s", within, c.stderr)
		return nil
	}
}

var startedPID = regexp.MustCompile(`msg="cluster: started" node=(node\d+) port=\d+ pid=(\d+)`)

// pid is the newest process id the supervisor logged for node.
func (c *clusterRun) pid(t *testing.T, node string) int {
	t.Helper()
	pid := 0
	for _, m := range startedPID.FindAllStringSubmatch(c.stderr.String(), -1) {
		if m[1] == node {
			pid, _ = strconv.Atoi(m[2])
		}
	}
	if pid == 0 {
		t.Fatalf("no pid logged for %s:\n%s", node, c.stderr)
	}
	return pid
}

// portClosed waits until nothing accepts connections on port.
func portClosed(t *testing.T, port int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err != nil {
			return
		}
		c.Close()
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("port %d still accepts connections after %v", port, within)
}

// TestClusterCommand: `petrel cluster` starts a primary and replicas with
// replication wired and replicas read-only; Ctrl-C stops it cleanly; a
// restart on the same directory keeps the data and keeps replicating.
func TestClusterCommand(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 3)
	open := func(port int) querier {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", rootPassword, "tcp", fmt.Sprintf("127.0.0.1:%d", port)
		cfg.Logger = &mysql.NopLogger{}
		return openConfig(t, cfg)
	}
	c := startCluster(t, ctx, bin, dir, base, 2)
	for i := 0; i < 3; i++ {
		if !strings.Contains(c.details, fmt.Sprintf("-P %d", base+i)) {
			t.Errorf("connection details lack port %d:\n%s", base+i, c.details)
		}
	}
	p, r1, r2 := open(base), open(base+1), open(base+2)
	mustExec(t, ctx, p, "CREATE DATABASE c", "CREATE TABLE c.t (id INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO c.t VALUES (1, 'one'), (2, 'two')")
	waitRows := func(q querier, want int64) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			var n int64
			if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM c.t").Scan(&n); err == nil && n == want {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("replica did not reach %d rows in c.t", want)
	}
	waitRows(r1, 2)
	waitRows(r2, 2)
	_, err = r1.ExecContext(ctx, "INSERT INTO c.t VALUES (3, 'no')")
	wantErrNo(t, "write on a cluster replica", err, erOptionPreventsStmt)

	c.cmd.Process.Signal(syscall.SIGINT)
	if err := c.wait(t, time.Minute); err != nil {
		t.Fatalf("petrel cluster after Ctrl-C: %v", err)
	}
	c = startCluster(t, ctx, bin, dir, base, 2)
	p, r1, r2 = open(base), open(base+1), open(base+2)
	mustExec(t, ctx, p, "INSERT INTO c.t VALUES (3, 'three')")
	waitRows(r1, 3)
	waitRows(r2, 3)
	sameTable(t, ctx, p, r2, "c.t", "id")
	c.cmd.Process.Signal(syscall.SIGINT)
	if err := c.wait(t, time.Minute); err != nil {
		t.Fatalf("petrel cluster after the second Ctrl-C: %v", err)
	}
}

// TestClusterSupervisor: `petrel cluster` behaves as a supervisor. A
// replica killed with -9 is restarted (logged, counted) while the primary
// keeps taking writes, and catches up; a second supervisor on the same
// directory is refused at once; SIGHUP (a closed terminal) stops every
// node; a supervisor killed with -9 takes its nodes with it, and a new one
// starts on the same directory.
func TestClusterSupervisor(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 2)
	open := func(port int) querier {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", rootPassword, "tcp", fmt.Sprintf("127.0.0.1:%d", port)
		cfg.Logger = &mysql.NopLogger{}
		cfg.Timeout = 5 * time.Second
		return openConfig(t, cfg)
	}
	c := startCluster(t, ctx, bin, dir, base, 1)
	p, r := open(base), open(base+1)
	mustExec(t, ctx, p, "CREATE DATABASE sv", "CREATE TABLE sv.t (id INT PRIMARY KEY)")

	// kill -9 the replica under writes: every write succeeds, the replica
	// is restarted and catches up.
	old := c.pid(t, "node2")
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 100; i++ {
		if _, err := p.ExecContext(ctx, "INSERT INTO sv.t VALUES (?)", i); err != nil {
			t.Fatalf("write %d on the primary while the replica was down: %v", i, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	deadline := time.Now().Add(60 * time.Second)
	for c.pid(t, "node2") == old && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if c.pid(t, "node2") == old {
		t.Fatalf("the killed replica was not restarted:\n%s", c.stderr)
	}
	log := c.stderr.String()
	if !strings.Contains(log, `msg="cluster: node exited; restarting it" node=node2 status="signal: killed"`) || !strings.Contains(log, "restarts=1") {
		t.Errorf("the restart is not logged and counted:\n%s", log)
	}
	waitCaughtUp(t, ctx, p.(*sql.DB), r.(*sql.DB), 60*time.Second)
	if n := queryInt(t, ctx, r, "SELECT COUNT(*) FROM sv.t"); n != 100 {
		t.Fatalf("restarted replica has %d of 100 rows", n)
	}

	// A second supervisor on the same directory is refused at once.
	start := time.Now()
	out, err := exec.CommandContext(ctx, bin, "cluster", "--datadir", dir, "--base-port", fmt.Sprint(base), "--replicas", "1", "--root-password", rootPassword).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another petrel cluster (pid ") || time.Since(start) > 10*time.Second {
		t.Errorf("second supervisor: err=%v after %v:\n%s", err, time.Since(start), out)
	}
	if strings.Contains(string(out), "mariadb -h") {
		t.Errorf("the refused supervisor printed connection details:\n%s", out)
	}
	if n := queryInt(t, ctx, p, "SELECT COUNT(*) FROM sv.t"); n != 100 {
		t.Fatalf("after the refused supervisor the primary has %d rows", n)
	}

	// SIGHUP stops the nodes and the supervisor.
	c.cmd.Process.Signal(syscall.SIGHUP)
	if err := c.wait(t, time.Minute); err != nil {
		t.Errorf("petrel cluster after SIGHUP: %v\n%s", err, c.stderr)
	}
	portClosed(t, base, 10*time.Second)
	portClosed(t, base+1, 10*time.Second)

	// kill -9 of the supervisor: its nodes stop by themselves, and a new
	// supervisor starts on the directory with the data.
	c = startCluster(t, ctx, bin, dir, base, 1)
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.wait(t, 10*time.Second)
	portClosed(t, base, 30*time.Second)
	portClosed(t, base+1, 30*time.Second)
	c = startCluster(t, ctx, bin, dir, base, 1)
	p = open(base)
	if n := queryInt(t, ctx, p, "SELECT COUNT(*) FROM sv.t"); n != 100 {
		t.Fatalf("after the supervisor's kill -9 and a restart the primary has %d rows", n)
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	if err := c.wait(t, time.Minute); err != nil {
		t.Errorf("petrel cluster after SIGTERM: %v", err)
	}

	// A node's port held by another process (say, a server an older
	// cluster left behind): refused before anything starts.
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+1))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	out, err = exec.CommandContext(ctx, bin, "cluster", "--datadir", dir, "--base-port", fmt.Sprint(base), "--replicas", "1", "--root-password", rootPassword).CombinedOutput()
	if err == nil || !strings.Contains(string(out), fmt.Sprintf("port %d for node2 is in use", base+1)) || strings.Contains(string(out), "mariadb -h") {
		t.Errorf("cluster with a node's port taken: err=%v\n%s", err, out)
	}
}

// TestClusterSites: `petrel cluster --sites 2 --replicas-per-site 1` lays
// out the seed's topology: a primary, a relay per site fed by it, and the
// site's replica fed by its relay with the primary as its failover
// source. Rows written on the primary reach every replica through the
// relays (which hold no rows themselves). kill -9 of a site's relay under
// writes: the supervisor restarts it, the site's replica moves to the
// primary (counted) and keeps replicating; at the end every replica's rows
// and gtid_executed equal the primary's, every acknowledged row there.
func TestClusterSites(t *testing.T) {
	kills := 1
	if v, err := strconv.Atoi(os.Getenv("PETREL_SITE_KILLS")); err == nil && v > 0 {
		kills = v
	}
	ctx := testContext(t, 3*time.Minute+time.Duration(kills)*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 5)
	open := func(port int) querier {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", rootPassword, "tcp", fmt.Sprintf("127.0.0.1:%d", port)
		cfg.Logger = &mysql.NopLogger{}
		cfg.Timeout = 5 * time.Second
		return openConfig(t, cfg)
	}
	c := startClusterArgs(t, ctx, bin, dir, base, 5, "--sites", "2", "--replicas-per-site", "1")
	// node1 primary; node2 site 1's relay, node3 its replica; node4 site
	// 2's relay, node5 its replica.
	for _, want := range []string{"node2  site 1 relay (replicates from node1)", "node3  site 1 replica (super_read_only; from node2, fails over to node1)",
		"node4  site 2 relay (replicates from node1)", "node5  site 2 replica (super_read_only; from node4, fails over to node1)"} {
		if !strings.Contains(c.details, want) {
			t.Errorf("connection details lack %q:\n%s", want, c.details)
		}
	}
	p := open(base)
	relays := map[int]querier{1: open(base + 1), 2: open(base + 3)}
	replicas := map[int]querier{1: open(base + 2), 2: open(base + 4)}
	for site, r := range replicas {
		st := replicaStatus(t, ctx, r, "SHOW REPLICA STATUS")
		if st["Source_Port"] != fmt.Sprint(base+2*site-1) {
			t.Errorf("site %d replica reads from port %s, want its relay's %d", site, st["Source_Port"], base+2*site-1)
		}
		if got := queryString(t, ctx, r, "SELECT GROUP_CONCAT(CONCAT(PORT, ':', WEIGHT) ORDER BY WEIGHT DESC) FROM performance_schema.replication_asynchronous_connection_failover"); got != fmt.Sprintf("%d:70,%d:50", base+2*site-1, base) {
			t.Errorf("site %d replica's failover sources: %s", site, got)
		}
	}
	for site, r := range relays {
		if st := replicaStatus(t, ctx, r, "SHOW REPLICA STATUS"); st["Source_Port"] != fmt.Sprint(base) {
			t.Errorf("site %d relay reads from port %s, want the primary's %d", site, st["Source_Port"], base)
		}
	}
	mustExec(t, ctx, p, "CREATE DATABASE st", "CREATE TABLE st.t (id INT PRIMARY KEY)")
	insert := func(from, to int) {
		for i := from; i < to; i++ {
			if _, err := p.ExecContext(ctx, "INSERT INTO st.t VALUES (?)", i); err != nil {
				t.Fatalf("insert %d on the primary: %v", i, err)
			}
		}
	}
	waitReach := func(r querier, within time.Duration) {
		t.Helper()
		want := queryString(t, ctx, p, "SELECT @@GLOBAL.gtid_executed")
		deadline := time.Now().Add(within)
		for {
			var got string // a restarted node refuses connections for a moment
			if err := r.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_executed").Scan(&got); err == nil && queryInt(t, ctx, p, "SELECT GTID_SUBSET(?, ?)", want, got) == 1 {
				break
			}
			if time.Now().After(deadline) {
				st := replicaStatus(t, ctx, r, "SHOW REPLICA STATUS")
				t.Fatalf("a node did not reach the primary's gtid_executed %s within %v: it has %s; source port %s, IO %s (%s %s), SQL %s (%s %s)",
					want, within, got, st["Source_Port"], st["Replica_IO_Running"], st["Last_IO_Errno"], st["Last_IO_Error"],
					st["Replica_SQL_Running"], st["Last_SQL_Errno"], st["Last_SQL_Error"])
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	insert(0, 100)
	for _, r := range replicas {
		waitReach(r, 30*time.Second)
		if n := queryInt(t, ctx, r, "SELECT COUNT(*) FROM st.t"); n != 100 {
			t.Fatalf("a site replica has %d of 100 rows", n)
		}
	}
	for _, r := range relays {
		if n := queryInt(t, ctx, r, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'st'"); n != 0 {
			t.Errorf("a relay holds %d tables of st: relays apply nothing", n)
		}
	}

	// A site loses its relay under a write load, kills rounds times
	// (PETREL_SITE_KILLS, default 1; scripts/site-failover-campaign.sh
	// runs more), alternating sites: the site's replica moves to the
	// primary; the supervisor restarts the relay and moves the replica
	// back to it (MySQL's failover does not move back by itself).
	var acked atomic.Int64
	acked.Store(100)
	stop := make(chan struct{})
	loadDone := make(chan error, 1)
	go func() {
		for i := 100; ; i++ {
			select {
			case <-stop:
				loadDone <- nil
				return
			default:
			}
			if _, err := p.ExecContext(ctx, "INSERT INTO st.t VALUES (?)", i); err != nil {
				loadDone <- fmt.Errorf("insert %d on the primary: %w", i, err)
				return
			}
			acked.Add(1)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var switches []time.Duration
	for k := 0; k < kills; k++ {
		site := k%2 + 1
		relayNode, relayPort := fmt.Sprintf("node%d", 2*site), base+2*site-1
		old := c.pid(t, relayNode)
		if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		deadline := time.Now().Add(30 * time.Second)
		for replicaStatus(t, ctx, replicas[site], "SHOW REPLICA STATUS")["Source_Port"] != fmt.Sprint(base) {
			if time.Now().After(deadline) {
				t.Fatalf("kill %d: site %d's replica did not move to the primary after its relay's kill -9", k+1, site)
			}
			time.Sleep(20 * time.Millisecond)
		}
		switches = append(switches, time.Since(killed))
		deadline = time.Now().Add(60 * time.Second)
		for c.pid(t, relayNode) == old && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if c.pid(t, relayNode) == old {
			t.Fatalf("the killed relay was not restarted:\n%s", c.stderr)
		}
		relays[site] = open(relayPort)
		waitReach(relays[site], 60*time.Second)
		// The supervisor moves the replica back to its relay once the
		// relay holds what it executed.
		deadline = time.Now().Add(60 * time.Second)
		for replicaStatus(t, ctx, replicas[site], "SHOW REPLICA STATUS")["Source_Port"] != fmt.Sprint(relayPort) {
			if time.Now().After(deadline) {
				t.Fatalf("kill %d: site %d's replica did not return to its restarted relay:\n%s", k+1, site, tail(c.stderr.String(), 3000))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	close(stop)
	if err := <-loadDone; err != nil {
		t.Fatal(err)
	}
	sort.Slice(switches, func(i, j int) bool { return switches[i] < switches[j] })
	t.Logf("%d relay kills: a site's replica on the primary after p50 %v, p99 %v, max %v", kills,
		switches[len(switches)/2].Round(time.Millisecond), switches[(len(switches)*99+99)/100-1].Round(time.Millisecond), switches[len(switches)-1].Round(time.Millisecond))
	if n := globalStatus(t, ctx, replicas[1], "Petrel_replica_source_switches") + globalStatus(t, ctx, replicas[2], "Petrel_replica_source_switches"); n != int64(kills) {
		t.Errorf("Petrel_replica_source_switches = %d over both sites, want %d", n, kills)
	}
	for _, r := range []querier{replicas[1], replicas[2], relays[1], relays[2]} {
		waitReach(r, 60*time.Second)
	}
	for site, r := range replicas {
		if n := queryInt(t, ctx, r, "SELECT COUNT(*) FROM st.t"); n != acked.Load() {
			t.Fatalf("site %d replica has %d of %d acknowledged rows", site, n, acked.Load())
		}
		sameTable(t, ctx, p, r, "st.t", "id")
	}
	c.cmd.Process.Signal(syscall.SIGINT)
	if err := c.wait(t, time.Minute); err != nil {
		t.Errorf("petrel cluster after Ctrl-C: %v", err)
	}
	for i := 0; i < 5; i++ {
		portClosed(t, base+i, 10*time.Second)
	}
}

// TestClusterProxy: `petrel cluster --proxy` runs a proxy in front of its
// primary and replicas: writes through it land on the primary, reads are
// served by the replicas, and Ctrl-C stops it with the nodes.
func TestClusterProxy(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base := freePortRun(t, 5) // 3 nodes, the admin port, the proxy
	c := startClusterArgs(t, ctx, bin, t.TempDir(), base, 4, "--replicas", "2", "--proxy", "--proxy-port", fmt.Sprint(base+4))
	if !strings.Contains(c.details, fmt.Sprintf("-P %d", base+4)) || !strings.Contains(c.details, fmt.Sprintf("admin port %d", base+3)) {
		t.Fatalf("connection details lack the proxy:\n%s", c.details)
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", rootPassword, "tcp", fmt.Sprintf("127.0.0.1:%d", base+4)
	cfg.Logger = &mysql.NopLogger{}
	via := openConfig(t, cfg)
	mustExec(t, ctx, via, "CREATE DATABASE c", "CREATE TABLE c.t (id INT PRIMARY KEY)", "INSERT INTO c.t VALUES (1), (2)")
	deadline := time.Now().Add(20 * time.Second)
	var ids map[int64]int
	for time.Now().Before(deadline) {
		// Ten sessions of their own, all open at once (a session's
		// reads stay on one replica; the cluster's proxy packs eight
		// sessions onto a replica before it uses the next).
		ids = map[int64]int{}
		var conns []*sql.Conn
		for range 10 {
			c, err := via.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		for _, c := range conns {
			var id, n int64
			if err := c.QueryRowContext(ctx, "SELECT @@server_id, (SELECT COUNT(*) FROM c.t)").Scan(&id, &n); err == nil && n == 2 {
				ids[id]++
			}
		}
		for _, c := range conns {
			c.Close()
		}
		if ids[2] > 0 && ids[3] > 0 && ids[1] == 0 && ids[2]+ids[3] == 10 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if ids[2] == 0 || ids[3] == 0 || ids[1] != 0 {
		t.Fatalf("reads through the cluster's proxy ran on %v: want both replicas only", ids)
	}
	c.cmd.Process.Signal(syscall.SIGINT)
	if err := c.wait(t, time.Minute); err != nil {
		t.Fatalf("petrel cluster after Ctrl-C: %v", err)
	}
	portClosed(t, base+4, 5*time.Second)
}
