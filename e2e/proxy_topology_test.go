package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

// waitServers polls a proxy's SHOW SERVERS until ok holds, and returns
// how long it took (failing past within).
func waitServers(t *testing.T, ctx context.Context, admin querier, within time.Duration, what string, ok func([]map[string]string) bool) time.Duration {
	t.Helper()
	start := time.Now()
	var rows []map[string]string
	for time.Since(start) < within && ctx.Err() == nil {
		if rows = showServers(t, ctx, admin); ok(rows) {
			return time.Since(start)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v; SHOW SERVERS: %v", what, within, rows)
	return 0
}

// stateOf is the SHOW SERVERS state of the backend at addr ("" if none).
func stateOf(rows []map[string]string, addr string) string {
	for _, r := range rows {
		if r["server"] == addr {
			return r["state"]
		}
	}
	return ""
}

// TestProxyTopology: a proxy told only the primary finds the replicas
// registered there (SHOW REPLICAS: replicas report their port at
// registration) and follows the topology within 2 s, without a restart:
// a replica killed is drained, restarted it serves again, and a
// switchover (the primary made read-only, a caught-up replica stopped and
// made writable) moves the writes to the promoted replica.
func TestProxyTopology(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	primary := startPetrel(t, ctx, lab.PetrelOptions{ServerID: 1})
	// Read-only replicas, as `petrel cluster` runs them.
	r2 := startReplicaServer(t, ctx, 2, map[string]string{"super_read_only": "ON"})
	r3 := startReplicaServer(t, ctx, 3, map[string]string{"super_read_only": "ON"})
	src, rep2, rep3 := rootDB(t, primary, ""), rootDB(t, r2, ""), rootDB(t, r3, "")
	createReplUser(t, ctx, src)
	mustExec(t, ctx, src, "CREATE DATABASE app", "CREATE TABLE app.t (id BIGINT PRIMARY KEY, v INT)", "INSERT INTO app.t VALUES (1, 10)")
	pointAt(t, ctx, rep2, primary.Port(), "")
	pointAt(t, ctx, rep3, primary.Port(), "")
	waitCaughtUp(t, ctx, src, rep2, 20*time.Second)
	waitCaughtUp(t, ctx, src, rep3, 20*time.Second)
	addr := func(p *lab.Petrel) string { return fmt.Sprintf("127.0.0.1:%d", p.Port()) }

	started := time.Now()
	proxy, err := lab.StartProxy(ctx, lab.ProxyOptions{Primary: primary.Port(), RootPassword: rootPassword,
		ExtraArgs: []string{"--check-interval", "200ms", "--check-timeout", "300ms", "--recover-checks", "2", "--log-level", "debug"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := proxy.Stop(sctx); err != nil {
			t.Errorf("stop proxy: %v", err)
		}
		if t.Failed() {
			t.Logf("proxy log (tail):\n%s", tail(proxy.Log(), 16<<10))
		}
	})
	admin, err := proxy.AdminDB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	via, err := proxy.DB("app")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { via.Close() })

	// Discovered: both replicas, online, from SHOW REPLICAS alone.
	waitServers(t, ctx, admin, 10*time.Second, "the replicas discovered", func(rows []map[string]string) bool {
		return len(rows) == 3 && stateOf(rows, addr(r2)) == "online" && stateOf(rows, addr(r3)) == "online"
	})
	found := time.Since(started)
	var names []string
	for _, r := range showServers(t, ctx, admin) {
		names = append(names, r["server"]+" "+r["role"])
	}
	sort.Strings(names)
	if want := []string{addr(primary) + " primary", addr(r2) + " replica", addr(r3) + " replica"}; strings.Join(names, ",") != strings.Join(sortedCopy(want), ",") {
		t.Fatalf("SHOW SERVERS lists %v, want %v", names, want)
	}
	if ids := sessionIDs(t, ctx, via, 8, "SELECT @@server_id"); ids[1] != 0 || ids[2] == 0 || ids[3] == 0 {
		t.Fatalf("reads ran on %v, want both discovered replicas only", ids)
	}

	// A replica killed: drained within 2 s; restarted: serving within
	// 2 s of answering again.
	if err := r3.Kill(); err != nil {
		t.Fatal(err)
	}
	drained := waitServers(t, ctx, admin, 10*time.Second, "replica 3 drained", func(rows []map[string]string) bool {
		return stateOf(rows, addr(r3)) == "down"
	})
	if ids := serverIDs(t, ctx, via, 6, "SELECT @@server_id"); ids[2] != 6 {
		t.Fatalf("with replica 3 dead, reads ran on %v", ids)
	}
	if err := r3.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	back := waitServers(t, ctx, admin, 10*time.Second, "replica 3 back", func(rows []map[string]string) bool {
		return stateOf(rows, addr(r3)) == "online"
	})

	// A replica made read-write (still replicating) is noticed, and
	// still serves reads.
	writableOf := func(rows []map[string]string, a string) string {
		for _, r := range rows {
			if r["server"] == a {
				return r["writable"]
			}
		}
		return ""
	}
	if w := writableOf(showServers(t, ctx, admin), addr(r3)); w != "false" {
		t.Fatalf("replica 3 (super_read_only) shows writable %q", w)
	}
	mustExec(t, ctx, rep3, "SET GLOBAL super_read_only = OFF", "SET GLOBAL read_only = OFF")
	readWrite := waitServers(t, ctx, admin, 10*time.Second, "replica 3 read-write", func(rows []map[string]string) bool {
		return writableOf(rows, addr(r3)) == "true" && stateOf(rows, addr(r3)) == "online"
	})
	if rows := showServers(t, ctx, admin); rows[0]["server"] != addr(primary) {
		t.Fatalf("a read-write replica that still replicates moved the primary: %v", rows)
	}

	// A switchover: the primary read-only, replica 2 caught up, stopped
	// and writable. The next writes land on replica 2, within 2 s.
	// Replica 3 read-only again first: stopped for repointing below, a
	// writable server that replicates from nothing is a primary
	// candidate too, and the proxy could pick it in that window.
	mustExec(t, ctx, rep3, "SET GLOBAL super_read_only = ON")
	mustExec(t, ctx, via, "INSERT INTO t VALUES (2, 20)")
	waitCaughtUp(t, ctx, src, rep2, 20*time.Second)
	waitCaughtUp(t, ctx, src, rep3, 20*time.Second)
	mustExec(t, ctx, src, "SET GLOBAL super_read_only = ON")
	mustExec(t, ctx, rep2, "STOP REPLICA", "SET GLOBAL super_read_only = OFF", "SET GLOBAL read_only = OFF")
	switched := time.Now()
	mustExec(t, ctx, rep3, "STOP REPLICA")
	pointAt(t, ctx, rep3, r2.Port(), "")
	var werr error
	for time.Since(switched) < 10*time.Second {
		if _, werr = via.ExecContext(ctx, "INSERT INTO t VALUES (3, 30)"); werr == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if werr != nil {
		t.Fatalf("no write through the proxy within 10 s of the switchover: %v", werr)
	}
	moved := time.Since(switched)
	if n := queryInt(t, ctx, rep2, "SELECT COUNT(*) FROM app.t WHERE id = 3"); n != 1 {
		t.Fatalf("the write after the switchover is not on replica 2 (%d rows)", n)
	}
	if n := queryInt(t, ctx, src, "SELECT COUNT(*) FROM app.t WHERE id = 3"); n != 0 {
		t.Fatalf("the write after the switchover is on the old primary")
	}
	if rows := showServers(t, ctx, admin); rows[0]["server"] != addr(r2) || rows[0]["role"] != "primary" {
		t.Fatalf("SHOW SERVERS after the switchover: %v", rows)
	}
	for what, d := range map[string]time.Duration{"drain of a killed replica": drained, "return of a restarted replica": back,
		"replica made read-write": readWrite, "switchover": moved} {
		if d > 2*time.Second {
			t.Errorf("%s noticed after %v, want within 2 s", what, d)
		}
	}
	t.Logf("replicas discovered %v after the proxy's start; killed replica drained after %v, restarted one serving after %v, one made read-write seen after %v; writes on the promoted replica %v after the switchover",
		found.Round(time.Millisecond), drained.Round(time.Millisecond), back.Round(time.Millisecond), readWrite.Round(time.Millisecond), moved.Round(time.Millisecond))
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// TestProxyBackendTLS: with --backend-ssl required every backend
// connection of the proxy is TLS (Ssl_cipher on the replica a read runs
// on and on the primary a transaction runs on), checks included (the
// replica serves), and a caching_sha2_password account whose password
// the backends never saw logs in through it (full authentication, the
// password sent in clear inside TLS).
func TestProxyBackendTLS(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	primary := startPetrel(t, ctx, lab.PetrelOptions{ServerID: 1})
	r2 := startReplicaServer(t, ctx, 2, nil)
	src, rep2 := rootDB(t, primary, ""), rootDB(t, r2, "")
	createReplUser(t, ctx, src)
	mustExec(t, ctx, src, "CREATE DATABASE app", "CREATE TABLE app.t (id BIGINT PRIMARY KEY)", "INSERT INTO app.t VALUES (1)",
		"CREATE USER 'sha2'@'%' IDENTIFIED WITH caching_sha2_password BY 'sha2-pw'", "GRANT SELECT ON app.* TO 'sha2'@'%'")
	pointAt(t, ctx, rep2, primary.Port(), "")
	waitCaughtUp(t, ctx, src, rep2, 20*time.Second)
	proxy, err := lab.StartProxy(ctx, lab.ProxyOptions{Primary: primary.Port(), Replicas: []int{r2.Port()}, RootPassword: rootPassword,
		ExtraArgs: []string{"--check-interval", "200ms", "--backend-ssl", "required"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := proxy.Stop(sctx); err != nil {
			t.Errorf("stop proxy: %v", err)
		}
	})
	admin, err := proxy.AdminDB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	waitServers(t, ctx, admin, 10*time.Second, "the replica online over TLS checks", func(rows []map[string]string) bool {
		return len(rows) == 2 && rows[1]["state"] == "online"
	})
	via, err := proxy.DB("app")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { via.Close() })
	var id int64
	var name, cipher string
	if err := via.QueryRowContext(ctx, "SELECT @@server_id, (SELECT COUNT(*) FROM t)").Scan(&id, new(int64)); err != nil || id != 2 {
		t.Fatalf("a read ran on server %d (%v), want the replica", id, err)
	}
	if err := via.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil || cipher == "" {
		t.Fatalf("the replica connection's Ssl_cipher is %q (%v), want a cipher", cipher, err)
	}
	tx, err := via.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRowContext(ctx, "SELECT @@server_id").Scan(&id); err != nil || id != 1 {
		t.Fatalf("a transaction's read ran on server %d (%v), want the primary", id, err)
	}
	if err := tx.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil || cipher == "" {
		t.Fatalf("the primary connection's Ssl_cipher is %q (%v), want a cipher", cipher, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	cfg := clientConfig(t, primary, "sha2", "sha2-pw", "app")
	cfg.Addr = fmt.Sprintf("127.0.0.1:%d", proxy.Port())
	sha2 := openConfig(t, cfg)
	var who string
	if err := sha2.QueryRowContext(ctx, "SELECT @@server_id, CURRENT_USER()").Scan(&id, &who); err != nil || who != "sha2@%" || id != 2 {
		t.Fatalf("caching_sha2_password through a TLS-only proxy: server %d, user %q, %v", id, who, err)
	}
	wantErrNo(t, "sha2 with a wrong password", func() error {
		cfg := clientConfig(t, primary, "sha2", "nope", "app")
		cfg.Addr = fmt.Sprintf("127.0.0.1:%d", proxy.Port())
		return openConfig(t, cfg).PingContext(ctx)
	}(), 1045)
}

// TestProxyManyClients: N client sessions logged in through the proxy at
// once (1000; PETREL_PROXY_CLIENTS=10000 for the figure), each
// having read through it, share the backends' capped connections; the
// session past --max-clients gets 1040; the proxy stays up and answers
// once they leave.
func TestProxyManyClients(t *testing.T) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("PETREL_PROXY_CLIENTS")); err == nil && v > 0 {
		n = v
	}
	ctx := testContext(t, 2*time.Minute+time.Duration(n)*20*time.Millisecond)
	primary := startPetrel(t, ctx, lab.PetrelOptions{ServerID: 1})
	r2 := startReplicaServer(t, ctx, 2, nil)
	src, rep2 := rootDB(t, primary, ""), rootDB(t, r2, "")
	createReplUser(t, ctx, src)
	mustExec(t, ctx, src, "CREATE DATABASE app", "CREATE TABLE app.t (id BIGINT PRIMARY KEY)", "INSERT INTO app.t VALUES (1)")
	pointAt(t, ctx, rep2, primary.Port(), "")
	waitCaughtUp(t, ctx, src, rep2, 20*time.Second)
	proxy, err := lab.StartProxy(ctx, lab.ProxyOptions{Primary: primary.Port(), Replicas: []int{r2.Port()}, RootPassword: rootPassword,
		// One more than n: the test's own first session (the proxy's
		// readiness check's is gone by then).
		ExtraArgs: []string{"--check-interval", "200ms", "--max-clients", strconv.Itoa(n + 1), "--max-connections-per-backend", "20"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := proxy.Stop(sctx); err != nil {
			t.Errorf("stop proxy: %v", err)
		}
	})
	via, err := proxy.DB("app")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { via.Close() })
	via.SetMaxIdleConns(n + 1)
	// The admin connection first: the admin port counts toward
	// --max-clients too.
	admin, err := proxy.AdminDB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	adminConn := conn(t, ctx, admin)
	waitServers(t, ctx, adminConn, 10*time.Second, "the replica online", func(rows []map[string]string) bool {
		return len(rows) == 2 && rows[1]["state"] == "online"
	})
	// The backends' own count of their connections, before and with
	// the sessions open (the counting connections are in both).
	onReplica, onPrimary := conn(t, ctx, rep2), conn(t, ctx, src)
	backendConns := func() (int64, int64) {
		const q = "SELECT COUNT(*) FROM information_schema.processlist"
		return queryInt(t, ctx, onReplica, q), queryInt(t, ctx, onPrimary, q)
	}
	replicaBefore, primaryBefore := backendConns()
	conns := make([]*sql.Conn, n)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c, err := via.Conn(ctx)
				if err != nil {
					errs <- fmt.Errorf("session %d: %w", i, err)
					return
				}
				conns[i] = c
				var id int64
				if err := c.QueryRowContext(ctx, "SELECT @@server_id FROM t WHERE id = 1").Scan(&id); err != nil || id != 2 {
					errs <- fmt.Errorf("session %d read on server %d: %v", i, id, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	opened := time.Since(start)
	// Full: one more is refused with 1040.
	cfg := clientConfig(t, primary, "root", rootPassword, "app")
	cfg.Addr = fmt.Sprintf("127.0.0.1:%d", proxy.Port())
	wantErrNo(t, "a session past --max-clients", openConfig(t, cfg).PingContext(ctx), 1040)
	total := 0
	for _, r := range showServers(t, ctx, adminConn) {
		c, _ := strconv.Atoi(r["connections"])
		total += c
	}
	if total > 40 {
		t.Fatalf("%d client sessions hold %d backend connections (cap 20 per backend)", n, total)
	}
	// As the backends count them: at most the cap (20) more than before
	// the sessions, plus the monitor's two should it have opened them
	// meanwhile.
	replicaWith, primaryWith := backendConns()
	if replicaWith-replicaBefore > 22 || primaryWith-primaryBefore > 22 {
		t.Fatalf("%d client sessions: the replica has %d connections (%d before them), the primary %d (%d before); want at most 22 more on each",
			n, replicaWith, replicaBefore, primaryWith, primaryBefore)
	}
	for _, c := range conns {
		c.Close()
	}
	via.Close() // closes the sessions (Conn.Close kept them idle)
	// Every session gone, the proxy answers.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var id int64
		err := openConfig(t, cfg).QueryRowContext(ctx, "SELECT @@server_id FROM t WHERE id = 1").Scan(&id)
		if err == nil && id == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d sessions left the proxy does not answer: %v", n, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d sessions logged in and read through the proxy in %v over %d backend connections (the replica counted %d, %d before them)",
		n, opened.Round(time.Millisecond), total, replicaWith, replicaBefore)
}
