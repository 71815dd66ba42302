package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// TestClusterNodeCannotStart: a relay whose binary log is damaged cannot
// start; `petrel cluster` on the directory still starts the others (the
// banner names the node that failed), retries the relay with backoff,
// and the cluster serves: a write on the primary reaches the replica
// beside it and the site's replica, which fails over to the primary.
func TestClusterNodeCannotStart(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 4)
	args := []string{"--replicas", "1", "--sites", "1", "--replicas-per-site", "1"}
	c := startClusterArgs(t, ctx, bin, dir, base, 4, args...)
	p := clusterNode(t, base)
	mustExec(t, ctx, p, "CREATE DATABASE cs", "CREATE TABLE cs.t (id INT PRIMARY KEY, v VARCHAR(200))")
	for i := 0; i < 50; i++ {
		mustExec(t, ctx, p, fmt.Sprintf("INSERT INTO cs.t VALUES (%d, REPEAT('x', 150))", i))
	}
	site := clusterNode(t, base+3)
	waitCaughtUp(t, ctx, p, site, 30*time.Second)
	c.cmd.Process.Signal(syscall.SIGINT)
	if err := c.wait(t, time.Minute); err != nil {
		t.Fatalf("petrel cluster after Ctrl-C: %v", err)
	}
	for i := 0; i < 4; i++ {
		portClosed(t, base+i, 10*time.Second)
	}
	// Damage the relay's (node3) binary log in the middle.
	f := filepath.Join(dir, "node3", "binlog", "binlog.000001")
	b, err := os.ReadFile(f)
	if err != nil || len(b) < 4000 {
		t.Fatalf("relay binlog: %d bytes, %v", len(b), err)
	}
	// One byte inside a row image (the 'x's of a row in the middle): the
	// event's checksum fails and valid events follow, which is
	// corruption, not a torn tail.
	at := strings.Index(string(b[len(b)/2:]), strings.Repeat("x", 100))
	if at < 0 {
		t.Fatal("no row image found in the relay's binlog")
	}
	b[len(b)/2+at+50] = 'y'
	if err := os.WriteFile(f, b, 0o640); err != nil {
		t.Fatal(err)
	}
	// And its tail ring, which would repair it.
	if err := os.Remove(filepath.Join(dir, "node3", "binlog", "binlog.tail")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}

	c = startClusterArgs(t, ctx, bin, dir, base, 4, args...)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(c.stderr.String(), `msg="cluster: node failed to start; the others run without it, it is retried" node=node3`) {
		if time.Now().After(deadline) {
			t.Fatalf("the relay's failure is not logged:\n%s", c.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p, rep := clusterNode(t, base), clusterNode(t, base+1)
	mustExec(t, ctx, p, "INSERT INTO cs.t VALUES (1000, 'after')")
	waitCaughtUp(t, ctx, p, rep, 30*time.Second)
	waitCaughtUp(t, ctx, p, site, 30*time.Second)
	if n := queryInt(t, ctx, site, "SELECT COUNT(*) FROM cs.t"); n != 51 {
		t.Fatalf("the site replica has %d of 51 rows", n)
	}
	if st := replicaStatus(t, ctx, site, "SHOW REPLICA STATUS"); st["Source_Port"] != fmt.Sprint(base) {
		t.Errorf("the site replica reads from port %s, want the primary's %d (its relay is down)", st["Source_Port"], base)
	}
	if !strings.Contains(c.stderr.String(), `msg="cluster: node exited; restarting it" node=node3`) {
		t.Errorf("the relay is not retried:\n%s", c.stderr)
	}
}

// TestClusterRelayAccounts: a relay applies the account statements it
// relays (as MySQL's blackhole relay does) and nothing else: the
// cluster's replication account and an account created on the primary
// log in to the relay, GRANT and DROP USER follow, the relay still holds
// no table, and its accounts survive its kill -9 and restart.
func TestClusterRelayAccounts(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 3)
	c := startClusterArgs(t, ctx, bin, dir, base, 3, "--sites", "1", "--replicas-per-site", "1")
	p, relay := clusterNode(t, base), clusterNode(t, base+1)
	mustExec(t, ctx, p, "CREATE DATABASE ra", "CREATE TABLE ra.t (id INT PRIMARY KEY)", "INSERT INTO ra.t VALUES (1)",
		"CREATE USER 'app'@'%' IDENTIFIED BY 'app-pw'", "GRANT SELECT ON ra.* TO 'app'@'%'",
		"CREATE USER 'gone'@'%' IDENTIFIED BY 'gone-pw'", "DROP USER 'gone'@'%'")
	waitCaughtUp(t, ctx, p, relay, 30*time.Second)
	login := func(user, pw string) error {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, pw, "tcp", fmt.Sprintf("127.0.0.1:%d", base+1)
		cfg.Logger = &mysql.NopLogger{}
		cfg.Timeout = 5 * time.Second
		db := openConfig(t, cfg)
		defer db.Close()
		return db.PingContext(ctx)
	}
	st, err := os.ReadFile(filepath.Join(dir, "cluster.json"))
	if err != nil {
		t.Fatal(err)
	}
	var acct struct {
		User     string `json:"repl_user"`
		Password string `json:"repl_password"`
	}
	if err := json.Unmarshal(st, &acct); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		if err := login(acct.User, acct.Password); err != nil {
			t.Errorf("%s: the replication account cannot log in to the relay: %v", when, err)
		}
		if err := login("app", "app-pw"); err != nil {
			t.Errorf("%s: an account created on the primary cannot log in to the relay: %v", when, err)
		}
		if err := login("gone", "gone-pw"); errNo(err) != 1045 {
			t.Errorf("%s: a dropped account logs in to the relay: %v", when, err)
		}
		var grants []string
		rows, err := relay.QueryContext(ctx, "SHOW GRANTS FOR 'app'@'%'")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var g string
			rows.Scan(&g)
			grants = append(grants, g)
		}
		rows.Close()
		if got := strings.Join(grants, "; "); !strings.Contains(got, "GRANT SELECT ON `ra`.* TO `app`@`%`") {
			t.Errorf("%s: the relay's grants for app: %s", when, got)
		}
		if n := queryInt(t, ctx, relay, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'ra'"); n != 0 {
			t.Errorf("%s: the relay holds %d tables of ra: it applies account statements only", when, n)
		}
	}
	// The relay applies a statement just after logging it: give the last
	// one (DROP USER) a moment.
	for end := time.Now().Add(5 * time.Second); login("gone", "gone-pw") == nil && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	check("relayed")
	old := c.pid(t, "node2")
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c.pid(t, "node2") != old && relay.PingContext(ctx) == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay was not restarted:\n%s", c.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	check("after the relay's restart")
}
