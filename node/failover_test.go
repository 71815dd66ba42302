package node_test

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// TestAsyncFailoverSQLSurface: MySQL 8.0.22's source-list functions answer
// as MySQL's do, refuse bad arguments with MySQL's numbers, show in
// performance_schema.replication_asynchronous_connection_failover and
// survive a restart, as does SOURCE_CONNECTION_AUTO_FAILOVER with its
// rule (GTID auto-positioning: 3991, 3993).
func TestAsyncFailoverSQLSurface(t *testing.T) {
	opts := node.Options{Datadir: t.TempDir() + "/d", Port: 0, RootPassword: "pw",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard}
	n, err := node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { n.Close() }()
	connect := func(n *node.Node) *sql.DB {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
		d, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		d.SetMaxOpenConns(1)
		t.Cleanup(func() { d.Close() })
		return d
	}
	db := connect(n)
	rows := func(db *sql.DB, q string) string { return fmt.Sprint(queryRows(t, db, q)) }
	wantErr := func(db *sql.DB, q string, num uint16) {
		t.Helper()
		_, err := db.Exec(q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != num {
			t.Fatalf("%s: got %v, want error %d", q, err, num)
		}
	}
	const table = "SELECT * FROM performance_schema.replication_asynchronous_connection_failover"
	if got := rows(db, "SHOW TABLES FROM performance_schema LIKE 'replication_async%'"); got != "[[replication_asynchronous_connection_failover]]" {
		t.Fatalf("SHOW TABLES: %s", got)
	}
	if got := rows(db, table); got != "[]" {
		t.Fatalf("empty list: %s", got)
	}
	r, err := db.Query("SELECT asynchronous_connection_failover_add_source('', '127.0.0.1', 3310, '', 70)")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := r.Columns()
	r.Next()
	var msg string
	r.Scan(&msg)
	r.Close()
	if cols[0] != "asynchronous_connection_failover_add_source('', '127.0.0.1', 3310, '', 70)" || msg != "The UDF asynchronous_connection_failover_add_source() executed successfully." {
		t.Fatalf("column %q, value %q", cols[0], msg)
	}
	if got := rows(db, "SELECT asynchronous_connection_failover_add_source('', 'relay-b', 3311) AS v"); got != "[[The UDF asynchronous_connection_failover_add_source() executed successfully.]]" {
		t.Fatal(got)
	}
	mustExec(t, db, "SELECT asynchronous_connection_failover_add_source('', 'relay-c', 3312, '', 10)")
	for _, tc := range []struct {
		q   string
		num uint16
	}{
		{"SELECT asynchronous_connection_failover_add_source('', '127.0.0.1', 3310, '', 60)", 3200}, // already listed
		{"SELECT asynchronous_connection_failover_add_source('', 'h', 3306, '', 0)", 1123},          // weight 1..100, checked as MySQL's UDF init does
		{"SELECT asynchronous_connection_failover_add_source('', 'h', 3306, '', 101)", 1123},
		{"SELECT asynchronous_connection_failover_add_source('ch2', 'h', 3306, '', 50)", 3200}, // no such channel
		{"SELECT asynchronous_connection_failover_add_source('', 'h', 3306, 'ns1', 50)", 3200}, // namespaces
		{"SELECT asynchronous_connection_failover_add_source('', 'h', 0, '', 50)", 3200},       // port
		{"SELECT asynchronous_connection_failover_add_source('', 'h')", 1123},                  // too few
		{"SELECT asynchronous_connection_failover_add_source('', 'h', '3306')", 1123},          // port as a string
		{"SELECT asynchronous_connection_failover_add_source('', 'h', 1, '', 5, 6)", 1123},     // too many
		{"SELECT asynchronous_connection_failover_delete_source('', 'nosuch', 3306, '')", 3200},
		{"SELECT asynchronous_connection_failover_add_source('', NULL, 3306)", 1123},
		{"SELECT HOSTX FROM performance_schema.replication_asynchronous_connection_failover", 1054},
		{"CREATE VIEW performance_schema.v AS SELECT 1", 1044},
		// Auto failover needs GTID auto-positioning (3991), and keeps it (3993).
		{"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=3310, SOURCE_AUTO_POSITION=0, SOURCE_CONNECTION_AUTO_FAILOVER=1", 3991},
	} {
		wantErr(db, tc.q, tc.num)
	}
	mustExec(t, db, "SELECT asynchronous_connection_failover_delete_source('', 'relay-c', 3312, '')",
		"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=3310, SOURCE_AUTO_POSITION=1, SOURCE_CONNECTION_AUTO_FAILOVER=1, SOURCE_RETRY_COUNT=2")
	wantErr(db, "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION=0", 3993)
	want := "[[ 127.0.0.1 3310  70 ] [ relay-b 3311  50 ]]"
	if got := rows(db, table); got != want {
		t.Fatalf("list %s, want %s", got, want)
	}
	if got := rows(db, "SELECT HOST, weight FROM performance_schema.replication_asynchronous_connection_failover WHERE CHANNEL_NAME = ''"); got != "[[127.0.0.1 70] [relay-b 50]]" {
		t.Fatal(got)
	}
	if got := rows(db, "SHOW GLOBAL STATUS LIKE 'Petrel_replica_source%switches'"); got != "[[Petrel_replica_source_lag_switches 0] [Petrel_replica_source_switches 0]]" {
		t.Fatal(got)
	}
	if got := rows(db, "SELECT @@GLOBAL.replica_failover_lag_transactions, @@GLOBAL.replica_failover_lag_seconds"); got != "[[1000 10]]" {
		t.Fatal(got)
	}

	// A restart keeps the list and the setting.
	db.Close()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err = node.Open(opts); err != nil {
		t.Fatal(err)
	}
	db = connect(n)
	if got := rows(db, table); got != want {
		t.Fatalf("list after a restart %s, want %s", got, want)
	}
	mustExec(t, db, "STOP REPLICA") // a configured replica starts with the server
	wantErr(db, "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION=0", 3993)
	mustExec(t, db, "CHANGE REPLICATION SOURCE TO SOURCE_CONNECTION_AUTO_FAILOVER=0, SOURCE_AUTO_POSITION=0")
}
