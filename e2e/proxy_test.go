package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

// proxyCluster is a primary (server_id 1), two replicas (2 and 3) and a
// `petrel proxy` in front of them. Replica 2 reads its source through
// repLink (to delay its replication); the proxy reaches replica 3
// through proxyLink (to black-hole its checks and reads).
type proxyCluster struct {
	primary, r2, r3      *lab.Petrel
	repLink, proxyLink   *lab.Link
	proxy                *lab.Proxy
	src, rep2, rep3, via *sql.DB
	admin                *sql.DB
}

func startProxyCluster(t *testing.T, ctx context.Context) *proxyCluster {
	t.Helper()
	pc := &proxyCluster{}
	pc.primary = startPetrel(t, ctx, lab.PetrelOptions{ServerID: 1})
	pc.r2 = startReplicaServer(t, ctx, 2, nil)
	pc.r3 = startReplicaServer(t, ctx, 3, nil)
	pc.src, pc.rep2, pc.rep3 = rootDB(t, pc.primary, ""), rootDB(t, pc.r2, ""), rootDB(t, pc.r3, "")
	createReplUser(t, ctx, pc.src)
	mustExec(t, ctx, pc.src, "CREATE DATABASE app", "CREATE TABLE app.t (id BIGINT PRIMARY KEY, v INT)",
		"INSERT INTO app.t VALUES (1, 10), (2, 20), (3, 30)")
	var err error
	if pc.repLink, err = lab.StartLink(fmt.Sprintf("127.0.0.1:%d", pc.primary.Port())); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.repLink.Close() })
	if pc.proxyLink, err = lab.StartLink(fmt.Sprintf("127.0.0.1:%d", pc.r3.Port())); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.proxyLink.Close() })
	pointAt(t, ctx, pc.rep2, pc.repLink.Port(), "")
	pointAt(t, ctx, pc.rep3, pc.primary.Port(), "")
	waitCaughtUp(t, ctx, pc.src, pc.rep2, 20*time.Second)
	waitCaughtUp(t, ctx, pc.src, pc.rep3, 20*time.Second)
	cnf := filepath.Join(t.TempDir(), "proxy.cnf")
	if err := os.WriteFile(cnf, []byte("[proxy]\nmax-connections-per-backend = 20\nmax_allowed_packet = 1048576\nread_your_writes_timeout = 2s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pc.proxy, err = lab.StartProxy(ctx, lab.ProxyOptions{
		Primary: pc.primary.Port(), Replicas: []int{pc.r2.Port(), pc.proxyLink.Port()}, RootPassword: rootPassword,
		// Some settings by flag, some from the option file (the pooling
		// and bad-input subtests fail on the defaults: 100 connections
		// per backend, 64 MiB packets).
		ExtraArgs: []string{"--check-interval", "200ms", "--check-timeout", "300ms", "--recover-checks", "2",
			"--max-replication-lag", "1s", "--log-level", "debug", "--config", cnf},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := pc.proxy.Stop(sctx); err != nil {
			t.Errorf("stop proxy: %v", err)
		}
		if t.Failed() {
			t.Logf("proxy log (tail):\n%s", tail(pc.proxy.Log(), 16<<10))
		}
	})
	via, err := pc.proxy.DB("app")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { via.Close() })
	pc.via = via
	admin, err := pc.proxy.AdminDB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	pc.admin = admin
	pc.waitStates(t, ctx, "online", "online")
	return pc
}

// servers reads SHOW SERVERS: server -> column -> value.
func (pc *proxyCluster) servers(t *testing.T, ctx context.Context) []map[string]string {
	t.Helper()
	out := showServers(t, ctx, pc.admin)
	if len(out) != 3 {
		t.Fatalf("SHOW SERVERS: %d rows, want 3: %v", len(out), out)
	}
	return out
}

