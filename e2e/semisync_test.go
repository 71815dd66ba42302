package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"petrel/internal/base"
	"petrel/lab"
)

// semiNode is a server that can be either side of a semi-sync pair.
func semiNode(t *testing.T, ctx context.Context, id int, extra map[string]string) *lab.Petrel {
	t.Helper()
	vars := map[string]string{
		"rpl_semi_sync_source_enabled":  "ON",
		"rpl_semi_sync_replica_enabled": "ON",
		"rpl_semi_sync_source_timeout":  "60000",
		// A crashed source comes back as a replica: its unacknowledged
		// tail is cut, never served.
		"init_rpl_role": "SLAVE",
	}
	for k, v := range extra {
		vars[k] = v
	}
	return startReplicaServer(t, ctx, id, vars)
}

// createReplUserSemi makes the replication account on a semi-sync source
// with no replica yet: the account statement is binlogged like any
// transaction, and with semi-sync ON it would wait the whole
// rpl_semi_sync_source_timeout for an acknowledgement nobody can send (as
// in MySQL), so semi-sync is off around it.
func createReplUserSemi(t *testing.T, ctx context.Context, src *sql.DB) {
	t.Helper()
	mustExec(t, ctx, src, "SET GLOBAL rpl_semi_sync_source_enabled = OFF")
	createReplUser(t, ctx, src)
	mustExec(t, ctx, src, "SET GLOBAL rpl_semi_sync_source_enabled = ON")
}

// waitSemiClients waits until a source has n semi-sync replicas.
func waitSemiClients(t *testing.T, ctx context.Context, db *sql.DB, n int64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if globalStatus(t, ctx, db, "Rpl_semi_sync_source_clients") == n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("Rpl_semi_sync_source_clients did not reach %d", n)
}

