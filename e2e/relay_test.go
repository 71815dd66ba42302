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

// The relay role (`petrel relay`): primary -> relay -> replicas.

// startRelay starts `petrel relay` with server id id on a fresh datadir.
func startRelay(t *testing.T, ctx context.Context, id int, vars map[string]string) *lab.Petrel {
	t.Helper()
	if vars == nil {
		vars = map[string]string{}
	}
	if _, ok := vars["replica_net_timeout"]; !ok {
		vars["replica_net_timeout"] = "2"
	}
	return startPetrel(t, ctx, lab.PetrelOptions{Command: "relay", ServerID: id, ExtraArgs: []string{"--config", configFile(t, vars)}})
}

// pointAtRelay points a replica (or a relay) at a relay, by GTID, as root:
// a relay applies, of what it relays, only the account statements.
func pointAtRelay(t *testing.T, ctx context.Context, db *sql.DB, port int) {
	t.Helper()
	mustExec(t, ctx, db, fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='root', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1", port, rootPassword),
		"START REPLICA")
}

// binlogGTIDs lists the GTIDs of every GTID event in a server's binary
// logs, in log order (SHOW BINARY LOGS, SHOW BINLOG EVENTS).
func binlogGTIDs(t *testing.T, ctx context.Context, db querier) (gtids []string, files int) {
	t.Helper()
	names := binaryLogs(t, ctx, db)
	for _, f := range names {
		rows, err := db.QueryContext(ctx, fmt.Sprintf("SHOW BINLOG EVENTS IN '%s'", f))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name, typ, info string
			var pos, sid, end int64
			if err := rows.Scan(&name, &pos, &typ, &sid, &end, &info); err != nil {
				t.Fatal(err)
			}
			if typ == "Gtid" {
				gtids = append(gtids, strings.TrimSuffix(strings.TrimPrefix(info, "SET @@SESSION.GTID_NEXT= '"), "'"))
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return gtids, len(names)
}

// binaryLogs lists SHOW BINARY LOGS' file names.
func binaryLogs(t *testing.T, ctx context.Context, db querier) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		names = append(names, vals[0].String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}

// sameBinlogGTIDs fails unless the relay's log lists the primary's GTIDs
// in the same order, each once.
func sameBinlogGTIDs(t *testing.T, ctx context.Context, sdb, ydb querier) (n, relayFiles int) {
	t.Helper()
	want, _ := binlogGTIDs(t, ctx, sdb)
	got, files := binlogGTIDs(t, ctx, ydb)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("relay's binlog GTIDs differ from the primary's: %d vs %d events (first relay %v, primary %v)", len(got), len(want), firstFew(got), firstFew(want))
	}
	return len(got), files
}

func firstFew(s []string) []string { return s[:min(len(s), 3)] }

// noUserData fails if the relay's storage holds a user database or table.
func noUserData(t *testing.T, ctx context.Context, ydb querier) {
	t.Helper()
	q := "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')"
	if n := queryInt(t, ctx, ydb, q); n != 0 {
		t.Errorf("relay storage holds %d user tables, want 0", n)
	}
	if n := queryInt(t, ctx, ydb, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'app'"); n != 0 {
		t.Errorf("relay storage holds database app")
	}
}

// relayLoad writes into app.t on the primary: inserts from 4 writers for
// d, then updates, deletes and a column change.
func relayLoad(t *testing.T, ctx context.Context, sdb *sql.DB, d time.Duration, base int64) int {
	t.Helper()
	l := startInsertLoad(ctx, sdb, "app.t", 4, base)
	time.Sleep(d)
	acked := l.finish()
	if len(acked) < 50 {
		t.Fatalf("the load committed only %d inserts in %v (%d errors)", len(acked), d, l.errs.Load())
	}
	mustExec(t, ctx, sdb,
		fmt.Sprintf("UPDATE app.t SET n = n + 1000 WHERE id %% 3 = 0 AND id >= %d", base),
		fmt.Sprintf("DELETE FROM app.t WHERE id %% 7 = 0 AND id >= %d", base))
	return len(acked)
}

func appSchema(t *testing.T, ctx context.Context, sdb *sql.DB) {
	t.Helper()
	mustExec(t, ctx, sdb, "CREATE DATABASE app", "CREATE TABLE app.t (id BIGINT PRIMARY KEY, w INT NOT NULL, n INT NOT NULL)")
}

// TestRelayFansOut: primary -> relay -> two replicas (one by GTID, one by
// file and position in the relay's own files) under an insert load with
// updates, deletes and DDL. The replicas end with the primary's rows and
// gtid_executed; the relay's gtid_executed is the primary's, its binary
// log lists the primary's GTIDs in order across its own rotations, its
// storage holds no user table, and it refuses client writes (1290) even
// with super_read_only turned off.
func TestRelayFansOut(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	createReplUser(t, ctx, sdb)
	appSchema(t, ctx, sdb)

	relay := startRelay(t, ctx, 10, map[string]string{"max_binlog_size": "65536"})
	ydb := rootDB(t, relay, "")
	pointAt(t, ctx, ydb, src.Port(), "")
	r1 := startReplicaServer(t, ctx, 11, nil)
	r2 := startReplicaServer(t, ctx, 12, nil)
	r1db, r2db := rootDB(t, r1, ""), rootDB(t, r2, "")
	pointAtRelay(t, ctx, r1db, relay.Port())
	mustExec(t, ctx, r2db, fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='root', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=0, SOURCE_LOG_FILE='binlog.000001', SOURCE_LOG_POS=4, SOURCE_CONNECT_RETRY=1", relay.Port(), rootPassword),
		"START REPLICA")

	n := relayLoad(t, ctx, sdb, 3*time.Second, 1)
	mustExec(t, ctx, sdb, "ALTER TABLE app.t ADD COLUMN note VARCHAR(20)", "UPDATE app.t SET note = 'after' WHERE id % 5 = 0")
	gtids := waitCaughtUp(t, ctx, sdb, ydb, 60*time.Second)
	waitCaughtUp(t, ctx, sdb, r1db, 60*time.Second)
	waitCaughtUp(t, ctx, sdb, r2db, 60*time.Second)
	rows := sameTable(t, ctx, sdb, r1db, "app.t", "id")
	sameTable(t, ctx, sdb, r2db, "app.t", "id")
	events, files := sameBinlogGTIDs(t, ctx, sdb, ydb)
	if files < 3 {
		t.Errorf("relay has %d binlog files with max_binlog_size 65536 after %d transactions, want rotations", files, events)
	}
	noUserData(t, ctx, ydb)
	st := replicaStatus(t, ctx, ydb, "SHOW REPLICA STATUS")
	if st["Replica_IO_Running"] != "Yes" || st["Last_IO_Errno"] != "0" {
		t.Errorf("relay: IO=%s errno=%s (%s)", st["Replica_IO_Running"], st["Last_IO_Errno"], st["Last_IO_Error"])
	}
	t.Logf("%d inserts, %d rows on both replicas, %d GTID events in %d relay files, gtid_executed %s", n, rows, events, files, gtids)

	// Client writes: refused as under super_read_only, even once it is off.
	_, err := ydb.ExecContext(ctx, "CREATE DATABASE x")
	wantErrNo(t, "CREATE DATABASE on a relay", err, 1290)
	mustExec(t, ctx, ydb, "SET GLOBAL super_read_only = OFF", "SET GLOBAL read_only = OFF")
	_, err = ydb.ExecContext(ctx, "CREATE DATABASE x")
	wantErrNo(t, "CREATE DATABASE on a relay with super_read_only off", err, 1290)
	_, err = ydb.ExecContext(ctx, "CREATE USER 'u'@'%' IDENTIFIED BY 'pw'")
	wantErrNo(t, "CREATE USER on a relay with super_read_only off", err, 1290)
	if n := queryInt(t, ctx, ydb, "SELECT COUNT(*) FROM mysql.user WHERE user = 'u'"); n != 0 {
		t.Errorf("the refused CREATE USER left %d accounts", n)
	}
	noUserData(t, ctx, ydb)
	if got := queryString(t, ctx, ydb, "SELECT @@GLOBAL.gtid_executed"); got != gtids {
		t.Errorf("refused writes changed the relay's gtid_executed: %s -> %s", gtids, got)
	}
}

// TestRelayChain: primary -> relay -> relay -> replica.
func TestRelayChain(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	createReplUser(t, ctx, sdb)
	appSchema(t, ctx, sdb)
	y1 := startRelay(t, ctx, 10, nil)
	y2 := startRelay(t, ctx, 20, nil)
	rep := startReplicaServer(t, ctx, 21, nil)
	y1db, y2db, rdb := rootDB(t, y1, ""), rootDB(t, y2, ""), rootDB(t, rep, "")
	pointAt(t, ctx, y1db, src.Port(), "")
	pointAtRelay(t, ctx, y2db, y1.Port())
	pointAtRelay(t, ctx, rdb, y2.Port())
	relayLoad(t, ctx, sdb, 3*time.Second, 1)
	waitCaughtUp(t, ctx, sdb, y2db, 60*time.Second)
	gtids := waitCaughtUp(t, ctx, sdb, rdb, 60*time.Second)
	rows := sameTable(t, ctx, sdb, rdb, "app.t", "id")
	events, _ := sameBinlogGTIDs(t, ctx, sdb, y2db)
	noUserData(t, ctx, y1db)
	noUserData(t, ctx, y2db)
	t.Logf("chain: %d rows, %d GTID events on the second relay, %s", rows, events, gtids)
}

// TestRelayKill9: the relay is killed with SIGKILL under load and
// restarted; it resumes from its own log (the source and START REPLICA
// persisted), and its replica ends with the primary's rows and GTIDs, no
// transaction missing or applied twice.
func TestRelayKill9(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	createReplUser(t, ctx, sdb)
	appSchema(t, ctx, sdb)
	relay := startRelay(t, ctx, 10, map[string]string{"max_binlog_size": "65536"})
	ydb := rootDB(t, relay, "")
	pointAt(t, ctx, ydb, src.Port(), "")
	rep := startReplicaServer(t, ctx, 11, nil)
	rdb := rootDB(t, rep, "")
	pointAtRelay(t, ctx, rdb, relay.Port())

	l := startInsertLoad(ctx, sdb, "app.t", 4, 1)
	for i := 0; i < 3; i++ {
		time.Sleep(1200 * time.Millisecond)
		if err := relay.Kill(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		if err := relay.Restart(ctx); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	acked := l.finish()
	ydb = rootDB(t, relay, "")
	gtids := waitCaughtUp(t, ctx, sdb, ydb, 60*time.Second)
	waitCaughtUp(t, ctx, sdb, rdb, 60*time.Second)
	rows := sameTable(t, ctx, sdb, rdb, "app.t", "id")
	if rows != len(acked) {
		t.Errorf("replica holds %d rows, the primary acknowledged %d inserts", rows, len(acked))
	}
	events, _ := sameBinlogGTIDs(t, ctx, sdb, ydb)
	noUserData(t, ctx, ydb)
	t.Logf("3 kills: %d acknowledged inserts, %d rows on the replica, %d GTID events on the relay, %s", len(acked), rows, events, gtids)
}

// TestRelaySemiSync: a semi-sync primary whose only acknowledger is a
// relay: every commit is acknowledged (Rpl_semi_sync_source_yes_tx grows
// by each, no_tx stays 0, status stays ON), while the relay's own replica
// stays asynchronous and follows.
func TestRelaySemiSync(t *testing.T) {
	for _, ackAfter := range []string{"RELAY_WRITE", "RELAY_SYNC"} {
		t.Run(ackAfter, func(t *testing.T) {
			ctx := testContext(t, 3*time.Minute)
			src := startReplicaServer(t, ctx, 1, map[string]string{
				"rpl_semi_sync_source_enabled": "ON",
				"rpl_semi_sync_source_timeout": "60000",
			})
			sdb := rootDB(t, src, "")
			createReplUserSemi(t, ctx, sdb)
			mustExec(t, ctx, sdb, "SET GLOBAL rpl_semi_sync_source_enabled = OFF")
			appSchema(t, ctx, sdb)
			mustExec(t, ctx, sdb, "SET GLOBAL rpl_semi_sync_source_enabled = ON")
			relay := startRelay(t, ctx, 10, map[string]string{
				"rpl_semi_sync_replica_enabled":   "ON",
				"rpl_semi_sync_replica_ack_after": ackAfter,
			})
			ydb := rootDB(t, relay, "")
			pointAt(t, ctx, ydb, src.Port(), "")
			waitSemiClients(t, ctx, sdb, 1)
			rep := startReplicaServer(t, ctx, 11, nil)
			rdb := rootDB(t, rep, "")
			pointAtRelay(t, ctx, rdb, relay.Port())

			yes0 := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx")
			const n = 200
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			start := time.Now()
			for i := 1; i <= n; i++ {
				if _, err := sdb.ExecContext(wctx, "INSERT INTO app.t VALUES (?, 1, ?)", i, i); err != nil {
					t.Fatalf("insert %d: %v", i, err)
				}
			}
			took := time.Since(start)
			if y := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx"); y < yes0+n {
				t.Errorf("Rpl_semi_sync_source_yes_tx %d -> %d after %d commits", yes0, y, n)
			}
			if no := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_no_tx"); no != 0 {
				t.Errorf("Rpl_semi_sync_source_no_tx = %d, want 0", no)
			}
			var name, status string
			if err := sdb.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source_status'").Scan(&name, &status); err != nil || status != "ON" {
				t.Errorf("Rpl_semi_sync_source_status = %q (%v), want ON", status, err)
			}
			if err := ydb.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_replica_status'").Scan(&name, &status); err != nil || status != "ON" {
				t.Errorf("relay: Rpl_semi_sync_replica_status = %q (%v), want ON", status, err)
			}
			waitCaughtUp(t, ctx, sdb, ydb, 30*time.Second)
			waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
			if rows := sameTable(t, ctx, sdb, rdb, "app.t", "id"); rows != n {
				t.Errorf("replica of the relay holds %d rows, want %d", rows, n)
			}
			t.Logf("%s: %d semi-sync commits acknowledged by the relay in %v", ackAfter, n, took)
		})
	}
}