// showServers reads a proxy's SHOW SERVERS: a row per backend, primary
// first, each column -> value.
func showServers(t *testing.T, ctx context.Context, admin querier) []map[string]string {
	t.Helper()
	rows, err := admin.QueryContext(ctx, "SHOW SERVERS")
	if err != nil {
		t.Fatalf("SHOW SERVERS: %v", err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []map[string]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for i, c := range cols {
			m[c] = "NULL"
			if vals[i].Valid {
				m[c] = vals[i].String
			}
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitStates waits until replicas 2 and 3 show the given states, and
// returns how long it took.
func (pc *proxyCluster) waitStates(t *testing.T, ctx context.Context, r2, r3 string) time.Duration {
	t.Helper()
	start := time.Now()
	var got []map[string]string
	for time.Since(start) < 10*time.Second && ctx.Err() == nil {
		got = pc.servers(t, ctx)
		if got[1]["state"] == r2 && got[2]["state"] == r3 {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("replica states did not become %s, %s within 10s: %v", r2, r3, got)
	return 0
}

// serverIDs runs n autocommit reads of @@server_id through q and counts
// the answers by server id.
func serverIDs(t *testing.T, ctx context.Context, q querier, n int, query string) map[int64]int {
	t.Helper()
	ids := map[int64]int{}
	for range n {
		ids[queryInt(t, ctx, q, query)]++
	}
	return ids
}

// sessionIDs runs one read on each of n sessions of their own (n
// connections of db held at once: new sessions spread over the
// replicas, while one session's reads stay on its replica) and counts
// the answers by server id.
func sessionIDs(t *testing.T, ctx context.Context, db *sql.DB, n int, query string) map[int64]int {
	t.Helper()
	var conns []*sql.Conn
	for range n {
		conns = append(conns, conn(t, ctx, db))
	}
	ids := map[int64]int{}
	for _, c := range conns {
		ids[queryInt(t, ctx, c, query)]++
	}
	for _, c := range conns {
		c.Close()
	}
	return ids
}

// TestProxy drives `petrel proxy` in front of real Petrel processes with
// go-sql-driver: where each statement runs is read from the answer
// itself (@@server_id of the backend that ran it).
func TestProxy(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	pc := startProxyCluster(t, ctx)

	t.Run("routing", func(t *testing.T) {
		fresh, err := pc.proxy.DB("app")
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		ids := sessionIDs(t, ctx, fresh, 8, "SELECT @@server_id")
		if ids[1] != 0 || ids[2] == 0 || ids[3] == 0 {
			t.Fatalf("the first reads of 8 sessions by server id %v: want only the replicas 2 and 3, both", ids)
		}
		// One session's reads stay on one replica (monotonic reads).
		if ids := serverIDs(t, ctx, conn(t, ctx, fresh), 10, "SELECT @@server_id"); len(ids) != 1 || ids[1] != 0 {
			t.Fatalf("one session's reads ran on %v: want one replica", ids)
		}
		if got := serverIDs(t, ctx, pc.via, 5, "SELECT /* petrel_read=primary */ @@server_id"); got[1] != 5 {
			t.Fatalf("reads hinted to the primary ran on %v", got)
		}
		// A write lands on the primary.
		mustExec(t, ctx, pc.via, "INSERT INTO t VALUES (100, 1000)")
		if v := queryInt(t, ctx, pc.src, "SELECT v FROM app.t WHERE id = 100"); v != 1000 {
			t.Fatalf("the primary has v=%d for the proxy's insert", v)
		}
		// A transaction's reads run on the primary, in the transaction.
		tx, err := pc.via.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (101, 1010)"); err != nil {
			t.Fatal(err)
		}
		var id, seen int64
		if err := tx.QueryRowContext(ctx, "SELECT @@server_id, (SELECT COUNT(*) FROM t WHERE id = 101)").Scan(&id, &seen); err != nil {
			t.Fatal(err)
		}
		if id != 1 || seen != 1 {
			t.Fatalf("in a transaction a read ran on server %d and saw %d of its own rows", id, seen)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if n := queryInt(t, ctx, pc.src, "SELECT COUNT(*) FROM app.t WHERE id = 101"); n != 0 {
			t.Fatalf("a rolled-back insert is on the primary (%d rows)", n)
		}
		// After the transaction the session's reads go back to replicas.
		c := conn(t, ctx, pc.via)
		mustExec(t, ctx, c, "BEGIN", "COMMIT")
		if got := serverIDs(t, ctx, c, 6, "SELECT @@server_id"); got[1] != 0 {
			t.Fatalf("reads after COMMIT ran on %v", got)
		}
		c.Close()
		// SELECT LAST_INSERT_ID() is the session's, whichever pooled
		// connection ran its insert; it does not pin the session.
		mustExec(t, ctx, pc.src, "CREATE TABLE app.auto (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT)", "INSERT INTO app.auto (v) VALUES (1), (2), (3)")
		c2 := conn(t, ctx, pc.via)
		res, err := c2.ExecContext(ctx, "INSERT INTO auto (v) VALUES (4)")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := res.LastInsertId()
		if got := queryInt(t, ctx, c2, "SELECT LAST_INSERT_ID()"); got != want || want != 4 {
			t.Fatalf("SELECT LAST_INSERT_ID() through the proxy: %d, the insert's OK packet said %d (want 4)", got, want)
		}
		if got := serverIDs(t, ctx, c2, 4, "SELECT @@server_id"); got[1] != 0 {
			t.Fatalf("after SELECT LAST_INSERT_ID() reads ran on %v", got)
		}
		c2.Close()
		// Session state pins the session to the primary (a session of
		// its own: a pinned one must not go back to via's pool).
		pinned, err := pc.proxy.DB("app")
		if err != nil {
			t.Fatal(err)
		}
		defer pinned.Close()
		c = conn(t, ctx, pinned)
		mustExec(t, ctx, c, "SET @x = 42")
		var x int64
		if err := c.QueryRowContext(ctx, "SELECT @@server_id, @x").Scan(&id, &x); err != nil {
			t.Fatal(err)
		}
		if id != 1 || x != 42 {
			t.Fatalf("after SET @x a read ran on server %d and saw @x=%d", id, x)
		}
		// A missing database and a bad password get MySQL's errors.
		_, err = pinned.ExecContext(ctx, "USE nosuchdb")
		wantErrNo(t, "USE nosuchdb", err, 1049)
		cfg := clientConfig(t, pc.primary, "root", "wrong", "")
		cfg.Addr = fmt.Sprintf("127.0.0.1:%d", pc.proxy.Port())
		bad := openConfig(t, cfg)
		wantErrNo(t, "wrong password", bad.PingContext(ctx), 1045)
	})

	t.Run("accounts", func(t *testing.T) {
		// Clients log in with the backends' accounts, of either method;
		// the proxy logs in to every backend as them.
		mustExec(t, ctx, pc.src,
			"CREATE USER 'sha2'@'%' IDENTIFIED BY 'sha2-pw'", "GRANT SELECT, INSERT ON app.* TO 'sha2'@'%'",
			"CREATE USER 'native'@'%' IDENTIFIED WITH mysql_native_password BY 'native-pw'", "GRANT SELECT ON app.* TO 'native'@'%'")
		waitCaughtUp(t, ctx, pc.src, pc.rep2, 10*time.Second)
		waitCaughtUp(t, ctx, pc.src, pc.rep3, 10*time.Second)
		open := func(user, pw string) *sql.DB {
			cfg := clientConfig(t, pc.primary, user, pw, "app")
			cfg.Addr = fmt.Sprintf("127.0.0.1:%d", pc.proxy.Port())
			return openConfig(t, cfg)
		}
		for _, u := range []struct{ user, pw string }{{"sha2", "sha2-pw"}, {"native", "native-pw"}} {
			// Twice each: the second sha2 login takes the fast path.
			for range 2 {
				db := open(u.user, u.pw)
				ids := serverIDs(t, ctx, db, 6, "SELECT @@server_id")
				if ids[1] != 0 || len(ids) == 0 {
					t.Fatalf("%s: reads ran on %v", u.user, ids)
				}
				var who string
				if err := db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&who); err != nil || who != u.user+"@%" {
					t.Fatalf("%s: CURRENT_USER() on the backend is %q (%v)", u.user, who, err)
				}
				db.Close()
			}
			wantErrNo(t, u.user+" with a wrong password", open(u.user, "nope").PingContext(ctx), 1045)
		}
		// A client's character set is its backend connections' own.
		for _, coll := range []string{"latin1_swedish_ci", "utf8mb4_general_ci"} {
			cfg := clientConfig(t, pc.primary, "root", rootPassword, "app")
			cfg.Addr = fmt.Sprintf("127.0.0.1:%d", pc.proxy.Port())
			cfg.Collation = coll
			db := openConfig(t, cfg)
			for range 4 {
				var id int64
				var cs string
				if err := db.QueryRowContext(ctx, "SELECT @@server_id, @@character_set_client").Scan(&id, &cs); err != nil {
					t.Fatal(err)
				}
				if id == 1 || !strings.HasPrefix(coll, cs+"_") {
					t.Fatalf("a %s client read character_set_client %q on server %d", coll, cs, id)
				}
			}
			db.Close()
		}
		// Over TLS (the proxy's self-signed certificate), a
		// caching_sha2_password login sends its password in clear.
		mustExec(t, ctx, pc.src, "CREATE USER 'sha2tls'@'%' IDENTIFIED BY 'tls-pw'", "GRANT SELECT ON app.* TO 'sha2tls'@'%'")
		waitCaughtUp(t, ctx, pc.src, pc.rep2, 10*time.Second)
		waitCaughtUp(t, ctx, pc.src, pc.rep3, 10*time.Second)
		for _, u := range []struct{ user, pw string }{{"sha2tls", "tls-pw"}, {"native", "native-pw"}} {
			cfg := clientConfig(t, pc.primary, u.user, u.pw, "app")
			cfg.Addr = fmt.Sprintf("127.0.0.1:%d", pc.proxy.Port())
			cfg.TLSConfig = "skip-verify"
			db := openConfig(t, cfg)
			var who string
			var id int64
			if err := db.QueryRowContext(ctx, "SELECT @@server_id, CURRENT_USER()").Scan(&id, &who); err != nil || id == 1 || who != u.user+"@%" {
				t.Fatalf("%s over TLS: server %d, user %q, %v", u.user, id, who, err)
			}
			db.Close()
		}
		// Privileges are the backend's: native may not write.
		_, err := open("native", "native-pw").ExecContext(ctx, "INSERT INTO t VALUES (900, 1)")
		wantErrNo(t, "INSERT without the privilege", err, 1142)
		wantErrNo(t, "an unknown user", open("nobody", "x").PingContext(ctx), 1045)
	})

	t.Run("prepared", func(t *testing.T) {
		sel, err := pc.via.PrepareContext(ctx, "SELECT @@server_id, v FROM t WHERE id = ?")
		if err != nil {
			t.Fatal(err)
		}
		defer sel.Close()
		ids := map[int64]int{}
		for i := range 20 {
			key := int64(i%3 + 1)
			var id, v int64
			if err := sel.QueryRowContext(ctx, key).Scan(&id, &v); err != nil {
				t.Fatal(err)
			}
			if v != key*10 {
				t.Fatalf("prepared read of id %d: v=%d", key, v)
			}
			ids[id]++
		}
		if ids[1] != 0 || ids[2]+ids[3] != 20 {
			t.Fatalf("prepared reads by server id %v: want replicas only", ids)
		}
		ins, err := pc.via.PrepareContext(ctx, "INSERT INTO t VALUES (?, ?)")
		if err != nil {
			t.Fatal(err)
		}
		defer ins.Close()
		for i := int64(200); i < 210; i++ {
			if _, err := ins.ExecContext(ctx, i, i*10); err != nil {
				t.Fatal(err)
			}
		}
		if n := queryInt(t, ctx, pc.src, "SELECT COUNT(*) FROM app.t WHERE id BETWEEN 200 AND 209 AND v = id * 10"); n != 10 {
			t.Fatalf("the primary has %d of the 10 prepared inserts", n)
		}
	})

	t.Run("pooling", func(t *testing.T) {
		// 300 client connections held open at once, each running a read
		// and a write at the same time, share at most 20 connections per
		// backend (--max-connections-per-backend): the others wait.
		db, err := pc.proxy.DB("app")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxIdleConns(300)
		var conns []*sql.Conn
		for range 300 {
			conns = append(conns, conn(t, ctx, db))
		}
		var wg sync.WaitGroup
		errs := make(chan error, len(conns))
		for i, c := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var v int64
				if err := c.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v); err != nil || v != 10 {
					errs <- fmt.Errorf("read: v=%d, %v", v, err)
				}
				if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (?, 0)", 1000+i); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		total := 0
		for _, s := range pc.servers(t, ctx) {
			var n int
			fmt.Sscan(s["connections"], &n)
			total += n
		}
		if total > 60 {
			t.Fatalf("300 client connections hold %d backend connections", total)
		}
		t.Logf("300 client connections, %d backend connections", total)
		for _, c := range conns {
			c.Close()
		}
		if n := queryInt(t, ctx, pc.src, "SELECT COUNT(*) FROM app.t WHERE id BETWEEN 1000 AND 1299"); n != 300 {
			t.Fatalf("the primary has %d of the 300 inserts", n)
		}
	})

	t.Run("replication stopped", func(t *testing.T) {
		// Its lag reads NULL: unknown, so infinite; no reads, within the
		// 2 s the issue allows.
		mustExec(t, ctx, pc.rep2, "STOP REPLICA")
		if d := pc.waitStates(t, ctx, "unknown", "online"); d > 2*time.Second {
			t.Errorf("replica 2 drained %v after STOP REPLICA", d)
		}
		if ids := serverIDs(t, ctx, pc.via, 20, "SELECT @@server_id"); ids[3] != 20 {
			t.Fatalf("with replica 2 stopped, reads ran on %v", ids)
		}
		mustExec(t, ctx, pc.rep3, "STOP REPLICA")
		pc.waitStates(t, ctx, "unknown", "unknown")
		if ids := serverIDs(t, ctx, pc.via, 10, "SELECT @@server_id"); ids[1] != 10 {
			t.Fatalf("with both replicas stopped, reads ran on %v", ids)
		}
		mustExec(t, ctx, pc.rep2, "START REPLICA")
		mustExec(t, ctx, pc.rep3, "START REPLICA")
		pc.waitStates(t, ctx, "online", "online")
		fresh, err := pc.proxy.DB("app")
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		if ids := sessionIDs(t, ctx, fresh, 8, "SELECT @@server_id"); ids[1] != 0 || ids[2] == 0 || ids[3] == 0 {
			t.Fatalf("after START REPLICA, new sessions read on %v", ids)
		}
	})

	t.Run("black hole", func(t *testing.T) {
		// The proxy's link to replica 3 delivers nothing while reads are
		// in flight on both replicas: its checks time out, it is drained
		// within two checks, and the reads stuck on it are cut and
		// retried on the primary instead of waiting out their deadline.
		type answer struct {
			id  int64
			err error
		}
		answers := make(chan answer, 4)
		// Four new sessions: two start on each replica.
		fresh, err := pc.proxy.DB("app")
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		var conns []*sql.Conn
		for range 4 {
			conns = append(conns, conn(t, ctx, fresh))
		}
		start := time.Now()
		for _, c := range conns {
			go func() {
				var id, slept int64
				err := c.QueryRowContext(ctx, "SELECT @@server_id, SLEEP(1)").Scan(&id, &slept)
				answers <- answer{id, err}
			}()
		}
		time.Sleep(200 * time.Millisecond)
		pc.proxyLink.BlackHole(true)
		if d := pc.waitStates(t, ctx, "online", "down"); d > 2*time.Second {
			t.Errorf("replica 3 drained %v after the black hole", d)
		}
		ids := map[int64]int{}
		for range 4 {
			select {
			case a := <-answers:
				if a.err != nil {
					t.Fatalf("a read in flight during the black hole failed: %v", a.err)
				}
				ids[a.id]++
			case <-time.After(10 * time.Second):
				t.Fatalf("reads in flight on the black-holed replica still waiting after %v (answers so far %v)", time.Since(start), ids)
			}
		}
		if ids[3] != 0 || ids[1] == 0 {
			t.Fatalf("reads in flight answered by %v: want none by 3 and the retried ones by the primary", ids)
		}
		t.Logf("4 reads in flight through the black hole answered by %v in %v", ids, time.Since(start))
		if ids := serverIDs(t, ctx, pc.via, 20, "SELECT @@server_id"); ids[2] != 20 {
			t.Fatalf("with replica 3 black-holed, reads ran on %v", ids)
		}
		pc.proxyLink.BlackHole(false)
		pc.waitStates(t, ctx, "online", "online")
	})

	t.Run("read your writes", func(t *testing.T) {
		// Replica 2 hears its source 150 ms late: within the lag bound,
		// so it serves reads, which miss a session's fresh write unless
		// the session reads its writes (the default mode).
		pc.repLink.SetLatency(150 * time.Millisecond)
		defer pc.repLink.SetLatency(0)
		run := func(mode string, n int, base int64) (misses int, ids map[int64]int) {
			c := conn(t, ctx, pc.via)
			defer c.Close()
			mustExec(t, ctx, c, "SET petrel_read_mode = '"+mode+"'")
			ids = map[int64]int{}
			for i := int64(0); i < int64(n); i++ {
				if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (?, 7)", base+i); err != nil {
					t.Fatal(err)
				}
				var id, seen int64
				if err := c.QueryRowContext(ctx, "SELECT @@server_id, COUNT(*) FROM t WHERE id = ?", base+i).Scan(&id, &seen); err != nil {
					t.Fatal(err)
				}
				ids[id]++
				if seen != 1 {
					misses++
				}
			}
			return misses, ids
		}
		// Any-lag reads spread over both replicas read by read.
		misses, ids := run("any", 20, 5000)
		if misses == 0 {
			t.Fatalf("any-lag reads right after each write never missed it (by server %v): the delayed replica does not show", ids)
		}
		t.Logf("any: %d of 20 reads missed the session's own write (by server %v)", misses, ids)
		misses, ids = run("read-your-writes", 30, 6000)
		if misses != 0 {
			t.Fatalf("read-your-writes: %d of 30 reads missed the session's own write (by server %v)", misses, ids)
		}
		if ids[2]+ids[3] == 0 {
			t.Fatalf("read-your-writes reads all went to the primary (%v): no replica served one", ids)
		}
		t.Logf("read-your-writes: 0 of 30 reads missed (by server %v)", ids)
		// The proxy's log has a line for every state change.
		if log := pc.proxy.Log(); !strings.Contains(log, `to=unknown reason="lag unknown (NULL)"`) || !strings.Contains(log, "to=down") {
			t.Fatalf("the proxy's log lacks the state changes:\n%s", tail(log, 4<<10))
		}
	})

	t.Run("monotonic", func(t *testing.T) {
		// A session that read a row on replica 3 never reads a state
		// without it: when replica 3 is drained, its reads move to
		// replica 2 (600 ms behind) only once replica 2 has everything
		// the primary had at the move.
		pc.repLink.SetLatency(600 * time.Millisecond)
		defer pc.repLink.SetLatency(0)
		fresh, err := pc.proxy.DB("app")
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		var c *sql.Conn
		for range 10 {
			// A session whose reads are on replica 3.
			c = conn(t, ctx, fresh)
			mustExec(t, ctx, c, "SET petrel_read_mode = 'bounded'")
			if queryInt(t, ctx, c, "SELECT @@server_id") == 3 {
				break
			}
		}
		if queryInt(t, ctx, c, "SELECT @@server_id") != 3 {
			t.Fatal("no session of 10 started on replica 3")
		}
		mustExec(t, ctx, pc.src, "INSERT INTO app.t VALUES (8000, 8)")
		deadline := time.Now().Add(5 * time.Second)
		for queryInt(t, ctx, c, "SELECT COUNT(*) FROM t WHERE id = 8000") != 1 {
			if time.Now().After(deadline) {
				t.Fatal("replica 3 never showed the row")
			}
			time.Sleep(5 * time.Millisecond)
		}
		mustExec(t, ctx, pc.rep3, "STOP REPLICA")
		defer mustExec(t, ctx, pc.rep3, "START REPLICA")
		pc.waitStates(t, ctx, "online", "unknown")
		var id, n int64
		if err := c.QueryRowContext(ctx, "SELECT @@server_id, COUNT(*) FROM t WHERE id = 8000").Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("after its replica was drained, the session read on server %d a state without the row it had read", id)
		}
		t.Logf("moved to server %d, which had the row", id)
	})

	t.Run("bad input", func(t *testing.T) {
		c := conn(t, ctx, pc.via)
		big := "SELECT '" + strings.Repeat("x", 2<<20) + "'"
		_, err := c.ExecContext(ctx, big)
		wantErrNo(t, "a 2 MiB query past --max-allowed-packet 1 MiB", err, 1153)
		// A statement the parser does not know goes to the primary and
		// would pin the session; refused there, it changed nothing, and
		// the session's reads go back to the replicas. (The proxy closed
		// the connection that sent too large a packet, as MySQL does.)
		c = conn(t, ctx, pc.via)
		_, err = c.ExecContext(ctx, "SELEC 1")
		wantErrNo(t, "a syntax error", err, 1064)
		if ids := serverIDs(t, ctx, c, 4, "SELECT @@server_id"); ids[1] != 0 {
			t.Fatalf("after a syntax error, reads ran on %v", ids)
		}
		// go-sql-driver does not ask for several statements per query.
		_, err = pc.via.ExecContext(ctx, "INSERT INTO t VALUES (950, 1); INSERT INTO t VALUES (951, 1)")
		wantErrNo(t, "two statements without CLIENT_MULTI_STATEMENTS", err, 1064)
		if n := queryInt(t, ctx, pc.src, "SELECT COUNT(*) FROM app.t WHERE id IN (950, 951)"); n != 0 {
			t.Fatalf("a refused multi-statement query inserted %d rows", n)
		}
		// The proxy answers the rest.
		if n := queryInt(t, ctx, pc.via, "SELECT COUNT(*) FROM t WHERE id <= 3"); n != 3 {
			t.Fatalf("after bad input: %d rows", n)
		}
	})

	t.Run("replica killed", func(t *testing.T) {
		// Reads keep coming while replica 2 dies: a read that failed
		// before any of its answer went out is retried on the primary,
		// so no client sees an error; within 2 s replica 2 is drained.
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var mu sync.Mutex
		var errs []error
		reads := 0
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 100000; i++ {
					select {
					case <-stop:
						return
					default:
					}
					var v int64
					err := pc.via.QueryRowContext(ctx, "SELECT v FROM t WHERE id = 2").Scan(&v)
					mu.Lock()
					reads++
					if err == nil && v != 20 {
						err = fmt.Errorf("v=%d", v)
					}
					if err != nil {
						errs = append(errs, err)
					}
					mu.Unlock()
				}
			}()
		}
		time.Sleep(300 * time.Millisecond)
		if err := pc.r2.Kill(); err != nil {
			t.Fatal(err)
		}
		d := pc.waitStates(t, ctx, "down", "online")
		time.Sleep(300 * time.Millisecond)
		close(stop)
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("%d of %d reads failed while a replica died, first: %v", len(errs), reads, errs[0])
		}
		if d > 2*time.Second {
			t.Errorf("replica 2 drained %v after it was killed", d)
		}
		if ids := serverIDs(t, ctx, pc.via, 10, "SELECT @@server_id"); ids[3] != 10 {
			t.Fatalf("with replica 2 dead, reads ran on %v", ids)
		}
		t.Logf("%d reads while replica 2 died, none failed; drained after %v", reads, d)
	})

	t.Run("promotion", func(t *testing.T) {
		// The primary dies and replica 3 is promoted (its replication
		// stopped, writable): the proxy follows within a few checks,
		// without a restart, and the clients' new statements write there.
		if err := pc.primary.Kill(); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		mustExec(t, ctx, pc.rep3, "STOP REPLICA")
		deadline := time.Now().Add(10 * time.Second)
		var err error
		for time.Now().Before(deadline) {
			if _, err = pc.via.ExecContext(ctx, "INSERT INTO t VALUES (7000, 7)"); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("no write through the proxy within 10 s of the promotion: %v", err)
		}
		took := time.Since(killed)
		if n := queryInt(t, ctx, pc.rep3, "SELECT COUNT(*) FROM app.t WHERE id = 7000"); n != 1 {
			t.Fatalf("the write after the promotion is not on replica 3 (%d rows)", n)
		}
		if ids := serverIDs(t, ctx, pc.via, 5, "SELECT /* petrel_read=primary */ @@server_id"); ids[3] != 5 {
			t.Fatalf("after the promotion the primary's reads ran on %v", ids)
		}
		rows := pc.servers(t, ctx)
		if rows[0]["server"] != fmt.Sprintf("127.0.0.1:%d", pc.proxyLink.Port()) || rows[0]["role"] != "primary" {
			t.Fatalf("SHOW SERVERS after the promotion: %v", rows)
		}
		if log := pc.proxy.Log(); !strings.Contains(log, "promoted to primary") {
			t.Fatalf("the proxy's log lacks the promotion:\n%s", tail(log, 4<<10))
		}
		t.Logf("first write through the proxy on the promoted replica %v after the primary died", took)
	})
}
