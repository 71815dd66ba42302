package node_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Connection attributes sent in the handshake are shown in
// performance_schema.session_connect_attrs (every connection) and
// session_account_connect_attrs (the querying account's connections
// only), as MySQL shows them.
func TestConnectionAttributes(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE USER 'app'@'%' IDENTIFIED BY 'x'", "GRANT SELECT ON *.* TO 'app'@'%'")
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "app", "x", "tcp", n.Addr()
	// As go-sql-driver's own TestConnectionAttributes passes them.
	dsn := cfg.FormatDSN() + "?connectionAttributes=" + url.QueryEscape("program_name:petrel-test,fo/o:bo/o")
	app, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	app.SetMaxOpenConns(1)

	var id int
	if err := app.QueryRow("SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	own := attrsOf(t, app, "session_account_connect_attrs", id)
	want := map[string]string{"program_name": "petrel-test", "fo/o": "bo/o", "_client_name": "Go-MySQL-Driver", "_pid": fmt.Sprint(os.Getpid())}
	for k, v := range want {
		if own[k] != v {
			t.Errorf("session_account_connect_attrs %s = %q, want %q (all: %v)", k, own[k], v, own)
		}
	}
	// Ordinal positions run 0.. in the order sent, without gaps.
	pos := queryRows(t, app, "SELECT ORDINAL_POSITION FROM performance_schema.session_account_connect_attrs WHERE PROCESSLIST_ID = ? ORDER BY ORDINAL_POSITION", id)
	for i, r := range pos {
		if r[0] != fmt.Sprint(i) {
			t.Fatalf("ordinal positions %v, want 0..%d", pos, len(pos)-1)
		}
	}
	if len(pos) != len(own) {
		t.Errorf("%d positions for %d attributes", len(pos), len(own))
	}
	// root sees app's connection in session_connect_attrs, not in its
	// own account's table; app does not see root's.
	if got := attrsOf(t, root, "session_connect_attrs", id); got["program_name"] != "petrel-test" {
		t.Errorf("root's session_connect_attrs for connection %d: %v", id, got)
	}
	if got := attrsOf(t, root, "session_account_connect_attrs", id); len(got) != 0 {
		t.Errorf("root's session_account_connect_attrs shows app's connection: %v", got)
	}
	var rootID int
	if err := root.QueryRow("SELECT CONNECTION_ID()").Scan(&rootID); err != nil {
		t.Fatal(err)
	}
	if got := attrsOf(t, app, "session_account_connect_attrs", rootID); len(got) != 0 {
		t.Errorf("app's session_account_connect_attrs shows root's connection: %v", got)
	}
	// A closed connection's attributes are gone.
	app.Close()
	for i := 0; i < 50; i++ {
		if len(attrsOf(t, root, "session_connect_attrs", id)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("connection %d closed, its attributes still listed", id)
}

func attrsOf(t *testing.T, db *sql.DB, table string, id int) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range queryRows(t, db, "SELECT ATTR_NAME, ATTR_VALUE FROM performance_schema."+table+" WHERE PROCESSLIST_ID = ?", id) {
		out[r[0]] = r[1]
	}
	return out
}
