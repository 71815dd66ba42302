package e2e

import (
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// TestClusterProxySites: `petrel cluster --sites 1 --proxy` runs a proxy
// per site. Each reads on its own site's replica first; site 1's relay is
// killed -9 under reads and writes: its replica fails over to the primary
// and, measured within the lag bound again, serves site 1's reads again,
// while no read fails and none goes to the primary (the other site's
// replica serves while the site's own is drained).
func TestClusterProxySites(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// node1 primary (server_id 1), node2 its replica (2); node3 site 1's
	// relay (3), node4 site 1's replica (4); the proxies: site 0's on
	// base+5 (admin base+4), site 1's on base+7 (admin base+6).
	base := freePortRun(t, 8)
	c := startClusterArgs(t, ctx, bin, t.TempDir(), base, 6, "--replicas", "1", "--sites", "1", "--replicas-per-site", "1",
		"--proxy", "--proxy-port", fmt.Sprint(base+5))
	open := func(port int, db string) querier {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "root", rootPassword, "tcp", fmt.Sprintf("127.0.0.1:%d", port), db
		cfg.Logger = &mysql.NopLogger{}
		cfg.Timeout = 5 * time.Second
		return openConfig(t, cfg)
	}
	p0, site1Replica := open(base+5, ""), open(base+3, "")
	mustExec(t, ctx, p0, "CREATE DATABASE s", "CREATE TABLE s.t (id INT PRIMARY KEY)", "INSERT INTO s.t VALUES (0)")
	p0, p1 := open(base+5, "s"), open(base+7, "s")
	admin1 := open(base+6, "")
	// Each proxy reads on its site's replica once both are measured.
	for _, tc := range []struct {
		via  querier
		want int64
	}{{p0, 2}, {p1, 4}} {
		deadline := time.Now().Add(30 * time.Second)
		for {
			ids := serverIDs(t, ctx, tc.via, 5, "SELECT @@server_id")
			if ids[tc.want] == 5 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("reads ran on %v, want server %d's only", ids, tc.want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	rows := showServers(t, ctx, admin1)
	if len(rows) != 3 || rows[1]["site"] != "0" || rows[2]["site"] != "1" || rows[2]["server"] != fmt.Sprintf("127.0.0.1:%d", base+3) {
		t.Fatalf("site 1's proxy: SHOW SERVERS %v", rows)
	}

	// Writes through site 0's proxy and reads through site 1's while the
	// relay dies.
	var wrote atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	ids := map[int64]int{}
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := int64(1); i < 100000; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := p0.ExecContext(ctx, "INSERT INTO t VALUES (?)", i); err != nil {
				fail(fmt.Errorf("write %d: %w", i, err))
				return
			}
			wrote.Store(i)
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 1000000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			var id, n int64
			if err := p1.QueryRowContext(ctx, "SELECT @@server_id, COUNT(*) FROM t").Scan(&id, &n); err != nil {
				fail(fmt.Errorf("read: %w", err))
				return
			}
			mu.Lock()
			ids[id]++
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
		}
	}()
	time.Sleep(500 * time.Millisecond)
	if err := syscall.Kill(c.pid(t, "node3"), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	deadline := time.Now().Add(30 * time.Second)
	for replicaStatus(t, ctx, site1Replica, "SHOW REPLICA STATUS")["Source_Port"] != fmt.Sprint(base) {
		if time.Now().After(deadline) {
			t.Fatal("site 1's replica did not fail over to the primary after its relay's kill -9")
		}
		time.Sleep(20 * time.Millisecond)
	}
	failedOver := time.Since(killed)
	// Back on its own site's replica, now fed by the primary.
	mu.Lock()
	before := ids[4]
	mu.Unlock()
	deadline = time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := ids[4]
		mu.Unlock()
		if n >= before+50 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("site 1's reads did not return to its replica after the failover: %v", ids)
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d statements failed while site 1's relay died, first: %v", len(errs), errs[0])
	}
	if ids[1] != 0 || ids[3] != 0 {
		t.Fatalf("site 1's reads ran on %v: never on the primary (1) or the relay (3)", ids)
	}
	// The site's replica has every write.
	want := wrote.Load() + 1
	deadline = time.Now().Add(20 * time.Second)
	for queryInt(t, ctx, site1Replica, "SELECT COUNT(*) FROM s.t") != want {
		if time.Now().After(deadline) {
			t.Fatalf("site 1's replica has %d rows, want %d", queryInt(t, ctx, site1Replica, "SELECT COUNT(*) FROM s.t"), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("site 1's replica on the primary %v after its relay's kill -9; site 1's reads by server: %v; %d writes", failedOver.Round(time.Millisecond), ids, want-1)
	c.cmd.Process.Signal(syscall.SIGINT)
	if err := c.wait(t, time.Minute); err != nil {
		t.Errorf("petrel cluster after Ctrl-C: %v", err)
	}
}
