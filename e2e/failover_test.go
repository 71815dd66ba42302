package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// clusterNode opens a root pool to a cluster node with short timeouts.
func clusterNode(t *testing.T, port int) *sql.DB {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", rootPassword, "tcp", fmt.Sprintf("127.0.0.1:%d", port)
	cfg.Logger = &mysql.NopLogger{}
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = time.Second, 10*time.Second, 5*time.Second
	return openConfig(t, cfg)
}

// clusterPrimary reads the primary's name from cluster.json ("" = node1).
func clusterPrimary(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cluster.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Primary string `json:"primary"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("cluster.json: %v\n%s", err, b)
	}
	if st.Primary == "" {
		return "node1"
	}
	return st.Primary
}

// followLoad runs writers inserting fresh ids into fo.t on whichever node
// takes them: on an error a writer tries the next node. It keeps the ids
// the server acknowledged.
type followLoad struct {
	wg    sync.WaitGroup
	stop  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	acked map[int64]bool
	errs  atomic.Int64
}

func startFollowLoad(ctx context.Context, dbs []*sql.DB, writers int) *followLoad {
	l := &followLoad{stop: make(chan struct{}), acked: map[int64]bool{}}
	for w := 0; w < writers; w++ {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			at := 0
			for i := int64(0); i < 10_000_000; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				if ctx.Err() != nil {
					return
				}
				id := int64(w)*100_000_000 + i
				qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				_, err := dbs[at].ExecContext(qctx, "INSERT INTO fo.t (id, w) VALUES (?, ?)", id, w)
				cancel()
				if err != nil {
					l.errs.Add(1)
					at = (at + 1) % len(dbs)
					time.Sleep(10 * time.Millisecond)
					continue
				}
				l.mu.Lock()
				l.acked[id] = true
				l.mu.Unlock()
			}
		}()
	}
	return l
}

func (l *followLoad) finish() map[int64]bool {
	l.once.Do(func() { close(l.stop) })
	l.wg.Wait()
	return l.acked
}

// percentile of sorted durations (nearest rank).
func percentile(d []time.Duration, p int) time.Duration {
	return d[(len(d)*p+99)/100-1]
}

// TestClusterAutoFailover: `petrel cluster --replicas 2 --auto-failover`
// (semi-sync strict) under a write load; kill -9 of the primary, kills
// times (PETREL_FAILOVER_KILLS, default 1; bench/failover.sh runs more).
// Each time: a replica takes writes within a few seconds (measured from
// the kill to the first write a replica accepts, logged), cluster.json
// names it, and the killed node comes back as its replica. At the end no
// acknowledged row is missing, every node has the same rows and GTIDs,
// exactly one node takes writes, the new primary has the application's
// account and the same semi-sync settings, and `petrel cluster`
// restarted on the directory resumes the new topology.
func TestClusterAutoFailover(t *testing.T) {
	kills := 1
	if v, err := strconv.Atoi(os.Getenv("PETREL_FAILOVER_KILLS")); err == nil && v > 0 {
		kills = v
	}
	ctx := testContext(t, 2*time.Minute+time.Duration(kills)*30*time.Second)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 3)
	args := []string{"--replicas", "2", "--auto-failover"}
	c := startClusterArgs(t, ctx, bin, dir, base, 3, args...)
	if !strings.Contains(c.details, "semi-sync (each commit waits for 1 replica's acknowledgement, no timeout: strict), automatic failover") {
		t.Errorf("banner:\n%s", c.details)
	}
	dbs := []*sql.DB{clusterNode(t, base), clusterNode(t, base+1), clusterNode(t, base+2)}
	mustExec(t, ctx, dbs[0], "CREATE DATABASE fo", "CREATE TABLE fo.t (id BIGINT PRIMARY KEY, w INT)", "CREATE TABLE fo.probe (id BIGINT PRIMARY KEY)",
		"CREATE USER 'app'@'%' IDENTIFIED BY 'app-pw'", "GRANT ALL ON fo.* TO 'app'@'%'")
	if n := globalStatus(t, ctx, dbs[0], "Rpl_semi_sync_source_clients"); n != 2 {
		t.Errorf("Rpl_semi_sync_source_clients = %d, want 2", n)
	}
	load := startFollowLoad(ctx, dbs, 4)
	defer load.finish()
	time.Sleep(500 * time.Millisecond)

	primary := 0
	var times []time.Duration
	probe := int64(0)
	for k := 0; k < kills; k++ {
		name := fmt.Sprintf("node%d", primary+1)
		if got := clusterPrimary(t, dir); got != name {
			t.Fatalf("kill %d: cluster.json names %s the primary, want %s", k+1, got, name)
		}
		if err := syscall.Kill(c.pid(t, name), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		next := -1
		for next < 0 {
			if time.Since(killed) > 30*time.Second {
				t.Fatalf("kill %d: no node took a write within 30s of %s's kill:\n%s", k+1, name, tail(c.stderr.String(), 3000))
			}
			for i, db := range dbs {
				if i == primary {
					continue
				}
				probe++
				qctx, cancel := context.WithTimeout(ctx, time.Second)
				_, err := db.ExecContext(qctx, "INSERT INTO fo.probe VALUES (?)", probe)
				cancel()
				if err == nil {
					next = i
					break
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		took := time.Since(killed)
		times = append(times, took)
		t.Logf("kill %d: %s killed, node%d writable after %v", k+1, name, next+1, took.Round(time.Millisecond))
		deadline := time.Now().Add(5 * time.Second)
		for clusterPrimary(t, dir) != fmt.Sprintf("node%d", next+1) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if got := clusterPrimary(t, dir); got != fmt.Sprintf("node%d", next+1) {
			t.Fatalf("kill %d: cluster.json names %s, want node%d", k+1, got, next+1)
		}
		// The killed node comes back as the new primary's replica.
		deadline = time.Now().Add(30 * time.Second)
		for {
			var st map[string]string
			if rows, err := dbs[primary].QueryContext(ctx, "SHOW REPLICA STATUS"); err == nil {
				rows.Close()
				st = replicaStatus(t, ctx, dbs[primary], "SHOW REPLICA STATUS")
			}
			if st["Source_Port"] == strconv.Itoa(base+next) && st["Replica_IO_Running"] == "Yes" && st["Replica_SQL_Running"] == "Yes" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("kill %d: %s did not rejoin as node%d's replica within 30s (status %v):\n%s", k+1, name, next+1, st, tail(c.stderr.String(), 3000))
			}
			time.Sleep(100 * time.Millisecond)
		}
		primary = next
		time.Sleep(300 * time.Millisecond) // writes on the new primary before the next kill
	}
	acked := load.finish()

	p := dbs[primary]
	for i, db := range dbs {
		if i != primary {
			waitCaughtUp(t, ctx, p, db, 30*time.Second)
		}
	}
	// The new primary serves as the old one did: the application's
	// account, semi-sync on and strict.
	for v, want := range map[string]int64{"rpl_semi_sync_source_enabled": 1, "rpl_semi_sync_source_strict": 1, "rpl_semi_sync_source_wait_for_replica_count": 1} {
		if got := queryInt(t, ctx, p, "SELECT @@GLOBAL."+v); got != want {
			t.Errorf("new primary node%d: %s = %d, want %d", primary+1, v, got, want)
		}
	}
	if n := globalStatus(t, ctx, p, "Rpl_semi_sync_source_clients"); n != 2 {
		t.Errorf("new primary node%d: Rpl_semi_sync_source_clients = %d, want 2 (the other replica and the old primary)", primary+1, n)
	}
	acfg := mysql.NewConfig()
	acfg.User, acfg.Passwd, acfg.Net, acfg.Addr = "app", "app-pw", "tcp", fmt.Sprintf("127.0.0.1:%d", base+primary)
	acfg.Logger = &mysql.NopLogger{}
	mustExec(t, ctx, openConfig(t, acfg), "INSERT INTO fo.probe VALUES (-3)")
	present := map[int64]bool{}
	rows, err := p.QueryContext(ctx, "SELECT id FROM fo.t")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		present[id] = true
	}
	rows.Close()
	missing := 0
	for id := range acked {
		if !present[id] {
			missing++
		}
	}
	if missing > 0 || len(acked) == 0 {
		t.Fatalf("%d of %d acknowledged rows missing on the new primary", missing, len(acked))
	}
	writable := 0
	for i, db := range dbs {
		sameTable(t, ctx, p, db, "fo.t", "id")
		sameTable(t, ctx, p, db, "fo.probe", "id")
		if queryInt(t, ctx, db, "SELECT @@GLOBAL.super_read_only") == 0 {
			writable++
			if i != primary {
				t.Errorf("node%d is writable but node%d is the primary", i+1, primary+1)
			}
		}
	}
	if writable != 1 {
		t.Errorf("%d writable nodes, want 1", writable)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	t.Logf("%d primary kills under %d writers (semi-sync strict): new primary writable after p50 %v, p99 %v, max %v; %d acknowledged rows, 0 missing, replicas identical",
		kills, 4, percentile(times, 50).Round(time.Millisecond), percentile(times, 99).Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond), len(acked))
	t.Logf("FAILOVER_RESULT kills=%d p50_ms=%d p99_ms=%d max_ms=%d acked=%d missing=%d\n", kills,
		percentile(times, 50).Milliseconds(), percentile(times, 99).Milliseconds(), times[len(times)-1].Milliseconds(), len(acked), missing)

	// Restarted on the directory, the cluster resumes the new topology.
	c.cmd.Process.Signal(syscall.SIGINT)
	if err := c.wait(t, time.Minute); err != nil {
		t.Fatalf("petrel cluster after Ctrl-C: %v", err)
	}
	for i := 0; i < 3; i++ {
		portClosed(t, base+i, 10*time.Second)
	}
	c = startClusterArgs(t, ctx, bin, dir, base, 3, args...)
	pname := fmt.Sprintf("node%d", primary+1)
	if !strings.Contains(c.details, pname+"  primary") {
		t.Fatalf("restarted cluster does not show %s as the primary:\n%s", pname, c.details)
	}
	mustExec(t, ctx, dbs[primary], "INSERT INTO fo.probe VALUES (-1)")
	for i, db := range dbs {
		if i == primary {
			continue
		}
		waitCaughtUp(t, ctx, dbs[primary], db, 30*time.Second)
		if st := replicaStatus(t, ctx, db, "SHOW REPLICA STATUS"); st["Source_Port"] != strconv.Itoa(base+primary) {
			t.Errorf("after the restart node%d replicates from port %s, want %d", i+1, st["Source_Port"], base+primary)
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO fo.probe VALUES (-2)"); errNo(err) != 1290 {
			t.Errorf("node%d (a replica) took a write after the restart: %v", i+1, err)
		}
	}
}

// petrelCmd runs the petrel binary and returns its output and exit code.
func petrelCmd(t *testing.T, ctx context.Context, bin string, args ...string) (string, int) {
	t.Helper()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("petrel %v: %v", args, err)
	}
	return string(out), code
}

// ackedMissing counts the acknowledged ids missing from fo.t on db.
func ackedMissing(t *testing.T, ctx context.Context, db *sql.DB, acked map[int64]bool) int {
	t.Helper()
	present := map[int64]bool{}
	rows, err := db.QueryContext(ctx, "SELECT id FROM fo.t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		present[id] = true
	}
	missing := 0
	for id := range acked {
		if !present[id] {
			missing++
		}
	}
	return missing
}

// TestClusterSwitchover: `petrel switchover` on a live cluster under a
// write load moves the primary role to the replica named (then, without
// --to, to the best one) with no acknowledged write lost; the old primary
// replicates from the new one; the supervisor adopts the layout (a
// restart of the old primary keeps it a replica). `petrel failover`
// refuses, changing nothing, while the primary is alive, and when the
// primary is dead but no replica is eligible (appliers stopped) it says
// why and changes nothing.
func TestClusterSwitchover(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 3)
	c := startClusterArgs(t, ctx, bin, dir, base, 3, "--replicas", "2")
	if !strings.Contains(c.details, "semi-sync (each commit waits for 1 replica's acknowledgement, timeout 10s, then asynchronous)") {
		t.Errorf("banner:\n%s", c.details)
	}
	dbs := []*sql.DB{clusterNode(t, base), clusterNode(t, base+1), clusterNode(t, base+2)}
	mustExec(t, ctx, dbs[0], "CREATE DATABASE fo", "CREATE TABLE fo.t (id BIGINT PRIMARY KEY, w INT)")
	pw := "--root-password=" + rootPassword

	out, code := petrelCmd(t, ctx, bin, "failover", "--cluster", dir, pw)
	if code != 1 || !strings.Contains(out, "the primary node1 is alive") || !strings.Contains(out, "nothing done") {
		t.Errorf("failover of a live primary: exit %d:\n%s", code, out)
	}
	for _, bad := range [][]string{{"--to", "node9"}, {"--to", "node1"}} {
		out, code := petrelCmd(t, ctx, bin, append([]string{"switchover", "--cluster", dir, pw}, bad...)...)
		if code != 1 || clusterPrimary(t, dir) != "node1" {
			t.Errorf("switchover %v: exit %d, primary %s:\n%s", bad, code, clusterPrimary(t, dir), out)
		}
	}
	if out, code := petrelCmd(t, ctx, bin, "switchover", "--cluster", t.TempDir(), pw); code != 1 || !strings.Contains(out, "no cluster.json") {
		t.Errorf("switchover of an empty directory: exit %d:\n%s", code, out)
	}

	load := startFollowLoad(ctx, dbs, 4)
	defer load.finish()
	time.Sleep(300 * time.Millisecond)
	out, code = petrelCmd(t, ctx, bin, "switchover", "--cluster", dir, pw, "--to", "node3")
	if code != 0 || !strings.Contains(out, "switchover: node3 is the primary, node1 its replica") {
		t.Fatalf("switchover --to node3: exit %d:\n%s", code, out)
	}
	t.Logf("%s", strings.TrimSpace(out))
	time.Sleep(300 * time.Millisecond)
	out, code = petrelCmd(t, ctx, bin, "switchover", "--cluster", dir, pw)
	if code != 0 || !strings.Contains(out, "its replica") {
		t.Fatalf("switchover: exit %d:\n%s", code, out)
	}
	t.Logf("%s", strings.TrimSpace(out))
	time.Sleep(300 * time.Millisecond)
	acked := load.finish()
	pname := clusterPrimary(t, dir)
	if pname == "node3" {
		t.Fatalf("the second switchover left node3 the primary")
	}
	primary := int(pname[4] - '1')
	for i, db := range dbs {
		if i == primary {
			continue
		}
		waitCaughtUp(t, ctx, dbs[primary], db, 30*time.Second)
		if st := replicaStatus(t, ctx, db, "SHOW REPLICA STATUS"); st["Source_Port"] != strconv.Itoa(base+primary) {
			t.Errorf("node%d replicates from port %s, want %d", i+1, st["Source_Port"], base+primary)
		}
	}
	if m := ackedMissing(t, ctx, dbs[primary], acked); m != 0 || len(acked) == 0 {
		t.Fatalf("%d of %d acknowledged rows missing after two switchovers", m, len(acked))
	}
	for i, db := range dbs {
		sameTable(t, ctx, dbs[primary], db, "fo.t", "id")
		if ro := queryInt(t, ctx, db, "SELECT @@GLOBAL.super_read_only"); (ro == 0) != (i == primary) {
			t.Errorf("node%d super_read_only = %d (primary %s)", i+1, ro, pname)
		}
	}
	t.Logf("two switchovers under 4 writers: %d acknowledged rows, 0 missing; %d write errors while roles moved", len(acked), load.errs.Load())

	// The supervisor adopted the layout: node3, a replica now, restarts
	// as one.
	if err := syscall.Kill(c.pid(t, "node3"), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ro int64 = -1
		dbs[2].QueryRowContext(ctx, "SELECT @@GLOBAL.super_read_only").Scan(&ro)
		if ro == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node3 did not come back read-only:\n%s", tail(c.stderr.String(), 3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
	mustExec(t, ctx, dbs[primary], "INSERT INTO fo.t VALUES (-1, 0)")
	waitCaughtUp(t, ctx, dbs[primary], dbs[2], 30*time.Second)

	// A frozen primary (SIGSTOP: the supervisor sees no exit) with both
	// appliers stopped: confirmed dead, but no replica is eligible.
	var reps []int
	for i := range dbs {
		if i != primary {
			reps = append(reps, i)
			mustExec(t, ctx, dbs[i], "STOP REPLICA SQL_THREAD", "SET GLOBAL replica_net_timeout = 2")
			mustExec(t, ctx, dbs[i], "STOP REPLICA IO_THREAD", "START REPLICA IO_THREAD") // the timeout applies at connect
		}
	}
	ppid := c.pid(t, pname)
	if err := syscall.Kill(ppid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(ppid, syscall.SIGCONT)
	out, code = petrelCmd(t, ctx, bin, "failover", "--cluster", dir, pw, "--wait", "20s")
	want := fmt.Sprintf("no eligible replica: node%d: applier stopped; node%d: applier stopped", reps[0]+1, reps[1]+1)
	if code != 1 || !strings.Contains(out, "is dead") || !strings.Contains(out, want) || !strings.Contains(out, "nothing done") {
		t.Errorf("failover with no eligible replica: exit %d, want %q:\n%s", code, want, out)
	}
	if got := clusterPrimary(t, dir); got != pname {
		t.Errorf("cluster.json names %s after a refused failover, want %s", got, pname)
	}
	syscall.Kill(ppid, syscall.SIGCONT)
	for _, i := range reps {
		if ro := queryInt(t, ctx, dbs[i], "SELECT @@GLOBAL.super_read_only"); ro != 1 {
			t.Errorf("node%d turned writable after a refused failover", i+1)
		}
	}
}

// TestFailoverPartition: a primary alive but cut off from its replicas
// and from the failover command (a black-holed lab.Link on the path they
// use; its clients still reach it directly), semi-sync strict. `petrel
// failover` confirms it dead and promotes a replica. No two primaries
// take writes at once: the cut-off primary acknowledges no write begun
// after the partition (strict semi-sync holds each one), every write it
// did acknowledge is on the new primary, and once the partition heals it
// refuses new writes (no replica acknowledges it any more).
func TestFailoverPartition(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := startPetrel(t, ctx, lab.PetrelOptions{ServerID: 1})
	link, err := lab.StartLink(fmt.Sprintf("127.0.0.1:%d", old.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	// The layout of a cluster whose node1 is the link's port and whose
	// replicas listen on the two ports after it.
	base := link.Port()
	vars := map[string]string{"super_read_only": "ON", "init_rpl_role": "SLAVE", "rpl_semi_sync_replica_enabled": "ON", "replica_net_timeout": "2"}
	reps := []*lab.Petrel{
		startPetrel(t, ctx, lab.PetrelOptions{ServerID: 2, Port: base + 1, ExtraArgs: []string{"--config", configFile(t, vars)}}),
		startPetrel(t, ctx, lab.PetrelOptions{ServerID: 3, Port: base + 2, ExtraArgs: []string{"--config", configFile(t, vars)}}),
	}
	odb := rootDB(t, old, "")
	rdbs := []*sql.DB{rootDB(t, reps[0], ""), rootDB(t, reps[1], "")}
	createReplUser(t, ctx, odb)
	mustExec(t, ctx, odb, "CREATE DATABASE fo", "CREATE TABLE fo.t (id BIGINT PRIMARY KEY, w INT)")
	for _, r := range rdbs {
		mustExec(t, ctx, r, fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='%s', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1, SOURCE_HEARTBEAT_PERIOD=0.5", base, replUser, replPassword),
			"START REPLICA")
		waitCaughtUp(t, ctx, odb, r, 30*time.Second)
	}
	mustExec(t, ctx, odb, "SET GLOBAL rpl_semi_sync_source_enabled = ON", "SET GLOBAL rpl_semi_sync_source_strict = ON")
	dir := t.TempDir()
	st := fmt.Sprintf(`{"repl_user": %q, "repl_password": %q, "base_port": %d, "replicas": 2, "auto_failover": true}`, replUser, replPassword, base)
	if err := os.WriteFile(filepath.Join(dir, "cluster.json"), []byte(st), 0o600); err != nil {
		t.Fatal(err)
	}

	// Writers on the old primary, directly: each write's start and
	// whether it was acknowledged.
	type write struct {
		id    int64
		start time.Time
	}
	var mu sync.Mutex
	var ackedOld []write
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); i < 1_000_000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := int64(w)*100_000_000 + i
				start := time.Now()
				qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				_, err := odb.ExecContext(qctx, "INSERT INTO fo.t VALUES (?, ?)", id, w)
				cancel()
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				mu.Lock()
				ackedOld = append(ackedOld, write{id, start})
				mu.Unlock()
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	link.BlackHole(true)
	cut := time.Now()
	out, code := petrelCmd(t, ctx, bin, "failover", "--cluster", dir, "--root-password="+rootPassword, "--wait", "30s")
	if code != 0 || !strings.Contains(out, "failover: node") {
		t.Fatalf("failover of a partitioned primary: exit %d:\n%s", code, out)
	}
	t.Logf("partition to promotion: %v; %s", time.Since(cut).Round(time.Millisecond), strings.TrimSpace(out))
	newp := -1
	for i, r := range rdbs {
		if queryInt(t, ctx, r, "SELECT @@GLOBAL.super_read_only") == 0 {
			newp = i
		}
	}
	if newp < 0 {
		t.Fatal("no replica was made writable")
	}
	other := rdbs[1-newp]
	// The new primary takes writes while the old one is still cut off.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := rdbs[newp].ExecContext(ctx, "INSERT INTO fo.t VALUES (-1, -1)")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new primary refuses writes: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	link.BlackHole(false)
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()

	// Healed: the old primary, still believing it is the primary, takes
	// no write (no replica acknowledges it).
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	_, err = odb.ExecContext(qctx, "INSERT INTO fo.t VALUES (-2, -2)")
	cancel()
	if err == nil {
		t.Errorf("the old primary took a write after the partition healed")
	}
	waitCaughtUp(t, ctx, rdbs[newp], other, 30*time.Second)
	sameTable(t, ctx, rdbs[newp], other, "fo.t", "id")
	present := map[int64]bool{}
	rows, err := rdbs[newp].QueryContext(ctx, "SELECT id FROM fo.t")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		present[id] = true
	}
	rows.Close()
	var missing, after int
	for _, w := range ackedOld {
		if !present[w.id] {
			missing++
		}
		if w.start.After(cut.Add(100 * time.Millisecond)) {
			after++
		}
	}
	if missing > 0 || after > 0 || len(ackedOld) == 0 {
		t.Fatalf("old primary: %d writes acknowledged, %d missing on the new primary, %d begun after the partition", len(ackedOld), missing, after)
	}
	t.Logf("old primary acknowledged %d writes, all before the partition and all on the new primary", len(ackedOld))
}

// TestClusterSitesAutoFailover: the sites topology (`--replicas 2 --sites
// 1 --replicas-per-site 1 --auto-failover`): kill -9 of the primary under
// writes; a replica beside it is promoted, the site's relay follows it by
// GTID (its site replica behind it, failing over to the new primary now),
// the old primary rejoins; every data node ends with the new primary's
// rows and GTIDs, no acknowledged row missing.
func TestClusterSitesAutoFailover(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 5)
	c := startClusterArgs(t, ctx, bin, dir, base, 5, "--replicas", "2", "--sites", "1", "--replicas-per-site", "1", "--auto-failover")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("supervisor log:\n%s", tail(c.stderr.String(), 6000))
		}
	})
	dbs := make([]*sql.DB, 5)
	for i := range dbs {
		dbs[i] = clusterNode(t, base+i)
	}
	mustExec(t, ctx, dbs[0], "CREATE DATABASE fo", "CREATE TABLE fo.t (id BIGINT PRIMARY KEY, w INT)")
	load := startFollowLoad(ctx, dbs[:3], 4)
	defer load.finish()
	time.Sleep(500 * time.Millisecond)
	if err := syscall.Kill(c.pid(t, "node1"), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	deadline := time.Now().Add(30 * time.Second)
	for clusterPrimary(t, dir) == "node1" {
		if time.Now().After(deadline) {
			t.Fatalf("no failover within 30s:\n%s", tail(c.stderr.String(), 3000))
		}
		time.Sleep(20 * time.Millisecond)
	}
	pname := clusterPrimary(t, dir)
	primary := int(pname[4] - '1')
	if primary != 1 && primary != 2 {
		t.Fatalf("%s promoted; want a replica beside the primary (node2 or node3)", pname)
	}
	t.Logf("%s promoted %v after the kill", pname, time.Since(killed).Round(time.Millisecond))
	// The old primary rejoins; then the load stops.
	deadline = time.Now().Add(30 * time.Second)
	for {
		var port string
		if rows, err := dbs[0].QueryContext(ctx, "SHOW REPLICA STATUS"); err == nil {
			rows.Close()
			port = replicaStatus(t, ctx, dbs[0], "SHOW REPLICA STATUS")["Source_Port"]
		}
		if port == strconv.Itoa(base+primary) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node1 did not rejoin as %s's replica:\n%s", pname, tail(c.stderr.String(), 3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	acked := load.finish()
	p := dbs[primary]
	if st := replicaStatus(t, ctx, dbs[3], "SHOW REPLICA STATUS"); st["Source_Port"] != strconv.Itoa(base+primary) {
		t.Errorf("the relay reads from port %s, want the new primary's %d", st["Source_Port"], base+primary)
	}
	if got := queryString(t, ctx, dbs[4], "SELECT GROUP_CONCAT(CONCAT(PORT, ':', WEIGHT) ORDER BY WEIGHT DESC) FROM performance_schema.replication_asynchronous_connection_failover"); got != fmt.Sprintf("%d:70,%d:50", base+3, base+primary) {
		t.Errorf("the site replica's failover sources: %s, want its relay and the new primary", got)
	}
	for i, db := range dbs {
		if i != primary {
			waitCaughtUp(t, ctx, p, db, 30*time.Second)
		}
	}
	if m := ackedMissing(t, ctx, p, acked); m != 0 || len(acked) == 0 {
		t.Fatalf("%d of %d acknowledged rows missing", m, len(acked))
	}
	for i, db := range dbs {
		if i != 3 { // the relay holds no rows
			sameTable(t, ctx, p, db, "fo.t", "id")
		}
	}
	t.Logf("sites failover: %d acknowledged rows, 0 missing; relay and site replica follow %s", len(acked), pname)

}

// TestFailoverCatchUpFromRelay: a relay ran ahead of every replica (their
// receivers were stopped while the primary wrote 50 rows, asynchronous
// replication); the primary then freezes (SIGSTOP). `petrel failover`
// confirms it dead, promotes the replica beside it after catching it up
// from the relay, so the 50 rows are the new primary's rather than
// errant on the relay's site; the relay and its replica follow; the old
// primary, thawed, is fenced by the supervisor (restarted as the new
// primary's replica) and rejoins without errant transactions.
func TestFailoverCatchUpFromRelay(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 4)
	c := startClusterArgs(t, ctx, bin, dir, base, 4, "--async", "--replicas", "1", "--sites", "1", "--replicas-per-site", "1")
	dbs := make([]*sql.DB, 4)
	for i := range dbs {
		dbs[i] = clusterNode(t, base+i)
	}
	// node1 primary, node2 its replica, node3 the site's relay, node4 the
	// site's replica.
	mustExec(t, ctx, dbs[0], "CREATE DATABASE cu", "CREATE TABLE cu.t (id INT PRIMARY KEY)", "INSERT INTO cu.t VALUES (0)")
	for _, i := range []int{1, 2, 3} {
		waitCaughtUp(t, ctx, dbs[0], dbs[i], 30*time.Second)
	}
	mustExec(t, ctx, dbs[1], "STOP REPLICA IO_THREAD", "SET GLOBAL replica_net_timeout = 2")
	mustExec(t, ctx, dbs[3], "STOP REPLICA IO_THREAD")
	mustExec(t, ctx, dbs[2], "SET GLOBAL replica_net_timeout = 2", "STOP REPLICA", "START REPLICA")
	for i := 1; i <= 50; i++ {
		mustExec(t, ctx, dbs[0], fmt.Sprintf("INSERT INTO cu.t VALUES (%d)", i))
	}
	waitCaughtUp(t, ctx, dbs[0], dbs[2], 30*time.Second)
	ppid := c.pid(t, "node1")
	if err := syscall.Kill(ppid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(ppid, syscall.SIGCONT)
	mustExec(t, ctx, dbs[1], "START REPLICA IO_THREAD")
	out, code := petrelCmd(t, ctx, bin, "failover", "--cluster", dir, "--root-password="+rootPassword, "--wait", "30s")
	if code != 0 || !strings.Contains(out, "failover: node2 is the primary") || !strings.Contains(out, "relay node3 holds 50 GTIDs node2 lacks") {
		t.Fatalf("failover: exit %d:\n%s", code, out)
	}
	if n := queryInt(t, ctx, dbs[1], "SELECT COUNT(*) FROM cu.t"); n != 51 {
		t.Fatalf("the new primary has %d of 51 rows: it was not caught up from the relay", n)
	}
	mustExec(t, ctx, dbs[1], "INSERT INTO cu.t VALUES (100)")
	mustExec(t, ctx, dbs[3], "START REPLICA IO_THREAD")
	syscall.Kill(ppid, syscall.SIGCONT)
	for _, i := range []int{2, 3, 0} {
		waitCaughtUp(t, ctx, dbs[1], dbs[i], 60*time.Second)
		if i != 2 {
			sameTable(t, ctx, dbs[1], dbs[i], "cu.t", "id")
		}
	}
	if st := replicaStatus(t, ctx, dbs[0], "SHOW REPLICA STATUS"); st["Source_Port"] != strconv.Itoa(base+1) {
		t.Errorf("the old primary replicates from port %s, want node2's %d", st["Source_Port"], base+1)
	}
	if !strings.Contains(c.stderr.String(), `msg="cluster: restarting for the new layout" node=node1`) {
		t.Errorf("the supervisor did not fence the thawed old primary:\n%s", tail(c.stderr.String(), 3000))
	}
}