// waitApplied waits until a replica has applied everything it received
// (Retrieved_Gtid_Set within gtid_executed): what a promotion waits for.
func waitApplied(t *testing.T, ctx context.Context, db *sql.DB, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	var st map[string]string
	for time.Now().Before(deadline) {
		st = replicaStatus(t, ctx, db, "SHOW REPLICA STATUS")
		got, err1 := base.ParseGTIDSet(st["Retrieved_Gtid_Set"])
		ex, err2 := base.ParseGTIDSet(queryString(t, ctx, db, "SELECT @@GLOBAL.gtid_executed"))
		if err1 == nil && err2 == nil && ex.ContainsSet(got) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("replica did not apply its relay log within %v: retrieved %s, SQL=%s err=%q", within, st["Retrieved_Gtid_Set"], st["Replica_SQL_Running"], st["Last_SQL_Error"])
}

// TestSemiSyncLossless is the lossless proof: under a concurrent insert
// load the primary is killed with SIGKILL at a random moment, the replica
// is promoted, and every insert whose COMMIT returned OK must be on it.
// The old primary restarts with init_rpl_role=SLAVE, cuts its
// unacknowledged tail and rejoins as a replica of the new primary, ending
// identical (same rows, same gtid_executed: it kept nothing the new
// primary lacks). Then the roles swap, for 30 cycles.
//
// It runs at both acknowledgement points (rpl_semi_sync_replica_ack_after):
// RELAY_WRITE, the default, where the replica acknowledges once the
// transaction is written to its relay log, and RELAY_SYNC, once it is
// fsynced there. A process kill loses neither.
func TestSemiSyncLossless(t *testing.T) {
	// scripts/semisync-campaign.sh runs longer campaigns.
	cycles := 20
	if v, err := strconv.Atoi(os.Getenv("PETREL_LOSSLESS_CYCLES")); err == nil && v > 0 {
		cycles = v
	}
	for _, mode := range []string{"RELAY_WRITE", "RELAY_SYNC"} {
		t.Run(mode, func(t *testing.T) { testSemiSyncLossless(t, mode, cycles) })
	}
}

func testSemiSyncLossless(t *testing.T, ackAfter string, cycles int) {
	ctx := testContext(t, 6*time.Minute+time.Duration(cycles)*3*time.Second)
	vars := map[string]string{"rpl_semi_sync_replica_ack_after": ackAfter}
	nodes := []*lab.Petrel{semiNode(t, ctx, 1, vars), semiNode(t, ctx, 2, vars)}
	dbs := []*sql.DB{rootDB(t, nodes[0], ""), rootDB(t, nodes[1], "")}
	// The account replicates to node 2, so either node can serve the other.
	createReplUserSemi(t, ctx, dbs[0])
	pointAt(t, ctx, dbs[1], nodes[0].Port(), "")
	waitSemiClients(t, ctx, dbs[0], 1)
	mustExec(t, ctx, dbs[0], "CREATE DATABASE ss", "CREATE TABLE ss.t (id BIGINT PRIMARY KEY, w INT NOT NULL, n INT NOT NULL)")
	waitCaughtUp(t, ctx, dbs[0], dbs[1], 20*time.Second)

	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	t.Logf("seed %d", seed)
	primary := 0
	var totalAcked, cut int
	for c := 0; c < cycles; c++ {
		p, r := primary, 1-primary
		waitSemiClients(t, ctx, dbs[p], 1)
		load := startInsertLoad(ctx, dbs[p], "ss.t", 8, int64(c+1)*1_000_000_000)
		time.Sleep(time.Duration(150+rng.IntN(450)) * time.Millisecond)
		if err := nodes[p].Kill(); err != nil {
			t.Fatal(err)
		}
		acked := load.finish()
		totalAcked += len(acked)

		// Promote the replica.
		waitApplied(t, ctx, dbs[r], 30*time.Second)
		mustExec(t, ctx, dbs[r], "STOP REPLICA", "RESET REPLICA ALL")
		have := map[int64]bool{}
		rows, err := dbs[r].QueryContext(ctx, "SELECT id FROM ss.t WHERE id >= ? AND id < ?", int64(c+1)*1_000_000_000, int64(c+2)*1_000_000_000)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			have[id] = true
		}
		rows.Close()
		missing := 0
		for id := range acked {
			if !have[id] {
				missing++
			}
		}
		if missing > 0 || len(acked) == 0 {
			t.Fatalf("cycle %d: %d of %d acknowledged inserts missing on the promoted replica", c, missing, len(acked))
		}

		// The old primary rejoins as a replica of the new one.
		if err := nodes[p].Restart(ctx); err != nil {
			t.Fatalf("cycle %d: restart: %v\n%s", c, err, tail(nodes[p].Log(), 4096))
		}
		dbs[p] = rootDB(t, nodes[p], "")
		pointAt(t, ctx, dbs[p], nodes[r].Port(), "")
		waitCaughtUp(t, ctx, dbs[r], dbs[p], 30*time.Second)
		sameTable(t, ctx, dbs[r], dbs[p], "ss.t", "id")
		primary = r
	}
	for _, n := range nodes {
		cut += strings.Count(n.Log(), "cutting transactions that were never acknowledged")
	}
	src := dbs[primary]
	if got := queryString(t, ctx, src, "SELECT @@GLOBAL.rpl_semi_sync_slave_ack_after"); got != ackAfter {
		t.Errorf("rpl_semi_sync_slave_ack_after = %q, want %q from the option file", got, ackAfter)
	}
	if noTx := globalStatus(t, ctx, src, "Rpl_semi_sync_source_no_tx"); noTx != 0 {
		t.Errorf("the last primary committed %d transactions without an acknowledgement", noTx)
	}
	t.Logf("%d cycles, %d acknowledged inserts, 0 missing; %d restarts cut an unacknowledged tail", cycles, totalAcked, cut)
}

