package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"petrel/lab"
)

// TestReplicationFollowsSource: a replica configured with CHANGE
// REPLICATION SOURCE TO follows DDL and DML of every kind, ends with the
// same rows and the same gtid_executed, reports itself in SHOW REPLICA
// STATUS / SHOW SLAVE STATUS and on the source in SHOW REPLICAS, refuses
// client writes under super_read_only while still applying, and resumes
// after a restart.
func TestReplicationFollowsSource(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	rep := startReplicaServer(t, ctx, 2, nil)
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUser(t, ctx, sdb)
	mustExec(t, ctx, sdb,
		"CREATE DATABASE app",
		"CREATE TABLE app.t (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(40), amount DECIMAL(10,2), at DATETIME(3), doc JSON, KEY k_name (name))",
		"INSERT INTO app.t (name, amount, at, doc) VALUES ('a', 1.50, '2026-01-02 03:04:05.678', '{\"x\": 1}'), ('b', NULL, NULL, NULL), ('c', -3.25, '1999-12-31 23:59:59.999', '[1,2]')")
	pointAt(t, ctx, rdb, src.Port(), "")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	sameTable(t, ctx, sdb, rdb, "app.t", "id")

	// An idle source sends heartbeats (every replica_net_timeout/2 = 1 s):
	// the link stays up and the lag stays a known 0.
	time.Sleep(2500 * time.Millisecond)
	if hb := globalStatus(t, ctx, rdb, "Replica_received_heartbeats"); hb < 1 {
		t.Errorf("Replica_received_heartbeats = %d after 2.5 s idle, want >= 1", hb)
	}
	if lag := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")["Seconds_Behind_Source"]; lag != "0" {
		t.Errorf("idle, heartbeats flowing: Seconds_Behind_Source = %s, want 0", lag)
	}
	// slave_net_timeout is replica_net_timeout's other name.
	mustExec(t, ctx, rdb, "SET GLOBAL slave_net_timeout = 7")
	if v := queryInt(t, ctx, rdb, "SELECT @@GLOBAL.replica_net_timeout"); v != 7 {
		t.Errorf("after SET GLOBAL slave_net_timeout = 7: replica_net_timeout = %d", v)
	}
	mustExec(t, ctx, rdb, "SET GLOBAL replica_net_timeout = 2")
	if v := queryInt(t, ctx, rdb, "SELECT @@GLOBAL.slave_net_timeout"); v != 2 {
		t.Errorf("after SET GLOBAL replica_net_timeout = 2: slave_net_timeout = %d", v)
	}

	mustExec(t, ctx, sdb,
		"UPDATE app.t SET amount = amount * 2 WHERE name IN ('a', 'c')",
		"DELETE FROM app.t WHERE name = 'b'",
		"ALTER TABLE app.t ADD COLUMN note TEXT",
		"INSERT INTO app.t (name, note) VALUES ('d', 'after alter')",
		"CREATE TABLE app.nopk (a INT, b VARCHAR(10))",
		"INSERT INTO app.nopk VALUES (1, 'x'), (1, 'x'), (2, NULL)")
	tx, err := sdb.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if _, err := tx.ExecContext(ctx, "INSERT INTO app.t (name, amount) VALUES (?, ?)", fmt.Sprintf("bulk%d", i), i); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	gtids := waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	if n := sameTable(t, ctx, sdb, rdb, "app.t", "id"); n != 53 {
		t.Errorf("app.t has %d rows, want 53", n)
	}
	sameTable(t, ctx, sdb, rdb, "app.nopk", "a, b")

	st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
	for k, want := range map[string]string{
		"Replica_IO_Running": "Yes", "Replica_SQL_Running": "Yes", "Source_Host": "127.0.0.1",
		"Source_Port": fmt.Sprint(src.Port()), "Auto_Position": "1", "Last_IO_Errno": "0", "Last_SQL_Errno": "0",
		"Executed_Gtid_Set": gtids, "Retrieved_Gtid_Set": gtids, "Seconds_Behind_Source": "0", "Source_Server_Id": "1",
	} {
		if st[k] != want {
			t.Errorf("SHOW REPLICA STATUS %s = %q, want %q", k, st[k], want)
		}
	}
	legacy := replicaStatus(t, ctx, rdb, "SHOW SLAVE STATUS")
	if legacy["Slave_IO_Running"] != "Yes" || legacy["Seconds_Behind_Master"] != "0" || legacy["Master_Port"] != fmt.Sprint(src.Port()) {
		t.Errorf("SHOW SLAVE STATUS: Slave_IO_Running=%q Seconds_Behind_Master=%q Master_Port=%q",
			legacy["Slave_IO_Running"], legacy["Seconds_Behind_Master"], legacy["Master_Port"])
	}
	var sid, host, port, srcID, uuid string
	if err := sdb.QueryRowContext(ctx, "SHOW REPLICAS").Scan(&sid, &host, &port, &srcID, &uuid); err != nil {
		t.Fatalf("SHOW REPLICAS: %v", err)
	}
	if sid != "2" || srcID != "1" || uuid != queryString(t, ctx, rdb, "SELECT @@server_uuid") {
		t.Errorf("SHOW REPLICAS: server_id %s source_id %s uuid %s", sid, srcID, uuid)
	}

	// super_read_only stops clients, not the applier.
	mustExec(t, ctx, rdb, "SET GLOBAL super_read_only = ON")
	_, err = rdb.ExecContext(ctx, "INSERT INTO app.t (name) VALUES ('client write')")
	wantErrNo(t, "client write on a super_read_only replica", err, erOptionPreventsStmt)
	mustExec(t, ctx, sdb, "INSERT INTO app.t (name) VALUES ('e')", "CREATE TABLE app.later (id INT PRIMARY KEY)")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	sameTable(t, ctx, sdb, rdb, "app.t", "id")

	// STOP/START and a replica restart resume at the next GTID.
	mustExec(t, ctx, rdb, "STOP REPLICA")
	if st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS"); st["Replica_IO_Running"] != "No" || st["Seconds_Behind_Source"] != "NULL" {
		t.Errorf("after STOP REPLICA: IO=%q lag=%q, want No and NULL", st["Replica_IO_Running"], st["Seconds_Behind_Source"])
	}
	mustExec(t, ctx, sdb, "INSERT INTO app.later VALUES (1), (2)")
	mustExec(t, ctx, rdb, "START REPLICA")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	if err := rep.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, sdb, "INSERT INTO app.later VALUES (3)")
	rdb = rootDB(t, rep, "")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	if n := sameTable(t, ctx, sdb, rdb, "app.later", "id"); n != 3 {
		t.Errorf("app.later has %d rows, want 3", n)
	}
}

