package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestSeedSemiSyncTutorial walks the seeds' "Establish Semi-Synchronous
// Replication" tutorial (shared/seeds/001) step by step against two
// Petrel servers, with the mariadb CLI and mariadb-slap, my.cnf files
// under [mysqld] as the tutorial writes them, and checks each step's
// "After this step is completed" list. One deviation: the fallback step
// lowers rpl_semi_sync_master_timeout to 2 s to keep the suite short.
func TestSeedSemiSyncTutorial(t *testing.T) {
	slap := requireTool(t, "mariadb-slap", "/usr/bin/mariadb-slap")
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx := testContext(t, 3*time.Minute)
	dir := t.TempDir()
	cnf := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	masterCnf := cnf("master.cnf", "[mysqld]\nrelay_log = mysql-relay-bin\nlog_slave_updates = 1\nlog_bin = mysql-bin\nserver_id = 10\n")
	slaveCnf := cnf("slave.cnf", "[mysqld]\nrelay_log = mysql-relay-bin\nlog_slave_updates = 1\nlog_bin = mysql-bin\nserver_id = 20\nreplica_net_timeout = 2\n")
	master := startPetrel(t, ctx, lab.PetrelOptions{ServerID: 10, ExtraArgs: []string{"--config", masterCnf}})
	slave := startPetrel(t, ctx, lab.PetrelOptions{ServerID: 20, ExtraArgs: []string{"--config", slaveCnf}})
	cli := func(p *lab.Petrel, q string) string {
		t.Helper()
		out, err := lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "", q)
		if err != nil {
			t.Fatalf("mariadb -e %q: %v", q, err)
		}
		return out
	}
	status := func(p *lab.Petrel, name string) string {
		t.Helper()
		for _, l := range lines(cli(p, fmt.Sprintf("SHOW STATUS LIKE '%s'", name))) {
			if f := strings.Split(l, "\t"); len(f) == 2 && strings.EqualFold(f[0], name) {
				return f[1]
			}
		}
		t.Fatalf("SHOW STATUS has no %s", name)
		return ""
	}
	waitStatus := func(p *lab.Petrel, name, want string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for status(p, name) != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s stayed %s, want %s", name, status(p, name), want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	// Replication established (the tutorial's previous procedure).
	cli(master, fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'; GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'", replUser, replPassword, replUser))
	cli(master, "CREATE DATABASE important; CREATE TABLE important.stuff (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, details VARCHAR(255), happened TIMESTAMP DEFAULT CURRENT_TIMESTAMP)")
	cli(slave, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_AUTO_POSITION=1; START SLAVE", master.Port(), replUser, replPassword))
	waitCaughtUp(t, ctx, rootDB(t, master, ""), rootDB(t, slave, ""), 20*time.Second)

	// Step 1: an insert on the master reaches the slave within 1 second.
	cli(master, "insert into important.stuff set details = 'Replicating Master to Slave'")
	deadline := time.Now().Add(time.Second)
	for !strings.Contains(cli(slave, "select * from important.stuff order by id desc limit 1"), "Replicating Master to Slave") {
		if time.Now().After(deadline) {
			t.Fatal("step 1: the row did not reach the slave within 1 second")
		}
		time.Sleep(50 * time.Millisecond)
	}

	runSlap := func(what string) {
		t.Helper()
		out, err := runTool(ctx, 2*time.Minute, slap, "--no-defaults", "--protocol=TCP", "-h", "127.0.0.1", "-P", strconv.Itoa(master.Port()),
			"-u", "root", "--password="+rootPassword, "--skip-ssl", "--auto-generate-sql", "--concurrency=10", "--number-of-queries=1000")
		if err != nil || !strings.Contains(out, "Average number of seconds to run all queries") {
			t.Fatalf("mysqlslap (%s): %v\n%s", what, err, out)
		}
		for _, l := range lines(out) {
			if strings.Contains(l, "Average number of seconds") {
				t.Logf("mysqlslap %s: %s", what, strings.TrimSpace(l))
			}
		}
	}
	// Step 2: a performance baseline.
	runSlap("baseline (async)")

	// Step 3: the master's plugin, my.cnf and restart.
	cli(master, "INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'")
	masterCnf = cnf("master.cnf", "[mysqld]\nrpl_semi_sync_master_enabled = 1\nrelay_log = mysql-relay-bin\nlog_slave_updates = 1\nlog_bin = mysql-bin\nserver_id = 10\n")
	if err := master.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cli(master, "SHOW PLUGINS"), "rpl_semi_sync_master") {
		t.Error("step 3: SHOW PLUGINS lacks rpl_semi_sync_master")
	}
	vars := cli(master, `SHOW VARIABLES LIKE "Rpl_semi_sync_master_%"`)
	for _, want := range []string{"rpl_semi_sync_master_enabled\tON", "rpl_semi_sync_master_timeout\t10000", "rpl_semi_sync_master_trace_level\t32", "rpl_semi_sync_master_wait_no_slave\tON"} {
		if !strings.Contains(vars, want) {
			t.Errorf("step 3: SHOW VARIABLES lacks %q:\n%s", want, vars)
		}
	}
	if s := status(master, "Rpl_semi_sync_master_status"); s != "ON" {
		t.Errorf("step 3: Rpl_semi_sync_master_status = %s", s)
	}

	// Step 4: the slave's plugin, my.cnf and restart.
	cli(slave, "INSTALL PLUGIN rpl_semi_sync_slave SONAME 'semisync_slave.so'")
	cnf("slave.cnf", "[mysqld]\nrpl_semi_sync_slave_enabled = 1\nrelay_log = mysql-relay-bin\nlog_slave_updates = 1\nlog_bin = mysql-bin\nserver_id = 20\nreplica_net_timeout = 2\n")
	if err := slave.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cli(slave, `SHOW VARIABLES LIKE "Rpl_semi_sync_slave_%"`), "rpl_semi_sync_slave_enabled\tON") {
		t.Error("step 4: rpl_semi_sync_slave_enabled is not ON")
	}
	waitStatus(slave, "Rpl_semi_sync_slave_status", "ON")

	// Step 5: one semi-sync client; an insert increments yes_tx.
	waitStatus(master, "Rpl_semi_sync_master_clients", "1")
	yes, _ := strconv.Atoi(status(master, "Rpl_semi_sync_master_yes_tx"))
	cli(master, `insert into important.stuff set details="Inserted semi-synchronously"`)
	if got, _ := strconv.Atoi(status(master, "Rpl_semi_sync_master_yes_tx")); got != yes+1 {
		t.Errorf("step 5: yes_tx %d -> %d, want +1", yes, got)
	}

	// Step 6: fallback to asynchronous with the slave down.
	cli(master, "SET GLOBAL rpl_semi_sync_master_timeout = 2000")
	if err := slave.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cli(master, "insert into important.stuff set details = 'Fail from Semi to Asynchronous'")
	if d := time.Since(start); d < 1900*time.Millisecond {
		t.Errorf("step 6: the first insert took %v, less than the timeout", d)
	}
	noTx, _ := strconv.Atoi(status(master, "Rpl_semi_sync_master_no_tx"))
	start = time.Now()
	cli(master, `insert into important.stuff set details="Insert me asynchronously"`)
	if d := time.Since(start); d > time.Second {
		t.Errorf("step 6: the asynchronous insert took %v", d)
	}
	if got, _ := strconv.Atoi(status(master, "Rpl_semi_sync_master_no_tx")); got != noTx+1 {
		t.Errorf("step 6: no_tx %d -> %d, want +1", noTx, got)
	}
	waitStatus(master, "Rpl_semi_sync_master_clients", "0")
	if s := status(master, "Rpl_semi_sync_master_status"); s != "OFF" {
		t.Errorf("step 6: status %s, want OFF", s)
	}

	// Step 7: the slave back: semi-sync re-established by itself.
	if err := slave.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	waitStatus(master, "Rpl_semi_sync_master_clients", "1")
	waitStatus(master, "Rpl_semi_sync_master_status", "ON")
	yes, _ = strconv.Atoi(status(master, "Rpl_semi_sync_master_yes_tx"))
	cli(master, `insert into important.stuff set details="semi-sync again"`)
	if got, _ := strconv.Atoi(status(master, "Rpl_semi_sync_master_yes_tx")); got != yes+1 {
		t.Errorf("step 7: yes_tx %d -> %d, want +1", yes, got)
	}

	// Step 8: mysqlslap with semi-sync on.
	runSlap("semi-sync")
	sdb, rdb := rootDB(t, master, ""), rootDB(t, slave, "")
	waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
	sameTable(t, ctx, sdb, rdb, "important.stuff", "id")
}