// TestSemiSyncReplicaKilledKeepsAcked: at the default acknowledgement point
// (RELAY_WRITE) a replica acknowledges a transaction once it is written to
// its relay log, before any fsync. A kill -9 of the replica process loses
// none of it (the operating system still holds the write): the replica is
// killed under load with its applier stopped (so acknowledged transactions
// exist only in its relay log), then the primary too, so nothing can be
// fetched again; the restarted replica, promoted, holds every insert whose
// COMMIT returned OK.
func TestSemiSyncReplicaKilledKeepsAcked(t *testing.T) {
	const cycles = 4
	ctx := testContext(t, 6*time.Minute)
	nodes := []*lab.Petrel{semiNode(t, ctx, 1, nil), semiNode(t, ctx, 2, nil)}
	dbs := []*sql.DB{rootDB(t, nodes[0], ""), rootDB(t, nodes[1], "")}
	// The account replicates to node 2, so either node can serve the other.
	createReplUserSemi(t, ctx, dbs[0])
	if got := queryString(t, ctx, dbs[1], "SELECT @@GLOBAL.rpl_semi_sync_replica_ack_after"); got != "RELAY_WRITE" {
		t.Fatalf("default rpl_semi_sync_replica_ack_after = %q, want RELAY_WRITE", got)
	}
	pointAt(t, ctx, dbs[1], nodes[0].Port(), "")
	waitSemiClients(t, ctx, dbs[0], 1)
	mustExec(t, ctx, dbs[0], "CREATE DATABASE rk", "CREATE TABLE rk.t (id BIGINT PRIMARY KEY, w INT NOT NULL, n INT NOT NULL)")
	waitCaughtUp(t, ctx, dbs[0], dbs[1], 20*time.Second)

	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 2))
	t.Logf("seed %d", seed)
	primary, total := 0, 0
	for c := 0; c < cycles; c++ {
		p, r := primary, 1-primary
		waitSemiClients(t, ctx, dbs[p], 1)
		mustExec(t, ctx, dbs[r], "STOP REPLICA SQL_THREAD")
		lo := int64(c+1) * 1_000_000_000
		load := startInsertLoad(ctx, dbs[p], "rk.t", 8, lo)
		time.Sleep(time.Duration(200+rng.IntN(400)) * time.Millisecond)
		if err := nodes[r].Kill(); err != nil {
			t.Fatal(err)
		}
		if err := nodes[p].Kill(); err != nil {
			t.Fatal(err)
		}
		acked := load.finish()
		total += len(acked)

		// The replica restarts, applies its relay log (the source is
		// gone) and is promoted.
		if err := nodes[r].Restart(ctx); err != nil {
			t.Fatalf("cycle %d: restart the replica: %v\n%s", c, err, tail(nodes[r].Log(), 4096))
		}
		dbs[r] = rootDB(t, nodes[r], "")
		waitApplied(t, ctx, dbs[r], 30*time.Second)
		mustExec(t, ctx, dbs[r], "STOP REPLICA", "RESET REPLICA ALL")
		have := map[int64]bool{}
		for _, id := range queryStrings(t, ctx, dbs[r], "SELECT id FROM rk.t WHERE id >= ? AND id < ?", lo, lo+1_000_000_000) {
			n, _ := strconv.ParseInt(id, 10, 64)
			have[n] = true
		}
		missing := 0
		for id := range acked {
			if !have[id] {
				missing++
			}
		}
		if missing > 0 || len(acked) == 0 {
			t.Fatalf("cycle %d: %d of %d acknowledged inserts missing after the replica's kill -9", c, missing, len(acked))
		}
		// The old primary rejoins as a replica of the promoted one.
		if err := nodes[p].Restart(ctx); err != nil {
			t.Fatalf("cycle %d: restart the old primary: %v\n%s", c, err, tail(nodes[p].Log(), 4096))
		}
		dbs[p] = rootDB(t, nodes[p], "")
		pointAt(t, ctx, dbs[p], nodes[r].Port(), "")
		waitCaughtUp(t, ctx, dbs[r], dbs[p], 30*time.Second)
		sameTable(t, ctx, dbs[r], dbs[p], "rk.t", "id")
		primary = r
	}
	t.Logf("%d cycles, %d acknowledged inserts, 0 missing", cycles, total)
}

