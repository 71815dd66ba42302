package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// waitPositionsAt waits until the replica's SHOW REPLICA STATUS positions
// (received and executed) equal the source's SHOW MASTER STATUS, with both
// threads running, and returns the status.
func waitPositionsAt(t *testing.T, ctx context.Context, sdb, rdb *sql.DB, within time.Duration) map[string]string {
	t.Helper()
	deadline := time.Now().Add(within)
	var st map[string]string
	var file string
	var pos int64
	for time.Now().Before(deadline) && ctx.Err() == nil {
		file, pos = binlogPosition(t, ctx, sdb)
		st = replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
		p := fmt.Sprint(pos)
		if st["Source_Log_File"] == file && st["Read_Source_Log_Pos"] == p && st["Relay_Source_Log_File"] == file && st["Exec_Source_Log_Pos"] == p &&
			st["Replica_IO_Running"] == "Yes" && st["Replica_SQL_Running"] == "Yes" {
			return st
		}
		if st["Replica_SQL_Running"] == "No" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("replica positions read %s:%s exec %s:%s, source at %s:%d; IO=%s SQL=%s io_err=%q sql_err=%q",
		st["Source_Log_File"], st["Read_Source_Log_Pos"], st["Relay_Source_Log_File"], st["Exec_Source_Log_Pos"], file, pos,
		st["Replica_IO_Running"], st["Replica_SQL_Running"], st["Last_IO_Error"], st["Last_SQL_Error"])
	return nil
}

// TestFilePositionReplication: a Petrel replica configured with
// SOURCE_AUTO_POSITION=0 at a file and position receives exactly the
// transactions after it, across source binlog rotations, a kill -9 of
// the replica and a kill -9 of the source under a write load, with no gap
// and no duplicate (rows, checksums, GTID sets); SHOW REPLICA STATUS
// matches SHOW MASTER STATUS when caught up, with Auto_Position 0, then 1
// after switching to GTID auto-positioning, then 0 again.
func TestFilePositionReplication(t *testing.T) {
	ctx := testContext(t, 5*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	rep := startReplicaServer(t, ctx, 2, nil)
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUser(t, ctx, sdb)
	// The schema exists on both (as if restored from a backup); the rows
	// before the position stay on the source only.
	schema := []string{"CREATE DATABASE fp", "CREATE TABLE fp.t (id BIGINT PRIMARY KEY, w INT NOT NULL, n INT NOT NULL)"}
	mustExec(t, ctx, sdb, schema...)
	mustExec(t, ctx, rdb, schema...)
	for i := 1; i <= 100; i++ {
		mustExec(t, ctx, sdb, fmt.Sprintf("INSERT INTO fp.t VALUES (%d, 0, %d)", i, i))
	}
	uuid := queryString(t, ctx, sdb, "SELECT @@GLOBAL.server_uuid")
	file, pos := binlogPosition(t, ctx, sdb)
	firstGNO := gnoOf(t, queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed"), uuid) + 1
	for i := 101; i <= 150; i++ {
		mustExec(t, ctx, sdb, fmt.Sprintf("INSERT INTO fp.t VALUES (%d, 0, %d)", i, i))
	}
	mustExec(t, ctx, sdb, "FLUSH BINARY LOGS")
	for i := 151; i <= 200; i++ {
		mustExec(t, ctx, sdb, fmt.Sprintf("INSERT INTO fp.t VALUES (%d, 0, %d)", i, i))
	}

	// The MASTER_ spellings; auto-positioning refuses a position (1776).
	_, err := rdb.ExecContext(ctx, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_AUTO_POSITION=1, MASTER_LOG_FILE='%s', MASTER_LOG_POS=%d", src.Port(), replUser, replPassword, file, pos))
	wantErrNo(t, "MASTER_LOG_FILE with MASTER_AUTO_POSITION=1", err, 1776)
	mustExec(t, ctx, rdb,
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_AUTO_POSITION=0, MASTER_LOG_FILE='%s', MASTER_LOG_POS=%d, MASTER_CONNECT_RETRY=1", src.Port(), replUser, replPassword, file, pos))
	st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
	if st["Auto_Position"] != "0" || st["Source_Log_File"] != file || st["Read_Source_Log_Pos"] != fmt.Sprint(pos) {
		t.Errorf("configured, not started: Auto_Position=%s at %s:%s, want 0 at %s:%d", st["Auto_Position"], st["Source_Log_File"], st["Read_Source_Log_Pos"], file, pos)
	}
	mustExec(t, ctx, rdb, "START REPLICA")
	st = waitPositionsAt(t, ctx, sdb, rdb, 30*time.Second)
	if st["Auto_Position"] != "0" {
		t.Errorf("Auto_Position = %s, want 0", st["Auto_Position"])
	}
	// Exactly the transactions after the position.
	if n := queryInt(t, ctx, rdb, "SELECT COUNT(*) FROM fp.t"); n != 100 {
		t.Errorf("replica holds %d rows, want the 100 inserted after %s:%d", n, file, pos)
	}
	if n := queryInt(t, ctx, rdb, "SELECT MIN(id) FROM fp.t"); n != 101 {
		t.Errorf("replica's first row is %d, want 101", n)
	}
	checkAfter := func(what string) {
		t.Helper()
		a, na := tableDigest(t, ctx, sdb, "fp.t WHERE id > 100", "id")
		b, nb := tableDigest(t, ctx, rdb, "fp.t", "id")
		if a != b || na != nb {
			t.Fatalf("%s: source has %d rows after the position (%s), replica %d (%s)", what, na, a[:12], nb, b[:12])
		}
		last := gnoOf(t, queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed"), uuid)
		want := fmt.Sprintf("%s:%d-%d", uuid, firstGNO, last)
		if got := queryString(t, ctx, rdb, "SELECT @@GLOBAL.gtid_executed"); !strings.Contains(got, want) || strings.Count(got, uuid) != 1 {
			t.Fatalf("%s: replica gtid_executed %s, want exactly %s of the source", what, got, want)
		}
		t.Logf("%s: %d rows identical, source GTIDs %d-%d", what, nb, firstGNO, last)
	}
	checkAfter("started at a position")

	// Under load: kill -9 the replica, then the source; both restart.
	load := startInsertLoad(ctx, sdb, "fp.t", 4, 1_000_000)
	time.Sleep(1500 * time.Millisecond)
	if err := rep.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := rep.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := src.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := src.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, sdb, "FLUSH BINARY LOGS")
	time.Sleep(1500 * time.Millisecond)
	acked := load.finish()
	if len(acked) == 0 {
		t.Fatal("the load committed nothing")
	}
	waitPositionsAt(t, ctx, sdb, rdb, 60*time.Second)
	checkAfter("after kill -9 of replica and source")
	for id := range acked {
		if queryInt(t, ctx, rdb, "SELECT COUNT(*) FROM fp.t WHERE id = ?", id) != 1 {
			t.Fatalf("acknowledged id %d is not on the replica", id)
		}
	}

	// A clean restart resumes by file and position too.
	if err := rep.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, sdb, "INSERT INTO fp.t VALUES (5000, 1, 1)")
	waitPositionsAt(t, ctx, sdb, rdb, 30*time.Second)
	checkAfter("after a clean restart")

	// A replica that holds every transaction (it started at the first
	// file) switches to GTID auto-positioning and back, as MySQL does.
	rep2 := startReplicaServer(t, ctx, 3, nil)
	r2 := rootDB(t, rep2, "")
	mustExec(t, ctx, r2,
		fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='%s', SOURCE_PASSWORD='%s', SOURCE_LOG_FILE='binlog.000001', SOURCE_LOG_POS=4, SOURCE_CONNECT_RETRY=1", src.Port(), replUser, replPassword),
		"START REPLICA")
	if st := waitPositionsAt(t, ctx, sdb, r2, 60*time.Second); st["Auto_Position"] != "0" {
		t.Errorf("started from the first file: Auto_Position = %s, want 0", st["Auto_Position"])
	}
	waitCaughtUp(t, ctx, sdb, r2, 10*time.Second)
	sameTable(t, ctx, sdb, r2, "fp.t", "id")
	mustExec(t, ctx, r2, "STOP REPLICA", "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION=1", "START REPLICA")
	mustExec(t, ctx, sdb, "INSERT INTO fp.t VALUES (5001, 1, 2), (5002, 1, 3)")
	if st := waitPositionsAt(t, ctx, sdb, r2, 30*time.Second); st["Auto_Position"] != "1" {
		t.Errorf("after SOURCE_AUTO_POSITION=1: Auto_Position = %s", st["Auto_Position"])
	}
	_, err = r2.ExecContext(ctx, "CHANGE REPLICATION SOURCE TO SOURCE_LOG_POS=4")
	wantErrNo(t, "CHANGE while running", err, 1198)
	mustExec(t, ctx, r2, "STOP REPLICA")
	_, err = r2.ExecContext(ctx, "CHANGE REPLICATION SOURCE TO SOURCE_LOG_POS=4")
	wantErrNo(t, "SOURCE_LOG_POS with auto-positioning on", err, 1776)
	// Back to file and position, from where the relay log stands.
	mustExec(t, ctx, r2, "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION=0", "START REPLICA")
	mustExec(t, ctx, sdb, "INSERT INTO fp.t VALUES (5003, 1, 4)", "FLUSH BINARY LOGS", "INSERT INTO fp.t VALUES (5004, 1, 5)")
	if st := waitPositionsAt(t, ctx, sdb, r2, 30*time.Second); st["Auto_Position"] != "0" {
		t.Errorf("after SOURCE_AUTO_POSITION=0: Auto_Position = %s", st["Auto_Position"])
	}
	waitCaughtUp(t, ctx, sdb, r2, 10*time.Second)
	if n := sameTable(t, ctx, sdb, r2, "fp.t", "id"); n < 205+len(acked) {
		t.Errorf("fp.t has %d rows after the switches, want at least %d", n, 205+len(acked))
	}
	waitPositionsAt(t, ctx, sdb, rdb, 30*time.Second)
	checkAfter("the first replica, at the end")
}

// gnoOf is the highest GNO of uuid in a GTID set's text.
func gnoOf(t *testing.T, set, uuid string) int64 {
	t.Helper()
	for _, part := range strings.Split(strings.ReplaceAll(set, "\n", ""), ",") {
		part = strings.TrimSpace(part)
		if !strings.HasPrefix(part, uuid+":") {
			continue
		}
		ivs := strings.Split(strings.TrimPrefix(part, uuid+":"), ":")
		last := ivs[len(ivs)-1]
		if i := strings.LastIndexByte(last, '-'); i >= 0 {
			last = last[i+1:]
		}
		var n int64
		if _, err := fmt.Sscan(last, &n); err != nil {
			t.Fatalf("GTID set %q: %v", set, err)
		}
		return n
	}
	return 0
}
