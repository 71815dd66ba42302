package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// waitIOErrno waits until SHOW REPLICA STATUS reports errno as
// Last_IO_Errno and returns the status.
func waitIOErrno(t *testing.T, ctx context.Context, db *sql.DB, errno string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var st map[string]string
	for time.Now().Before(deadline) {
		st = replicaStatus(t, ctx, db, "SHOW REPLICA STATUS")
		if st["Last_IO_Errno"] == errno {
			return st
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("Last_IO_Errno = %q (%q), want %s", st["Last_IO_Errno"], st["Last_IO_Error"], errno)
	return nil
}

func lastGNO(t *testing.T, ctx context.Context, db querier) int64 {
	t.Helper()
	s := queryString(t, ctx, db, "SELECT @@GLOBAL.gtid_executed")
	i := strings.LastIndexAny(s, "-:")
	var n int64
	fmt.Sscan(s[i+1:], &n)
	return n
}

// verifyBinlogFiles runs `petrel binlog` (which verifies every event's
// checksum) over a server's binary log files.
func verifyBinlogFiles(t *testing.T, ctx context.Context, p *lab.Petrel) string {
	t.Helper()
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(p.Datadir(), "binlog", "binlog.[0-9]*"))
	out, err := exec.CommandContext(ctx, bin, append([]string{"binlog"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("petrel binlog over the relay's %d files: %v\n%s", len(files), err, tail(string(out), 2000))
	}
	return string(out)
}

// TestRelayRefusesBadStream: what the relay receives is checked before it
// is written. A transaction missing from the stream (a GTID gap) stops the
// receiver with 1595 and nothing of the next one written; a corrupt event
// (checksum) is refused with 1743 and fetched again, whole; after either,
// the relay's log holds exactly the primary's transactions (SHOW BINLOG
// EVENTS, `petrel binlog` verifying every checksum) and its replica the
// primary's rows.
func TestRelayRefusesBadStream(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	createReplUser(t, ctx, sdb)
	appSchema(t, ctx, sdb)
	mustExec(t, ctx, sdb, "CREATE TABLE app.s (id INT PRIMARY KEY, v VARCHAR(40))")
	px := newStreamProxy(t, src.Port())
	relay := startRelay(t, ctx, 10, nil)
	ydb := rootDB(t, relay, "")
	pointAt(t, ctx, ydb, px.port(), "")
	rep := startReplicaServer(t, ctx, 11, nil)
	rdb := rootDB(t, rep, "")
	pointAtRelay(t, ctx, rdb, relay.Port())
	for i := 1; i <= 5; i++ {
		mustExec(t, ctx, sdb, fmt.Sprintf("INSERT INTO app.t VALUES (%d, 0, %d)", i, i))
	}
	waitCaughtUp(t, ctx, sdb, ydb, 20*time.Second)

	// A gap: the second of the next three transactions never arrives.
	k := lastGNO(t, ctx, sdb) + 2
	px.set(func(p *streamProxy) { p.dropGNO = k })
	for i := 6; i <= 8; i++ {
		mustExec(t, ctx, sdb, fmt.Sprintf("INSERT INTO app.t VALUES (%d, 0, %d)", i, i))
	}
	st := waitIOErrno(t, ctx, ydb, "1595")
	// The error is recorded as the receiver stops: a status read in
	// between still shows it Connecting.
	for stop := time.Now().Add(5 * time.Second); st["Replica_IO_Running"] != "No" && time.Now().Before(stop); {
		time.Sleep(20 * time.Millisecond)
		st = replicaStatus(t, ctx, ydb, "SHOW REPLICA STATUS")
	}
	if st["Replica_IO_Running"] != "No" {
		t.Errorf("after a gap: Replica_IO_Running = %q, want No", st["Replica_IO_Running"])
	}
	if _, dropped := px.counts(); dropped != 1 {
		t.Fatalf("the proxy dropped %d transactions, want 1", dropped)
	}
	if got := lastGNO(t, ctx, ydb); got != k-1 {
		t.Errorf("after the gap the relay's gtid_executed ends at %d, want %d (nothing after the gap written)", got, k-1)
	}
	if !strings.Contains(relay.Log(), "does not follow") || !strings.Contains(relay.Log(), "errno=1595") {
		t.Errorf("the relay's log has no line for the gap:\n%s", tail(relay.Log(), 3000))
	}
	t.Logf("gap: %s", st["Last_IO_Error"])
	mustExec(t, ctx, ydb, "START REPLICA")
	waitCaughtUp(t, ctx, sdb, ydb, 20*time.Second)

	// A corrupt event: refused (1743), the link reconnects, the
	// transaction arrives whole.
	connects := globalStatus(t, ctx, ydb, "Replica_connects")
	px.set(func(p *streamProxy) { p.corrupt = []byte("CORRUPTME") })
	mustExec(t, ctx, sdb, "INSERT INTO app.s VALUES (1, 'CORRUPTME-1'), (2, 'plain')")
	waitCaughtUp(t, ctx, sdb, ydb, 30*time.Second)
	if c, _ := px.counts(); c != 1 {
		t.Fatalf("the proxy corrupted %d events, want 1", c)
	}
	if !strings.Contains(relay.Log(), "checksum verification failed") || !strings.Contains(relay.Log(), "errno=1743") {
		t.Errorf("the relay's log has no checksum error line:\n%s", tail(relay.Log(), 3000))
	}
	if again := globalStatus(t, ctx, ydb, "Replica_connects"); again <= connects {
		t.Errorf("Replica_connects %d -> %d: the relay did not fetch the corrupted transaction again", connects, again)
	}
	mustExec(t, ctx, sdb, "INSERT INTO app.t VALUES (9, 0, 9)")
	waitCaughtUp(t, ctx, sdb, ydb, 20*time.Second)
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	sameTable(t, ctx, sdb, rdb, "app.t", "id")
	if n := sameTable(t, ctx, sdb, rdb, "app.s", "id"); n != 2 {
		t.Errorf("app.s has %d rows on the replica, want 2", n)
	}
	if v := queryString(t, ctx, rdb, "SELECT v FROM app.s WHERE id = 1"); v != "CORRUPTME-1" {
		t.Errorf("replica has %q, want the primary's CORRUPTME-1", v)
	}
	sameBinlogGTIDs(t, ctx, sdb, ydb)
	verifyBinlogFiles(t, ctx, relay)
	noUserData(t, ctx, ydb)
}

// TestRelayRefusesAnotherSource: a relay follows one source's binlog. Its
// source replaced by another server (another server_uuid, here a replica
// relay of the same primary) is refused with 1593 until RESET REPLICA; after it,
// the relay follows the new source and its replica the primary's writes.
// A replica asking the relay for GTIDs it purged gets 1236 (reported as
// 13114), as from a primary.
func TestRelayRefusesAnotherSource(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	createReplUser(t, ctx, sdb)
	appSchema(t, ctx, sdb)
	other := startRelay(t, ctx, 3, nil)
	odb := rootDB(t, other, "")
	pointAt(t, ctx, odb, src.Port(), "")
	relay := startRelay(t, ctx, 10, nil)
	ydb := rootDB(t, relay, "")
	pointAt(t, ctx, ydb, src.Port(), "")
	mustExec(t, ctx, sdb, "INSERT INTO app.t VALUES (1, 0, 1)")
	before := waitCaughtUp(t, ctx, sdb, ydb, 20*time.Second)
	waitCaughtUp(t, ctx, sdb, odb, 20*time.Second)

	mustExec(t, ctx, ydb, "STOP REPLICA", fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_PORT=%d, SOURCE_USER='root', SOURCE_PASSWORD='%s'", other.Port(), rootPassword), "START REPLICA")
	st := waitIOErrno(t, ctx, ydb, "1593")
	if st["Replica_IO_Running"] != "No" || !strings.Contains(st["Last_IO_Error"], "server_uuid") {
		t.Errorf("another source: IO=%q error %q", st["Replica_IO_Running"], st["Last_IO_Error"])
	}
	if !strings.Contains(relay.Log(), "errno=1593") {
		t.Errorf("the relay's log has no line for the refused source")
	}
	mustExec(t, ctx, sdb, "INSERT INTO app.t VALUES (2, 0, 2)")
	waitCaughtUp(t, ctx, sdb, odb, 20*time.Second)
	if got := queryString(t, ctx, ydb, "SELECT @@GLOBAL.gtid_executed"); got != before {
		t.Errorf("the refused source changed the relay's gtid_executed: %s -> %s", before, got)
	}
	// RESET REPLICA forgets the source followed (the connection options stay).
	mustExec(t, ctx, ydb, "STOP REPLICA", "RESET REPLICA", "START REPLICA")
	waitCaughtUp(t, ctx, sdb, ydb, 20*time.Second)
	rep := startReplicaServer(t, ctx, 11, nil)
	rdb := rootDB(t, rep, "")
	pointAtRelay(t, ctx, rdb, relay.Port())
	mustExec(t, ctx, sdb, "INSERT INTO app.t VALUES (3, 0, 3)")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	if n := sameTable(t, ctx, sdb, rdb, "app.t", "id"); n != 3 {
		t.Errorf("replica of the relay holds %d rows, want 3", n)
	}
	if st := replicaStatus(t, ctx, ydb, "SHOW REPLICA STATUS"); st["Source_Port"] != fmt.Sprint(other.Port()) {
		t.Errorf("relay follows port %s, want %d", st["Source_Port"], other.Port())
	}

	// Purged on the relay: a new replica asking from scratch gets 1236.
	// The relay keeps a file its connected replica's dump is still reading
	// (the replica reads the rotate event a moment after FLUSH), so the
	// purge is retried until that dump has moved on, for at most 10 s.
	mustExec(t, ctx, ydb, "FLUSH BINARY LOGS")
	file, _ := binlogPosition(t, ctx, ydb)
	purged := ""
	for deadline := time.Now().Add(10 * time.Second); purged == "" && time.Now().Before(deadline); {
		mustExec(t, ctx, ydb, fmt.Sprintf("PURGE BINARY LOGS TO '%s'", file))
		if purged = queryString(t, ctx, ydb, "SELECT @@GLOBAL.gtid_purged"); purged == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if purged == "" {
		t.Fatal("the relay's gtid_purged is still empty 10 s after PURGE BINARY LOGS")
	}
	late := startReplicaServer(t, ctx, 12, nil)
	ldb := rootDB(t, late, "")
	pointAtRelay(t, ctx, ldb, relay.Port())
	st = waitIOErrno(t, ctx, ldb, "13114")
	if !strings.Contains(st["Last_IO_Error"], "1236") || st["Replica_IO_Running"] != "No" {
		t.Errorf("purged: IO=%q error %q, want 1236 and stopped", st["Replica_IO_Running"], st["Last_IO_Error"])
	}
	t.Logf("purged: %s", st["Last_IO_Error"])
}

// TestRelayPurgeKeepsWhatReplicasNeed: with binlog_expire_logs_seconds=1
// and 1 MiB files, a relay whose replica is connected but not reading
// (its link paused) keeps the files that replica still needs while
// expiring older ones; the replica, resumed, catches up with no error and
// the primary's rows, and the relay then expires the rest.
func TestRelayPurgeKeepsWhatReplicasNeed(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	createReplUser(t, ctx, sdb)
	mustExec(t, ctx, sdb, "CREATE DATABASE app", "CREATE TABLE app.big (id INT PRIMARY KEY, v LONGTEXT)")
	relay := startRelay(t, ctx, 10, map[string]string{"max_binlog_size": "1048576", "binlog_expire_logs_seconds": "1"})
	ydb := rootDB(t, relay, "")
	pointAt(t, ctx, ydb, src.Port(), "")
	px := newStreamProxy(t, relay.Port())
	rep := startReplicaServer(t, ctx, 11, map[string]string{"replica_net_timeout": "120"})
	rdb := rootDB(t, rep, "")
	pointAtRelay(t, ctx, rdb, px.port())
	mustExec(t, ctx, sdb, "INSERT INTO app.big VALUES (0, 'first')")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)

	px.set(func(p *streamProxy) { p.paused = true })
	row := strings.Repeat("x", 8000)
	for s := 0; s < 60; s++ {
		var b strings.Builder
		b.WriteString("INSERT INTO app.big VALUES ")
		for i := 0; i < 100; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "(%d, '%s')", 1+s*100+i, row)
		}
		mustExec(t, ctx, sdb, b.String())
	}
	waitCaughtUp(t, ctx, sdb, ydb, 60*time.Second)
	filesOf := func() (int, string) {
		names := binaryLogs(t, ctx, ydb)
		return len(names), names[0]
	}
	// Expiry runs at each rotation: wait past the second, rotate.
	time.Sleep(1500 * time.Millisecond)
	mustExec(t, ctx, ydb, "FLUSH BINARY LOGS")
	time.Sleep(500 * time.Millisecond)
	held, heldFirst := filesOf()
	if held < 10 {
		t.Errorf("with a replica paused at an old file, the relay kept %d files (first %s), want the ~48 MB since", held, heldFirst)
	}
	if st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS"); st["Replica_IO_Running"] != "Yes" {
		t.Fatalf("the paused replica's link broke: IO=%s %s", st["Replica_IO_Running"], st["Last_IO_Error"])
	}
	px.set(func(p *streamProxy) { p.paused = false })
	waitCaughtUp(t, ctx, sdb, rdb, 90*time.Second)
	if n := sameTable(t, ctx, sdb, rdb, "app.big", "id"); n != 6001 {
		t.Errorf("replica holds %d rows, want 6001", n)
	}
	if st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS"); st["Last_IO_Errno"] != "0" {
		t.Errorf("replica: Last_IO_Errno %s (%s)", st["Last_IO_Errno"], st["Last_IO_Error"])
	}
	time.Sleep(1100 * time.Millisecond)
	mustExec(t, ctx, ydb, "FLUSH BINARY LOGS")
	deadline := time.Now().Add(10 * time.Second)
	left, first := filesOf()
	for left > 2 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		left, first = filesOf()
	}
	if left > 2 {
		t.Errorf("after the replica caught up, the relay still has %d files (first %s), want them expired", left, first)
	}
	if p := queryString(t, ctx, ydb, "SELECT @@GLOBAL.gtid_purged"); p == "" {
		t.Error("relay gtid_purged empty after expiry")
	}
	t.Logf("files kept while the replica was paused: %d (first %s); after it caught up: %d (first %s)", held, heldFirst, left, first)
}
