package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestMariaDBReplicatesFromPetrel is the interop proof: a real MariaDB
// server replicates from a Petrel source by file and position (MariaDB
// skips MySQL's GTID events), through a sysbench write load, and ends
// with the same rows in every table and at the source's exact binlog
// position.
func TestMariaDBReplicatesFromPetrel(t *testing.T) {
	sysbench := requireTool(t, "sysbench", "/usr/bin/sysbench")
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	// MariaDB has no caching_sha2_password (Petrel's default): the
	// replication account is mysql_native_password. The greeting still
	// proposes caching_sha2_password; MariaDB's replication client answers
	// with an empty native response and Petrel switches, as MySQL does.
	mustExec(t, ctx, sdb,
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED WITH mysql_native_password BY '%s'", replUser, replPassword),
		fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'", replUser))
	mustExec(t, ctx, sdb, "CREATE DATABASE sbtest",
		// l is latin1 (logged as latin1 bytes), u utf8mb4 with Petrel's
		// default collation, utf8mb4_0900_ai_ci, which MariaDB does not
		// know (logged as utf8mb4_general_ci).
		"CREATE TABLE sbtest.types (id INT PRIMARY KEY, i8 TINYINT, u64 BIGINT UNSIGNED, d DECIMAL(20,6), f DOUBLE, s VARCHAR(50), b BLOB, dt DATETIME(6), ts TIMESTAMP(3) NULL, y YEAR, e ENUM('x','y'), j JSON, l VARCHAR(10) CHARACTER SET latin1, u VARCHAR(20) CHARACTER SET utf8mb4, UNIQUE KEY (u))",
		"INSERT INTO sbtest.types VALUES (1, -128, 18446744073709551615, -12345678901234.123456, 3.5e300, 'ünïcode', x'00ff', '2026-11-22 01:02:03.456789', '2026-11-22 01:02:03.456', 2026, 'y', '{\"k\": [1, 2, null]}', 'été', 'Bøb 😀'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
	sb := func(command string, d time.Duration) {
		t.Helper()
		res, err := lab.RunSysbench(ctx, lab.SysbenchOptions{
			Workload: "oltp_write_only", Command: command, Port: src.Port(), Password: rootPassword, DB: "sbtest",
			Tables: 2, TableSize: 2000, Threads: 4, Duration: d, Timeout: 2 * time.Minute, Binary: sysbench,
			ExtraArgs: []string{"--mysql-ignore-errors=1213"},
		})
		if err != nil {
			t.Fatalf("sysbench %s: %v", command, err)
		}
		if strings.Contains(res.Output, "FATAL") {
			t.Fatalf("sysbench %s:\n%s", command, res.Output)
		}
	}
	sb("prepare", 0)

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
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no, MASTER_HEARTBEAT_PERIOD=1", src.Port(), replUser, replPassword),
		"START SLAVE")
	sb("run", 8*time.Second)

	file, pos := binlogPosition(t, ctx, sdb)
	deadline := time.Now().Add(60 * time.Second)
	var st map[string]string
	for time.Now().Before(deadline) {
		st = replicaStatus(t, ctx, mdb, "SHOW SLAVE STATUS")
		if st["Relay_Master_Log_File"] == file && st["Exec_Master_Log_Pos"] == fmt.Sprint(pos) {
			break
		}
		if st["Slave_SQL_Running"] == "No" || st["Last_IO_Errno"] != "0" && st["Last_IO_Errno"] != "" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if st["Relay_Master_Log_File"] != file || st["Exec_Master_Log_Pos"] != fmt.Sprint(pos) {
		t.Fatalf("MariaDB stopped at %s:%s, source is at %s:%d; IO=%s SQL=%s io_err=%q sql_err=%q",
			st["Relay_Master_Log_File"], st["Exec_Master_Log_Pos"], file, pos, st["Slave_IO_Running"], st["Slave_SQL_Running"], st["Last_IO_Error"], st["Last_SQL_Error"])
	}
	total := 0
	for _, tb := range []string{"sbtest.sbtest1", "sbtest.sbtest2"} {
		total += sameTable(t, ctx, sdb, mdb, tb, "id")
	}
	if total != 4000 {
		t.Errorf("sbtest tables hold %d rows, want 4000 (write_only deletes and re-inserts)", total)
	}
	sameTable(t, ctx, sdb, mdb, "sbtest.types", "id")
	t.Logf("MariaDB applied up to %s:%d; %d sysbench rows identical", file, pos, total)
}