// TestSemiSyncAckAfterSetting: rpl_semi_sync_replica_ack_after (and its
// slave spelling) is shown by SHOW VARIABLES, set with SET GLOBAL, refuses
// values it does not have, and is honoured at once: under RELAY_SYNC every
// acknowledgement follows a relay log fsync; under RELAY_WRITE the
// replica acknowledges far more often than it fsyncs (at most once per
// 10 ms, sync_relay_log being far off).
func TestSemiSyncAckAfterSetting(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	src, rep := semiNode(t, ctx, 1, nil), semiNode(t, ctx, 2, nil)
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUserSemi(t, ctx, sdb)
	pointAt(t, ctx, rdb, src.Port(), "")
	waitSemiClients(t, ctx, sdb, 1)
	mustExec(t, ctx, sdb, "CREATE DATABASE aa", "CREATE TABLE aa.t (id BIGINT PRIMARY KEY, w INT NOT NULL, n INT NOT NULL)")

	show := func() map[string]string {
		t.Helper()
		rows, err := rdb.QueryContext(ctx, "SHOW GLOBAL VARIABLES LIKE 'rpl_semi_sync_%ack_after'")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var k, v string
			rows.Scan(&k, &v)
			out[k] = v
		}
		return out
	}
	want := map[string]string{"rpl_semi_sync_replica_ack_after": "RELAY_WRITE", "rpl_semi_sync_slave_ack_after": "RELAY_WRITE"}
	if got := show(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("SHOW VARIABLES: %v, want %v", got, want)
	}
	_, err := rdb.ExecContext(ctx, "SET GLOBAL rpl_semi_sync_replica_ack_after = 'RELAY_FLUSH'")
	wantErrNo(t, "an unknown acknowledgement point", err, erWrongValueForVar)

	run := func(mode string) (acks, syncs int64, elapsed time.Duration) {
		t.Helper()
		mustExec(t, ctx, rdb, "SET GLOBAL rpl_semi_sync_slave_ack_after = '"+mode+"'")
		for k, v := range show() {
			if v != mode {
				t.Fatalf("after SET GLOBAL %s: %s = %s", mode, k, v)
			}
		}
		a0, s0 := globalStatus(t, ctx, rdb, "Petrel_semi_sync_replica_acks"), globalStatus(t, ctx, rdb, "Petrel_relay_log_syncs")
		start := time.Now()
		load := startInsertLoad(ctx, sdb, "aa.t", 4, int64(len(mode))*1_000_000_000)
		time.Sleep(time.Second)
		acked := load.finish()
		elapsed = time.Since(start)
		if len(acked) == 0 {
			t.Fatalf("%s: no insert committed", mode)
		}
		return globalStatus(t, ctx, rdb, "Petrel_semi_sync_replica_acks") - a0, globalStatus(t, ctx, rdb, "Petrel_relay_log_syncs") - s0, elapsed
	}
	acks, syncs, _ := run("RELAY_SYNC")
	if acks == 0 || syncs < acks {
		t.Errorf("RELAY_SYNC: %d acknowledgements but %d relay log fsyncs; every ack must follow one", acks, syncs)
	}
	t.Logf("RELAY_SYNC: %d acks, %d relay fsyncs", acks, syncs)
	acks, syncs, elapsed := run("RELAY_WRITE")
	t.Logf("RELAY_WRITE: %d acks, %d relay fsyncs in %v", acks, syncs, elapsed)
	if bound := int64(elapsed/(10*time.Millisecond)) + 5; syncs > bound || acks <= syncs {
		t.Errorf("RELAY_WRITE: %d acknowledgements, %d relay log fsyncs in %v (bound %d): acks must not wait for fsyncs", acks, syncs, elapsed, bound)
	}
	if n := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_no_tx"); n != 0 {
		t.Errorf("%d commits were not acknowledged", n)
	}
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	sameTable(t, ctx, sdb, rdb, "aa.t", "id")
}