// TestReplicaKill9MidApply kills the replica with SIGKILL while it applies
// a concurrent insert load, several times: it must come back by itself
// (replication starts at boot), with no transaction lost or applied twice.
func TestReplicaKill9MidApply(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	_, rep, sdb, rdb := replicatingPair(t, ctx, "CREATE DATABASE k", "CREATE TABLE k.t (id BIGINT PRIMARY KEY, w INT NOT NULL, n INT NOT NULL)")

	load := startInsertLoad(ctx, sdb, "k.t", 8, 0)
	for i := 0; i < 4; i++ {
		time.Sleep(time.Duration(300+200*i) * time.Millisecond)
		if err := rep.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := rep.Restart(ctx); err != nil {
			t.Fatalf("restart %d: %v\n%s", i, err, tail(rep.Log(), 4096))
		}
	}
	acked := load.finish()
	rdb = rootDB(t, rep, "")
	waitCaughtUp(t, ctx, sdb, rdb, 60*time.Second)
	n := sameTable(t, ctx, sdb, rdb, "k.t", "id")
	if n < len(acked) || len(acked) == 0 {
		t.Fatalf("source has %d rows, %d acknowledged", n, len(acked))
	}
	// GTIDs: one per acknowledged insert, no gaps, none twice (the replica's
	// set equals the source's, which is contiguous).
	t.Logf("%d rows replicated across 4 replica kills", n)
}

// TestReplicaReappliesWhatItsBinlogLost: replicated commits skip the
// replica's binlog fsync (the relay log, fsynced on receipt, holds them),
// so an operating-system crash of the replica may cut its binlog back to
// the last sync. Simulated here: kill -9, then the binlog truncated to
// where it was last synced (the end of the last DDL, which flushed
// storage and so synced the binlog). The restarted replica re-applies
// from its relay log every transaction its binlog lost.
func TestReplicaReappliesWhatItsBinlogLost(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	_, rep, sdb, rdb := replicatingPair(t, ctx, "CREATE DATABASE lost", "CREATE TABLE lost.t (id INT PRIMARY KEY, v VARCHAR(20))")
	binFile, synced := binlogPosition(t, ctx, rdb)
	if binFile == "" || synced <= 4 {
		t.Fatalf("replica binlog status %q:%d", binFile, synced)
	}
	groups0, commits0 := globalStatus(t, ctx, rdb, "Binlog_group_commits"), globalStatus(t, ctx, rdb, "Binlog_commits")
	const n = 200
	for i := 1; i <= n; i++ {
		mustExec(t, ctx, sdb, fmt.Sprintf("INSERT INTO lost.t VALUES (%d, 'row %d')", i, i))
	}
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	groups, commits := globalStatus(t, ctx, rdb, "Binlog_group_commits")-groups0, globalStatus(t, ctx, rdb, "Binlog_commits")-commits0
	if commits != n || groups > 5 {
		t.Fatalf("replica: %d binlog fsync groups for %d applied commits (want %d commits, at most 5 groups: replicated commits skip the fsync)", groups, commits, n)
	}
	if err := rep.Kill(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(rep.Datadir(), "binlog", binFile)
	if err := os.Truncate(path, synced); err != nil {
		t.Fatal(err)
	}
	if err := rep.Restart(ctx); err != nil {
		t.Fatalf("restart: %v\n%s", err, tail(rep.Log(), 4096))
	}
	rdb = rootDB(t, rep, "")
	waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
	if got := sameTable(t, ctx, sdb, rdb, "lost.t", "id"); got != n {
		t.Fatalf("replica has %d rows after losing its binlog tail, want %d", got, n)
	}
	if s, r := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed"), queryString(t, ctx, rdb, "SELECT @@GLOBAL.gtid_executed"); s != r {
		t.Fatalf("gtid_executed differs: source %s, replica %s", s, r)
	}
}

