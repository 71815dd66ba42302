package node_test

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// TestTwoServersInProcess: a primary and a replica, two whole nodes with
// a SQL engine each, in one process. Each keeps its own system
// variables (sqlengine.Globals): @@global.server_id and server_uuid are
// each server's, a SET GLOBAL on one (read_only, the semi-sync switches)
// changes that server alone and reaches that server's components (its
// semi-sync tracker, its replica), and SHOW GLOBAL VARIABLES, SHOW
// GLOBAL STATUS and performance_schema answer per server. The replica
// applies the primary's DDL through its own SQL engine (tables, an
// ALTER, an index, a view, an account and its grants), SHOW REPLICA
// STATUS on it describes its link to the primary, and with read_only
// on it refuses the replicated account's write (1290) while the primary
// takes the same write and the replica applies it.
func TestTwoServersInProcess(t *testing.T) {
	dir := t.TempDir()
	prim, pdb := openNodeOpts(t, node.Options{Datadir: filepath.Join(dir, "p"), ServerID: 1})
	rep, rdb := openNodeOpts(t, node.Options{Datadir: filepath.Join(dir, "r"), ServerID: 2})
	one := func(db *sql.DB, q string) string {
		t.Helper()
		rows := queryRows(t, db, q)
		if len(rows) != 1 || len(rows[0]) == 0 {
			t.Fatalf("%s: %v, want one row", q, rows)
		}
		return rows[len(rows)-1][len(rows[0])-1]
	}
	// waitFor polls until f reports done, for up to 30 s.
	waitFor := func(what string, f func() (bool, string)) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			done, got := f()
			if done {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: still %s after 30 s", what, got)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// login is a new client of n (new sessions).
	login := func(n *node.Node, user, pw string) *sql.DB {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, pw, "tcp", n.Addr()
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}

	// Each server's identity.
	for _, q := range []string{"SELECT @@global.server_id", "SELECT @@server_id", "SHOW GLOBAL VARIABLES LIKE 'server_id'",
		"SELECT VARIABLE_VALUE FROM performance_schema.global_variables WHERE VARIABLE_NAME = 'server_id'"} {
		if p, r := one(pdb, q), one(rdb, q); p != "1" || r != "2" {
			t.Errorf("%s: primary %s, replica %s; want 1 and 2", q, p, r)
		}
	}
	primUUID, repUUID := one(pdb, "SELECT @@global.server_uuid"), one(rdb, "SELECT @@global.server_uuid")
	if primUUID == repUUID {
		t.Errorf("both servers answer server_uuid %s", primUUID)
	}

	// A new session starts from its own server's global values.
	mustExec(t, rdb, "SET GLOBAL div_precision_increment = 8")
	newP, newR := login(prim, "root", "pw"), login(rep, "root", "pw")
	if p, r := one(newP, "SELECT @@session.div_precision_increment"), one(newR, "SELECT @@session.div_precision_increment"); p != "4" || r != "8" {
		t.Errorf("div_precision_increment in a new session: primary %s, replica %s; want 4 and 8", p, r)
	}

	// Semi-sync on: the source's switch on the primary, the replica's on
	// the replica; each reaches its own server's component only. (No
	// replica is connected yet: the primary's first commit waits 0.1 s,
	// then it goes on asynchronously until the replica acknowledges.)
	mustExec(t, pdb, "SET GLOBAL rpl_semi_sync_source_timeout = 100", "SET GLOBAL rpl_semi_sync_source_enabled = 1")
	mustExec(t, rdb, "SET GLOBAL rpl_semi_sync_replica_enabled = 1")
	if p, r := one(pdb, "SELECT @@global.rpl_semi_sync_source_enabled"), one(rdb, "SELECT @@global.rpl_semi_sync_source_enabled"); p != "1" || r != "0" {
		t.Errorf("rpl_semi_sync_source_enabled: primary %s, replica %s; want 1 and 0", p, r)
	}
	if p, r := one(pdb, "SELECT @@global.rpl_semi_sync_replica_enabled"), one(rdb, "SELECT @@global.rpl_semi_sync_replica_enabled"); p != "0" || r != "1" {
		t.Errorf("rpl_semi_sync_replica_enabled: primary %s, replica %s; want 0 and 1", p, r)
	}

	// read_only on the primary only, then on the replica only (which stays
	// read-only: replication goes on, the replicated account cannot write).
	readOnly := func() (string, string) {
		return one(pdb, "SELECT @@global.read_only"), one(rdb, "SELECT @@global.read_only")
	}
	mustExec(t, pdb, "SET GLOBAL read_only = 1")
	if p, r := readOnly(); p != "1" || r != "0" {
		t.Errorf("after SET GLOBAL read_only = 1 on the primary only: primary %s, replica %s", p, r)
	}
	mustExec(t, pdb, "SET GLOBAL read_only = 0")
	mustExec(t, rdb, "SET GLOBAL read_only = 1")
	if p, r := readOnly(); p != "0" || r != "1" {
		t.Errorf("after SET GLOBAL read_only = 1 on the replica: primary %s, replica %s", p, r)
	}
	if p, r := one(pdb, "SHOW GLOBAL VARIABLES LIKE 'read_only'"), one(rdb, "SHOW GLOBAL VARIABLES LIKE 'read_only'"); p != "OFF" || r != "ON" {
		t.Errorf("SHOW GLOBAL VARIABLES LIKE 'read_only': primary %s, replica %s", p, r)
	}

	// The primary's schema, data and an account; the replica starts after.
	mustExec(t, pdb, "CREATE DATABASE d",
		"CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))",
		"INSERT INTO d.t VALUES (1, 'a'), (2, 'b')",
		"ALTER TABLE d.t ADD COLUMN n INT NOT NULL DEFAULT 7",
		"CREATE INDEX iv ON d.t (v)",
		"CREATE VIEW d.vw AS SELECT id, v FROM d.t WHERE id > 1",
		"CREATE USER 'app'@'%' IDENTIFIED BY 'apw'",
		"GRANT SELECT, INSERT ON d.* TO 'app'@'%'",
		"INSERT INTO d.t (id, v) VALUES (3, 'c')")
	// Each server's live variables read its own binary log.
	if p, r := one(pdb, "SELECT @@global.gtid_executed"), one(rdb, "SELECT @@global.gtid_executed"); !strings.HasPrefix(p, primUUID+":1-") || r != "" {
		t.Errorf("gtid_executed before the replica starts: primary %q, replica %q", p, r)
	}
	mustExec(t, rdb, fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%s, SOURCE_USER='root', SOURCE_PASSWORD='pw', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1", srcPort(t, prim)),
		"START REPLICA")
	caughtUp := func() {
		t.Helper()
		waitFor("the replica's gtid_executed", func() (bool, string) {
			p, r := one(pdb, "SELECT @@global.gtid_executed"), one(rdb, "SELECT @@global.gtid_executed")
			return p == r, fmt.Sprintf("%q on the replica, %q on the primary", r, p)
		})
	}
	caughtUp()

	// The replicated DDL, applied by the replica's SQL engine.
	for _, q := range []string{"SHOW CREATE TABLE d.t", "SELECT * FROM d.t ORDER BY id", "SELECT * FROM d.vw ORDER BY id", "SHOW GRANTS FOR 'app'@'%'"} {
		if p, r := fmt.Sprint(queryRows(t, pdb, q)), fmt.Sprint(queryRows(t, rdb, q)); p != r {
			t.Errorf("%s: replica %s, primary %s", q, r, p)
		}
	}
	if got := fmt.Sprint(queryRows(t, rdb, "SELECT id, v, n FROM d.t ORDER BY id")); got != "[[1 a 7] [2 b 7] [3 c 7]]" {
		t.Errorf("the replica's rows: %s", got)
	}
	if got := fmt.Sprint(queryRows(t, rdb, "SELECT id FROM d.t FORCE INDEX (iv) WHERE v >= 'b' ORDER BY v")); got != "[[2] [3]]" {
		t.Errorf("the replica's index iv: %s", got)
	}

	// SHOW REPLICA STATUS: the replica's link; the primary has none.
	status := func(db *sql.DB) map[string]string {
		t.Helper()
		rows, err := db.Query("SHOW REPLICA STATUS")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		all := scanRows(t, rows)
		rows.Close()
		if len(all) == 0 {
			return nil
		}
		m := map[string]string{}
		for i, c := range cols {
			m[c] = all[0][i]
		}
		return m
	}
	st := status(rdb)
	gtids := strings.ReplaceAll(one(pdb, "SELECT @@global.gtid_executed"), "\n", "")
	for col, want := range map[string]string{
		"Replica_IO_Running": "Yes", "Replica_SQL_Running": "Yes", "Source_Host": "127.0.0.1", "Source_Port": srcPort(t, prim),
		"Source_Server_Id": "1", "Source_UUID": primUUID, "Last_IO_Error": "", "Last_SQL_Error": "", "Auto_Position": "1",
		"Executed_Gtid_Set": gtids,
	} {
		if got := strings.ReplaceAll(st[col], "\n", ""); got != want {
			t.Errorf("the replica's SHOW REPLICA STATUS %s = %q, want %q", col, got, want)
		}
	}
	if st := status(pdb); st != nil {
		t.Errorf("the primary's SHOW REPLICA STATUS: %v, want no row", st)
	}

	// Semi-sync: the primary's tracker has the replica as its client and
	// the primary's commits waited for its acks; the replica's status is
	// the replica side's.
	globalStatus := func(db *sql.DB, name string) string {
		t.Helper()
		rows := queryRows(t, db, "SHOW GLOBAL STATUS LIKE '"+name+"'")
		if len(rows) != 1 {
			t.Fatalf("SHOW GLOBAL STATUS LIKE '%s': %v", name, rows)
		}
		return rows[0][1]
	}
	waitFor("the primary's semi-sync clients", func() (bool, string) {
		got := globalStatus(pdb, "Rpl_semi_sync_source_clients")
		return got == "1", got
	})
	mustExec(t, pdb, "SET GLOBAL rpl_semi_sync_source_timeout = 10000")
	mustExec(t, pdb, "INSERT INTO d.t (id, v) VALUES (4, 'd')")
	if got := globalStatus(pdb, "Rpl_semi_sync_source_yes_tx"); got == "0" {
		t.Errorf("the primary's Rpl_semi_sync_source_yes_tx = %s after a semi-sync commit", got)
	}
	if p, r := globalStatus(pdb, "Rpl_semi_sync_replica_status"), globalStatus(rdb, "Rpl_semi_sync_replica_status"); p != "OFF" || r != "ON" {
		t.Errorf("Rpl_semi_sync_replica_status: primary %s, replica %s; want OFF and ON", p, r)
	}
	if got := globalStatus(rdb, "Rpl_semi_sync_source_clients"); got != "0" {
		t.Errorf("the replica's Rpl_semi_sync_source_clients = %s, want 0", got)
	}

	appP, appR := login(prim, "app", "apw"), login(rep, "app", "apw")
	_, err := appR.Exec("INSERT INTO d.t (id, v) VALUES (10, 'r')")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1290 {
		t.Errorf("the app's write on the read-only replica: %v, want error 1290", err)
	}
	if _, err := appP.Exec("INSERT INTO d.t (id, v) VALUES (11, 'p')"); err != nil {
		t.Errorf("the app's write on the primary: %v", err)
	}
	caughtUp()
	if got := fmt.Sprint(queryRows(t, rdb, "SELECT id FROM d.t WHERE id >= 4 ORDER BY id")); got != "[[4] [11]]" {
		t.Errorf("the read-only replica's rows from id 4: %s, want the primary's 4 and 11 only", got)
	}
}
