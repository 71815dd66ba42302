package e2e

import (
	"context"
	"database/sql"
	"testing"

	"petrel/lab"
)

// startMariaDB starts a MariaDB on a temporary datadir (server id id, no
// binary log of its own) and returns it with a root pool; both are
// closed at the test's end, and a failed test logs MariaDB's log.
func startMariaDB(t *testing.T, ctx context.Context, id int) (*lab.MariaDB, *sql.DB) {
	t.Helper()
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	m, err := lab.StartMariaDB(ctx, lab.MariaDBOptions{Datadir: t.TempDir(), ServerID: id, ExtraArgs: []string{"--skip-log-bin"}})
	if err != nil {
		t.Fatalf("start mariadb: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("mariadb log:\n%s", tail(m.Log(), 8192))
		}
		m.Stop(context.Background())
	})
	db, err := m.DB("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return m, db
}