// TestReplicationBadInput: wrong credentials and a missing privilege show a
// clear Last_IO_Error while the receiver keeps retrying; a replica that
// needs purged transactions gets 1236 and stops (no retry storm).
func TestReplicationBadInput(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	createReplUser(t, ctx, sdb)
	mustExec(t, ctx, sdb, "CREATE USER 'nopriv'@'%' IDENTIFIED BY 'pw'")

	rep := startReplicaServer(t, ctx, 2, nil)
	rdb := rootDB(t, rep, "")
	waitIOError := func(wantErrno string) map[string]string {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		var st map[string]string
		for time.Now().Before(deadline) {
			st = replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
			if st["Last_IO_Errno"] == wantErrno {
				return st
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("Last_IO_Errno = %q (%q), want %s", st["Last_IO_Errno"], st["Last_IO_Error"], wantErrno)
		return nil
	}
	mustExec(t, ctx, rdb, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='repl', MASTER_PASSWORD='wrong', MASTER_AUTO_POSITION=1, MASTER_CONNECT_RETRY=1", src.Port()), "START SLAVE")
	st := waitIOError("1045")
	if st["Replica_IO_Running"] != "Connecting" || st["Seconds_Behind_Source"] != "NULL" {
		t.Errorf("wrong password: IO=%q lag=%q, want Connecting and NULL", st["Replica_IO_Running"], st["Seconds_Behind_Source"])
	}
	_, err := rdb.ExecContext(ctx, "CHANGE REPLICATION SOURCE TO SOURCE_USER='nopriv'")
	wantErrNo(t, "CHANGE REPLICATION SOURCE while running", err, 1198)
	mustExec(t, ctx, rdb, "STOP REPLICA", "CHANGE REPLICATION SOURCE TO SOURCE_USER='nopriv', SOURCE_PASSWORD='pw'", "START REPLICA")
	st = waitIOError("1045")
	if st["Last_IO_Error"] == "" {
		t.Error("missing privilege: empty Last_IO_Error")
	}
	t.Logf("missing privilege: %s", st["Last_IO_Error"])
	_, err = rdb.ExecContext(ctx, "CHANGE REPLICATION SOURCE TO SOURCE_BOGUS=1")
	wantErrNo(t, "unknown option", err, 1198)
	mustExec(t, ctx, rdb, "STOP REPLICA")
	_, err = rdb.ExecContext(ctx, "CHANGE REPLICATION SOURCE TO SOURCE_BOGUS=1")
	wantErrNo(t, "unknown option", err, 1210)
	_, err = rdb.ExecContext(ctx, "CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE='binlog.000001'")
	wantErrNo(t, "SOURCE_LOG_FILE with SOURCE_AUTO_POSITION=1", err, 1776)
	_, err = rdb.ExecContext(ctx, "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION=0, RELAY_LOG_POS=4")
	wantErrNo(t, "RELAY_LOG_POS", err, 1210)

	// Purged transactions: the source rotates and purges its first file.
	mustExec(t, ctx, sdb, "CREATE DATABASE p", "CREATE TABLE p.t (id INT PRIMARY KEY)", "INSERT INTO p.t VALUES (1)", "FLUSH BINARY LOGS")
	cur := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed")
	file, _ := binlogPosition(t, ctx, sdb)
	mustExec(t, ctx, sdb, fmt.Sprintf("PURGE BINARY LOGS TO '%s'", file))
	if got := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_purged"); got != cur {
		t.Fatalf("gtid_purged = %q, want %q", got, cur)
	}
	mustExec(t, ctx, rdb, "RESET REPLICA ALL")
	pointAt(t, ctx, rdb, src.Port(), "")
	st = waitIOError("13114")
	if st["Replica_IO_Running"] != "No" {
		t.Errorf("after 1236: Replica_IO_Running = %q, want No", st["Replica_IO_Running"])
	}
	connects := globalStatus(t, ctx, rdb, "Replica_connects")
	time.Sleep(2500 * time.Millisecond)
	if again := globalStatus(t, ctx, rdb, "Replica_connects"); again != connects {
		t.Errorf("receiver reconnected after a fatal 1236: %d -> %d connects", connects, again)
	}
	t.Logf("purged: %s", st["Last_IO_Error"])
}

var _ = context.Background