// TestSemiSyncFallbackAndStrict: with the replica gone, a commit waits
// rpl_semi_sync_source_timeout, the source falls back to asynchronous
// (status OFF, no_times+1) and switches back ON by itself once the
// replica is back and caught up. In strict mode it never falls back: with
// no replica a write is refused, and nothing is written.
func TestSemiSyncFallbackAndStrict(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	mport, err := lab.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	metricsURL := fmt.Sprintf("http://127.0.0.1:%d/metrics", mport)
	src := semiNode(t, ctx, 1, map[string]string{"rpl_semi_sync_source_timeout": "700", "metrics_address": fmt.Sprintf("127.0.0.1:%d", mport)})
	rep := semiNode(t, ctx, 2, nil)
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUserSemi(t, ctx, sdb)
	mustExec(t, ctx, sdb, "INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'", "CREATE DATABASE s", "CREATE TABLE s.t (id INT PRIMARY KEY)")
	pointAt(t, ctx, rdb, src.Port(), "")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	mustExec(t, ctx, sdb, "INSERT INTO s.t VALUES (1)")
	status := func(db *sql.DB, name string) string {
		var n, v string
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	if s := status(sdb, "Rpl_semi_sync_master_status"); s != "ON" {
		t.Fatalf("Rpl_semi_sync_master_status = %s", s)
	}
	if s := status(rdb, "Rpl_semi_sync_slave_status"); s != "ON" {
		t.Errorf("Rpl_semi_sync_slave_status = %s", s)
	}
	yes := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx")
	if yes < 1 {
		t.Errorf("yes_tx = %d after an acknowledged insert", yes)
	}
	// The same figures as Prometheus metrics (mysqld_exporter's names).
	metrics := httpGet(t, metricsURL)
	for _, want := range []string{
		fmt.Sprintf("mysql_global_status_rpl_semi_sync_source_yes_tx %d", yes),
		fmt.Sprintf("mysql_global_status_rpl_semi_sync_master_yes_tx %d", yes),
		"mysql_global_status_rpl_semi_sync_master_status 1",
		"mysql_global_status_rpl_semi_sync_source_clients 1",
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	// Sustained load for several replica_net_timeouts (2 s): acks keep
	// flowing on one connection, nothing falls back.
	yes0, conns0 := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx"), globalStatus(t, ctx, rdb, "Replica_connects")
	mustExec(t, ctx, sdb, "CREATE TABLE s.load (id BIGINT PRIMARY KEY, w INT NOT NULL, n INT NOT NULL)")
	load := startInsertLoad(ctx, sdb, "s.load", 4, 0)
	time.Sleep(6 * time.Second)
	acked := load.finish()
	if n := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_no_times"); n != 1 {
		t.Errorf("under sustained load: no_times = %d, want still 1", n)
	}
	if c := globalStatus(t, ctx, rdb, "Replica_connects"); c != conns0 {
		t.Errorf("under sustained load the replica reconnected: %d -> %d connections", conns0, c)
	}
	if y := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx"); y < yes0+int64(len(acked)) {
		t.Errorf("yes_tx grew by %d for %d acknowledged inserts", y-yes0, len(acked))
	}
	// Switched off and on at run time: the connected replica stays a
	// semi-sync client; commits while OFF ask for no acknowledgement.
	mustExec(t, ctx, sdb, "SET GLOBAL rpl_semi_sync_master_enabled = OFF")
	yes1 := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx")
	mustExec(t, ctx, sdb, "INSERT INTO s.t VALUES (50)")
	if y := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx"); y != yes1 {
		t.Errorf("semi-sync OFF: yes_tx %d -> %d", yes1, y)
	}
	if s := status(sdb, "Rpl_semi_sync_source_status"); s != "OFF" {
		t.Errorf("disabled: status %s", s)
	}
	mustExec(t, ctx, sdb, "SET GLOBAL rpl_semi_sync_master_enabled = ON")
	if c := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_clients"); c != 1 {
		t.Errorf("after SET GLOBAL ON: clients = %d, want 1", c)
	}
	mustExec(t, ctx, sdb, "INSERT INTO s.t VALUES (51)")
	if y := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx"); y != yes1+1 {
		t.Errorf("semi-sync back ON: yes_tx %d -> %d, want +1", yes1, y)
	}

	noTimes0 := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_no_times")
	noTx0 := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_no_tx")
	mustExec(t, ctx, rdb, "STOP REPLICA")
	start := time.Now()
	mustExec(t, ctx, sdb, "INSERT INTO s.t VALUES (2)")
	if d := time.Since(start); d < 600*time.Millisecond {
		t.Errorf("commit without a replica returned in %v, before the 700 ms timeout", d)
	}
	if s := status(sdb, "Rpl_semi_sync_source_status"); s != "OFF" {
		t.Errorf("after the timeout: status %s, want OFF", s)
	}
	if n := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_no_times"); n != noTimes0+1 {
		t.Errorf("no_times = %d, want %d", n, noTimes0+1)
	}
	start = time.Now()
	mustExec(t, ctx, sdb, "INSERT INTO s.t VALUES (3)")
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Errorf("asynchronous commit took %v", d)
	}
	if n := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_no_tx"); n != noTx0+2 {
		t.Errorf("no_tx = %d, want %d", n, noTx0+2)
	}
	mustExec(t, ctx, rdb, "START REPLICA")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	mustExec(t, ctx, sdb, "INSERT INTO s.t VALUES (4)") // its ack switches the source back ON
	deadline := time.Now().Add(10 * time.Second)
	for status(sdb, "Rpl_semi_sync_source_status") != "ON" && time.Now().Before(deadline) {
		mustExec(t, ctx, sdb, fmt.Sprintf("INSERT INTO s.t VALUES (%d)", 100+time.Now().Nanosecond()%1000000))
		time.Sleep(100 * time.Millisecond)
	}
	if s := status(sdb, "Rpl_semi_sync_source_status"); s != "ON" {
		t.Fatalf("source did not switch back ON after the replica caught up")
	}

	// Strict: no fallback; without a replica, writes are refused.
	mustExec(t, ctx, sdb, "SET GLOBAL rpl_semi_sync_source_strict = ON")
	mustExec(t, ctx, rdb, "STOP REPLICA")
	time.Sleep(200 * time.Millisecond)
	before := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed")
	_, err = sdb.ExecContext(ctx, "INSERT INTO s.t VALUES (5)")
	wantErrNo(t, "strict semi-sync write without a replica", err, erOptionPreventsStmt)
	if after := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed"); after != before {
		t.Errorf("a refused write changed gtid_executed: %s -> %s", before, after)
	}
	if n := queryInt(t, ctx, sdb, "SELECT COUNT(*) FROM s.t WHERE id = 5"); n != 0 {
		t.Error("a refused write is visible")
	}
	mustExec(t, ctx, rdb, "START REPLICA")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	waitSemiClients(t, ctx, sdb, 1)
	mustExec(t, ctx, sdb, "INSERT INTO s.t VALUES (5)")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	sameTable(t, ctx, sdb, rdb, "s.t", "id")
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// TestSyncBinlogAtRunTime: SET GLOBAL sync_binlog takes effect at once (0:
// no binlog fsync groups; 1: one per group again), and with semi-sync ON
// and sync_binlog=0 acknowledgements stand in for local fsyncs: neither
// the binlog nor storage fsyncs a commit.
func TestSyncBinlogAtRunTime(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	src := semiNode(t, ctx, 1, nil)
	rep := semiNode(t, ctx, 2, nil)
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUserSemi(t, ctx, sdb)
	pointAt(t, ctx, rdb, src.Port(), "")
	waitSemiClients(t, ctx, sdb, 1)
	mustExec(t, ctx, sdb, "CREATE DATABASE sb", "CREATE TABLE sb.t (id INT PRIMARY KEY)")
	insert := func(from, n int) {
		t.Helper()
		for i := from; i < from+n; i++ {
			mustExec(t, ctx, sdb, fmt.Sprintf("INSERT INTO sb.t VALUES (%d)", i))
		}
	}
	counters := func() (groups, syncs, yes int64) {
		return globalStatus(t, ctx, sdb, "Binlog_group_commits"), globalStatus(t, ctx, sdb, "Petrel_storage_syncs"), globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx")
	}
	g0, s0, _ := counters()
	insert(0, 20)
	g1, s1, _ := counters()
	if g1-g0 < 20 || s1 != s0 {
		t.Errorf("sync_binlog=1: %d binlog fsync groups, %d storage syncs for 20 commits", g1-g0, s1-s0)
	}
	mustExec(t, ctx, sdb, "SET GLOBAL sync_binlog = 0")
	insert(100, 20)
	g2, s2, y2 := counters()
	if g2 != g1 {
		t.Errorf("sync_binlog=0: the binlog still fsynced (%d groups)", g2-g1)
	}
	if s2 != s1 {
		t.Errorf("sync_binlog=0 with semi-sync ON: storage fsynced %d commits; acknowledgements should stand in", s2-s1)
	}
	mustExec(t, ctx, sdb, "SET GLOBAL rpl_semi_sync_source_enabled = OFF")
	insert(200, 5)
	_, s3, y3 := counters()
	if s3-s2 < 5 || y3 != y2 {
		t.Errorf("sync_binlog=0, semi-sync OFF: %d storage syncs for 5 commits (want local durability), yes_tx %d -> %d", s3-s2, y2, y3)
	}
	mustExec(t, ctx, sdb, "SET GLOBAL rpl_semi_sync_source_enabled = ON", "SET GLOBAL sync_binlog = 1")
	insert(300, 5)
	if g4, _, _ := counters(); g4-g2 < 5 {
		t.Errorf("back to sync_binlog=1: %d fsync groups for 5 commits", g4-g2)
	}
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	sameTable(t, ctx, sdb, rdb, "sb.t", "id")
}
