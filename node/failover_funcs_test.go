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

// TestAsyncFailoverFunctionsAsExpressions: the source-list functions are
// SQL functions, not statements: they work under an alias, in DO, inside
// other expressions, with arguments from user variables, expressions and a
// prepared statement's parameters; each call edits the list exactly once
// (performance_schema.replication_asynchronous_connection_failover), bad
// argument types are 1123 whatever their source, and only SUPER or
// REPLICATION_SLAVE_ADMIN may call them (1227).
func TestAsyncFailoverFunctionsAsExpressions(t *testing.T) {
	n, err := node.Open(node.Options{Datadir: t.TempDir() + "/d", Port: 0, RootPassword: "pw",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	connect := func(user, pw string) *sql.DB {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, pw, "tcp", n.Addr()
		d, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		d.SetMaxOpenConns(1) // user variables live in the one session
		t.Cleanup(func() { d.Close() })
		return d
	}
	db := connect("root", "pw")
	const ok = "The UDF asynchronous_connection_failover_add_source() executed successfully."
	const okDel = "The UDF asynchronous_connection_failover_delete_source() executed successfully."
	list := func() string {
		t.Helper()
		return fmt.Sprint(queryRows(t, db, "SELECT HOST, PORT, WEIGHT FROM performance_schema.replication_asynchronous_connection_failover ORDER BY PORT"))
	}
	wantErr := func(db *sql.DB, num uint16, q string, args ...any) {
		t.Helper()
		_, err := db.Exec(q, args...)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != num {
			t.Fatalf("%s %v: got %v, want error %d", q, args, err, num)
		}
	}

	// An alias, and the value used inside another expression.
	if got := fmt.Sprint(queryRows(t, db, "SELECT asynchronous_connection_failover_add_source('', 'a', 3301, '', 10) AS r")); got != "[["+ok+"]]" {
		t.Fatalf("AS r: %s", got)
	}
	if got := fmt.Sprint(queryRows(t, db, "SELECT LENGTH(asynchronous_connection_failover_add_source('', 'b', 3302)) > 0, 7 AS x")); got != "[[1 7]]" {
		t.Fatalf("nested: %s", got)
	}
	// DO: no result set, the list still changes.
	mustExec(t, db, "DO asynchronous_connection_failover_add_source('', 'c', 3303, '', 30)")
	// Arguments from user variables and expressions.
	mustExec(t, db, "SET @h = 'd', @p = 3300 + 4, @w = 40")
	if got := fmt.Sprint(queryRows(t, db, "SELECT asynchronous_connection_failover_add_source('', CONCAT(@h, 'd'), @p, '', @w + 1)")); got != "[["+ok+"]]" {
		t.Fatalf("user variables: %s", got)
	}
	// A prepared statement's parameters (go-sql-driver prepares when
	// given arguments), executed twice with different values.
	st, err := db.Prepare("SELECT asynchronous_connection_failover_add_source(?, ?, ?, ?, ?) AS r")
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range []int{3305, 3306} {
		var r string
		if err := st.QueryRow("", "e", port, "", 60).Scan(&r); err != nil || r != ok {
			t.Fatalf("prepared %d: %q %v", port, r, err)
		}
	}
	st.Close()
	want := "[[a 3301 10] [b 3302 50] [c 3303 30] [dd 3304 41] [e 3305 60] [e 3306 60]]"
	if got := list(); got != want {
		t.Fatalf("list %s, want %s", got, want)
	}
	var r string
	if err := db.QueryRow("SELECT asynchronous_connection_failover_delete_source('', ?, ?, '')", "e", 3306).Scan(&r); err != nil || r != okDel {
		t.Fatalf("prepared delete: %q %v", r, err)
	}
	mustExec(t, db, "DO asynchronous_connection_failover_delete_source('', 'e', 3305)")

	// Mistyped arguments are 1123 whichever way they arrive, and nothing
	// is added.
	mustExec(t, db, "SET @sport = '3310', @dport = 3310.0, @nohost = NULL")
	for _, tc := range []struct {
		q    string
		args []any
	}{
		{q: "SELECT asynchronous_connection_failover_add_source('', 'x', @sport)"},
		{q: "SELECT asynchronous_connection_failover_add_source('', 'x', @dport)"},
		{q: "DO asynchronous_connection_failover_add_source('', @nohost, 3310)"},
		{q: "DO asynchronous_connection_failover_add_source('', '', 3310)"},
		{q: "DO asynchronous_connection_failover_add_source(1, 'x', 3310)"},
		{q: "DO asynchronous_connection_failover_add_source('', 'x', 3310, 7)"},
		{q: "DO asynchronous_connection_failover_add_source('', 'x', 3310, '', '50')"},
		{q: "SELECT asynchronous_connection_failover_add_source('', 'x', ?, '', 50)", args: []any{"3310"}},
		{q: "SELECT asynchronous_connection_failover_add_source('', 'x', 3310, '', ?)", args: []any{101}},
		{q: "DO asynchronous_connection_failover_delete_source('', 'x')"},
		{q: "DO asynchronous_connection_failover_delete_source('', 'x', 3310, '', 50)"},
	} {
		wantErr(db, 1123, tc.q, tc.args...)
	}
	// The list's own refusals stay 3200 in every form.
	wantErr(db, 3200, "DO asynchronous_connection_failover_add_source('', 'a', ?)", 3301)
	wantErr(db, 3200, "SELECT asynchronous_connection_failover_delete_source('', 'nosuch', 1) AS r")

	// Privileges: SUPER or REPLICATION_SLAVE_ADMIN.
	mustExec(t, db, "CREATE USER 'plain'@'%' IDENTIFIED BY 'p1'",
		"GRANT SELECT ON *.* TO 'plain'@'%'",
		"CREATE USER 'rsa'@'%' IDENTIFIED BY 'p2'",
		"GRANT REPLICATION_SLAVE_ADMIN ON *.* TO 'rsa'@'%'")
	plain := connect("plain", "p1")
	wantErr(plain, 1227, "SELECT asynchronous_connection_failover_add_source('', 'p', 3320)")
	wantErr(plain, 1227, "DO asynchronous_connection_failover_delete_source('', 'a', 3301)")
	rsa := connect("rsa", "p2")
	if _, err := rsa.Exec("DO asynchronous_connection_failover_add_source('', 'r', 3321, '', 90)"); err != nil {
		t.Fatalf("REPLICATION_SLAVE_ADMIN: %v", err)
	}
	want = "[[a 3301 10] [b 3302 50] [c 3303 30] [dd 3304 41] [r 3321 90]]"
	if got := list(); got != want {
		t.Fatalf("list %s, want %s", got, want)
	}
}
