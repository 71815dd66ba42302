package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// sbDigits is sysbench's random text: groups of 11 digits joined by '-'.
func sbDigits(r *rand.Rand, groups int) string {
	var b strings.Builder
	for g := 0; g < groups; g++ {
		if g > 0 {
			b.WriteByte('-')
		}
		for i := 0; i < 11; i++ {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
	}
	return b.String()
}

// sysbenchWrites runs sysbench oltp_write_only's shape on sbtest.sbtest1:
// rows prefilled 10 to a transaction, then txns transactions of an
// indexed update, a non-indexed update, a delete and an insert, from a
// fixed seed, so two servers given the same call log the same rows.
func sysbenchWrites(t *testing.T, ctx context.Context, db *sql.DB, rows, txns int, seed int64) {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	mustExec(t, ctx, db, "CREATE DATABASE IF NOT EXISTS sbtest",
		"CREATE TABLE sbtest.sbtest1 (id INT NOT NULL PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k))")
	for i := 1; i <= rows; i += 10 {
		var vals []string
		for j := i; j < i+10 && j <= rows; j++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, '%s', '%s')", j, r.Intn(rows)+1, sbDigits(r, 10), sbDigits(r, 5)))
		}
		mustExec(t, ctx, db, "INSERT INTO sbtest.sbtest1 VALUES "+strings.Join(vals, ","))
	}
	for i := 0; i < txns; i++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := r.Intn(rows) + 1
		for _, q := range []string{
			fmt.Sprintf("UPDATE sbtest.sbtest1 SET k = k + 1 WHERE id = %d", r.Intn(rows)+1),
			fmt.Sprintf("UPDATE sbtest.sbtest1 SET c = '%s' WHERE id = %d", sbDigits(r, 10), r.Intn(rows)+1),
			fmt.Sprintf("DELETE FROM sbtest.sbtest1 WHERE id = %d", id),
			fmt.Sprintf("INSERT INTO sbtest.sbtest1 VALUES (%d, %d, '%s', '%s')", id, r.Intn(rows)+1, sbDigits(r, 10), sbDigits(r, 5)),
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				tx.Rollback()
				t.Fatalf("%s: %v", q, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// binlogEventCounts lists every binlog file's events (SHOW BINLOG EVENTS)
// and counts them by type; events inside a TRANSACTION_PAYLOAD (listed at
// its position) are counted under "inner:" + type.
func binlogEventCounts(t *testing.T, ctx context.Context, db *sql.DB) map[string]int {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for rows.Next() {
		var name, size, enc sql.NullString
		if err := rows.Scan(&name, &size, &enc); err != nil {
			t.Fatal(err)
		}
		files = append(files, name.String)
	}
	rows.Close()
	out := map[string]int{}
	for _, f := range files {
		rows, err := db.QueryContext(ctx, "SHOW BINLOG EVENTS IN '"+f+"'")
		if err != nil {
			t.Fatal(err)
		}
		payloadAt := int64(-1)
		for rows.Next() {
			var logName, typ, info sql.NullString
			var pos, serverID, end int64
			if err := rows.Scan(&logName, &pos, &typ, &serverID, &end, &info); err != nil {
				t.Fatal(err)
			}
			switch {
			case typ.String == "Transaction_payload":
				payloadAt = pos
				out[typ.String]++
			case pos == payloadAt:
				out["inner:"+typ.String]++
			default:
				out[typ.String]++
			}
		}
		rows.Close()
	}
	return out
}

// TestBinlogTransactionCompression: a primary with
// binlog_transaction_compression ON logs each row transaction as a GTID
// event and one TRANSACTION_PAYLOAD event (a session that sets it OFF
// logs plainly); its log is smaller than an uncompressed primary's for
// the same sysbench rows; a parallel replica's relay log keeps the
// payloads compressed, and once applied its rows and gtid_executed equal
// the primary's; `petrel binlog` prints the compressed transactions.
func TestBinlogTransactionCompression(t *testing.T) {
	ctx := testContext(t, 5*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{ExtraArgs: []string{"--config", configFile(t, map[string]string{"binlog_transaction_compression": "ON"})}})
	plain := startPetrel(t, ctx, lab.PetrelOptions{})
	rep := startReplicaServer(t, ctx, 2, map[string]string{"replica_parallel_workers": "4"})
	sdb, pdb, rdb := rootDB(t, src, ""), rootDB(t, plain, ""), rootDB(t, rep, "")
	if v := queryString(t, ctx, sdb, "SELECT @@GLOBAL.binlog_transaction_compression"); v != "1" {
		t.Fatalf("binlog_transaction_compression = %q from the option file, want 1", v)
	}
	if v := queryInt(t, ctx, sdb, "SELECT @@SESSION.binlog_transaction_compression_level_zstd"); v != 3 {
		t.Fatalf("binlog_transaction_compression_level_zstd = %d, want the default 3", v)
	}
	_, err := sdb.ExecContext(ctx, "SET GLOBAL binlog_transaction_compression_level_zstd = 23")
	wantErrNo(t, "level 23", err, 1231)
	createReplUser(t, ctx, sdb)
	pointAt(t, ctx, rdb, src.Port(), "")
	waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
	// The applier waits while the receiver fills the relay log.
	mustExec(t, ctx, rdb, "STOP REPLICA SQL_THREAD")

	const rows, txns = 400, 300
	b0, p0 := globalStatus(t, ctx, sdb, "Binlog_bytes_written"), globalStatus(t, ctx, pdb, "Binlog_bytes_written")
	sysbenchWrites(t, ctx, sdb, rows, txns, 17)
	sysbenchWrites(t, ctx, pdb, rows, txns, 17)
	zBytes := globalStatus(t, ctx, sdb, "Binlog_bytes_written") - b0
	plainBytes := globalStatus(t, ctx, pdb, "Binlog_bytes_written") - p0
	ratio := float64(plainBytes) / float64(zBytes)
	t.Logf("sysbench oltp_write_only rows: %d bytes logged uncompressed, %d compressed (zstd 3): %.2fx; %.0f and %.0f bytes per transaction",
		plainBytes, zBytes, ratio, float64(plainBytes)/float64(rows/10+txns), float64(zBytes)/float64(rows/10+txns))
	if ratio < 1.7 {
		t.Fatalf("compression saved too little: %.2fx (%d vs %d bytes)", ratio, plainBytes, zBytes)
	}

	// A session that turns it off logs plainly.
	c := conn(t, ctx, sdb)
	mustExec(t, ctx, c, "SET SESSION binlog_transaction_compression = OFF", "INSERT INTO sbtest.sbtest1 VALUES (100000, 1, 'plain', 'plain')")
	c.Close()

	counts := binlogEventCounts(t, ctx, sdb)
	rowTxns := rows/10 + txns
	if counts["Transaction_payload"] != rowTxns || counts["Xid"] != 1 || counts["inner:Xid"] != rowTxns || counts["inner:Write_rows"] < rowTxns {
		t.Fatalf("primary's binlog events %v: want %d Transaction_payload, each holding an Xid, and 1 plain Xid", counts, rowTxns)
	}
	if n := globalStatus(t, ctx, sdb, "Petrel_binlog_compressed_transactions"); n != int64(rowTxns) {
		t.Fatalf("Petrel_binlog_compressed_transactions = %d, want %d", n, rowTxns)
	}
	zb, ub := globalStatus(t, ctx, sdb, "Petrel_binlog_compressed_bytes"), globalStatus(t, ctx, sdb, "Petrel_binlog_uncompressed_bytes")
	// sysbench's rows are random digits: zstd gets about 2x on them
	// (docs/PERFORMANCE.md), so 1.8x is the floor.
	if zb <= 0 || ub*5 < zb*9 {
		t.Fatalf("compressed bytes %d, uncompressed %d", zb, ub)
	}
	var logType, ctype, lastID string
	var txnCount, zBytesPS, pct int64
	if err := sdb.QueryRowContext(ctx, "SELECT LOG_TYPE, COMPRESSION_TYPE, TRANSACTION_COUNTER, COMPRESSED_BYTES_COUNTER, COMPRESSION_PERCENTAGE, LAST_TRANSACTION_ID FROM performance_schema.binary_log_transaction_compression_stats").Scan(&logType, &ctype, &txnCount, &zBytesPS, &pct, &lastID); err != nil {
		t.Fatal(err)
	}
	if logType != "BINARY" || ctype != "ZSTD" || txnCount != int64(rowTxns) || zBytesPS != zb || pct < 40 || !strings.HasSuffix(lastID, fmt.Sprintf(":%d", 4+rowTxns)) {
		t.Fatalf("binary_log_transaction_compression_stats: %s %s %d transactions, %d bytes, %d%%, last %s", logType, ctype, txnCount, zBytesPS, pct, lastID)
	}

	// GTIDs: CREATE USER, GRANT, CREATE DATABASE, CREATE TABLE, then the
	// compressed ones (checked above through LAST_TRANSACTION_ID).

	// The relay log holds the payloads as received.
	want := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed")
	deadline := time.Now().Add(30 * time.Second)
	for replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")["Retrieved_Gtid_Set"] != want {
		if time.Now().After(deadline) {
			t.Fatalf("the receiver did not fetch %s: %v", want, replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")["Retrieved_Gtid_Set"])
		}
		time.Sleep(100 * time.Millisecond)
	}
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	relays, _ := filepath.Glob(filepath.Join(rep.Datadir(), "relay", "relay.0*"))
	relayPayloads := 0
	for _, f := range relays {
		out, err := exec.CommandContext(ctx, bin, "binlog", f).CombinedOutput()
		if err != nil {
			t.Fatalf("petrel binlog %s: %v\n%s", f, err, tail(string(out), 4096))
		}
		relayPayloads += strings.Count(string(out), "\tTransaction_payload\t")
	}
	if relayPayloads != rowTxns {
		t.Fatalf("relay log files %v hold %d Transaction_payload events, want %d", relays, relayPayloads, rowTxns)
	}

	mustExec(t, ctx, rdb, "START REPLICA SQL_THREAD")
	got := waitCaughtUp(t, ctx, sdb, rdb, 60*time.Second)
	if got != want {
		t.Fatalf("replica gtid_executed %s, primary %s", got, want)
	}
	if n := sameTable(t, ctx, sdb, rdb, "sbtest.sbtest1", "id"); n != rows+1 {
		t.Fatalf("%d rows, want %d", n, rows+1)
	}

	// petrel binlog prints every compressed transaction's rows.
	file, _ := binlogPosition(t, ctx, sdb)
	out, err := exec.CommandContext(ctx, bin, "binlog", "-v", filepath.Join(src.Datadir(), "binlog", file)).CombinedOutput()
	if err != nil {
		t.Fatalf("petrel binlog: %v\n%s", err, tail(string(out), 4096))
	}
	if n := strings.Count(string(out), "# Start of compressed events!"); n != rowTxns {
		t.Fatalf("petrel binlog printed %d compressed transactions, want %d", n, rowTxns)
	}
	if !strings.Contains(string(out), "### INSERT INTO `sbtest`.`sbtest1`") {
		t.Fatalf("petrel binlog -v printed no rows:\n%s", tail(string(out), 4096))
	}
}

// TestMariaDBReplicaRefusedCompressedLog: a real MariaDB replica pointed
// at a Petrel primary whose log holds compressed transactions applies
// what precedes them (the DDL, never compressed) and then stops with
// error 1236 naming binlog_transaction_compression, instead of being sent
// TRANSACTION_PAYLOAD events it cannot parse.
func TestMariaDBReplicaRefusedCompressedLog(t *testing.T) {
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	ctx := testContext(t, 3*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	mustExec(t, ctx, sdb,
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED WITH mysql_native_password BY '%s'", replUser, replPassword),
		fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'", replUser),
		"CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(100))",
		"INSERT INTO d.t VALUES (1, 'plain')",
		"SET GLOBAL binlog_transaction_compression = ON")
	// A new session takes the new global value.
	mustExec(t, ctx, rootDB(t, src, ""), "INSERT INTO d.t VALUES (2, 'compressed'), (3, 'compressed')")
	if n := binlogEventCounts(t, ctx, sdb)["Transaction_payload"]; n != 1 {
		t.Fatalf("%d Transaction_payload events in the primary's log, want 1", n)
	}

	m, err := lab.StartMariaDB(ctx, lab.MariaDBOptions{Datadir: t.TempDir(), ServerID: 2, ExtraArgs: []string{"--skip-log-bin"}})
	if err != nil {
		t.Fatalf("start mariadb: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("mariadb log:\n%s", tail(m.Log(), 8192))
		}
		m.Stop(ctx)
	})
	mdb, err := m.DB("")
	if err != nil {
		t.Fatal(err)
	}
	defer mdb.Close()
	mustExec(t, ctx, mdb,
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1", src.Port(), replUser, replPassword),
		"START SLAVE")
	deadline := time.Now().Add(60 * time.Second)
	var st map[string]string
	for {
		st = replicaStatus(t, ctx, mdb, "SHOW SLAVE STATUS")
		if st["Last_IO_Errno"] == "1236" && st["Slave_IO_Running"] == "No" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("MariaDB was not refused within 60s: IO %s errno %s %q, SQL errno %s %q", st["Slave_IO_Running"], st["Last_IO_Errno"], st["Last_IO_Error"], st["Last_SQL_Errno"], st["Last_SQL_Error"])
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(st["Last_IO_Error"], "binlog_transaction_compression") || !strings.Contains(st["Last_IO_Error"], "MariaDB") {
		t.Fatalf("Last_IO_Error %q does not name binlog_transaction_compression", st["Last_IO_Error"])
	}
	if st["Last_SQL_Errno"] != "0" {
		t.Fatalf("the SQL thread failed (%s %q): it was sent something it could not apply", st["Last_SQL_Errno"], st["Last_SQL_Error"])
	}
	// What preceded the compressed transaction was applied; nothing after.
	deadline = time.Now().Add(30 * time.Second)
	for queryInt(t, ctx, mdb, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'd' AND table_name = 't'") == 0 || queryInt(t, ctx, mdb, "SELECT COUNT(*) FROM d.t") != 1 {
		if time.Now().After(deadline) {
			t.Fatal("MariaDB did not apply the uncompressed transactions before the refusal")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if v := queryString(t, ctx, mdb, "SELECT GROUP_CONCAT(v ORDER BY id) FROM d.t"); v != "plain" {
		t.Fatalf("MariaDB holds %q, want only the plain row", v)
	}
}

// TestCompressedTransactionsThroughRelay: a primary's compressed
// transactions stay TRANSACTION_PAYLOAD events in a relay's binary log
// (the relay itself on a zstd-compressed link), and a replica fed by the
// relay applies them: rows and gtid_executed equal the primary's.
func TestCompressedTransactionsThroughRelay(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{ExtraArgs: []string{"--config", configFile(t, map[string]string{"binlog_transaction_compression": "ON"})}})
	sdb := rootDB(t, src, "")
	createReplUser(t, ctx, sdb)
	relay := startRelay(t, ctx, 10, nil)
	ydb := rootDB(t, relay, "")
	pointAt(t, ctx, ydb, src.Port(), ", SOURCE_COMPRESSION_ALGORITHMS = 'zstd'")
	rep := startReplicaServer(t, ctx, 11, nil)
	rdb := rootDB(t, rep, "")
	pointAtRelay(t, ctx, rdb, relay.Port())

	const rows, txns = 200, 100
	sysbenchWrites(t, ctx, sdb, rows, txns, 5)
	want := waitCaughtUp(t, ctx, sdb, ydb, 60*time.Second)
	if got := waitCaughtUp(t, ctx, sdb, rdb, 60*time.Second); got != want {
		t.Fatalf("replica %s, primary %s", got, want)
	}
	if n := sameTable(t, ctx, sdb, rdb, "sbtest.sbtest1", "id"); n != rows {
		t.Fatalf("%d rows, want %d", n, rows)
	}
	p, y := binlogEventCounts(t, ctx, sdb), binlogEventCounts(t, ctx, ydb)
	if p["Transaction_payload"] != rows/10+txns || y["Transaction_payload"] != p["Transaction_payload"] || y["Xid"] != 0 {
		t.Fatalf("payload events: primary %d, relay %d (relay's plain Xid events %d); want %d in both", p["Transaction_payload"], y["Transaction_payload"], y["Xid"], rows/10+txns)
	}
}
