package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestVariables checks the identity variables, read_only and
// super_read_only, SET GLOBAL visibility and the lock status counters.
func TestVariables(t *testing.T) {
	const serverID = 4242
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{ServerID: serverID})
	root := rootDB(t, p, "")

	if v := queryString(t, ctx, root, "SELECT @@version"); !strings.HasPrefix(v, "8.0.") || !strings.HasSuffix(v, "-petrel") {
		t.Errorf("@@version = %q, want 8.0.*-petrel", v)
	}
	if v := queryInt(t, ctx, root, "SELECT @@server_id"); v != serverID {
		t.Errorf("@@server_id = %d, want %d (--server-id)", v, serverID)
	}
	uuid := queryString(t, ctx, root, "SELECT @@server_uuid")
	if !uuidRE.MatchString(uuid) {
		t.Errorf("@@server_uuid = %q is not a UUID", uuid)
	}

	t.Run("read_only", func(t *testing.T) {
		mustExec(t, ctx, root,
			"CREATE DATABASE ro",
			"CREATE TABLE ro.t (id INT PRIMARY KEY, who VARCHAR(10))",
			"CREATE USER 'writer'@'%' IDENTIFIED BY 'wpw'",
			"GRANT SELECT, INSERT ON ro.* TO 'writer'@'%'")
		w := openConfig(t, clientConfig(t, p, "writer", "wpw", "ro"))
		mustExec(t, ctx, w, "INSERT INTO t VALUES (1, 'writer')")

		mustExec(t, ctx, root, "SET GLOBAL read_only = 1")
		_, err := w.ExecContext(ctx, "INSERT INTO t VALUES (2, 'writer')")
		wantErrNo(t, "INSERT by a non-SUPER user with read_only=1", err, erOptionPreventsStmt)
		if _, err := root.ExecContext(ctx, "INSERT INTO ro.t VALUES (3, 'root')"); err != nil {
			t.Errorf("INSERT by root with read_only=1: %v; want success (root has SUPER)", err)
		}

		mustExec(t, ctx, root, "SET GLOBAL super_read_only = 1")
		if v := queryInt(t, ctx, root, "SELECT @@GLOBAL.read_only"); v != 1 {
			t.Errorf("@@GLOBAL.read_only = %d with super_read_only=1, want 1", v)
		}
		_, err = root.ExecContext(ctx, "INSERT INTO ro.t VALUES (4, 'root')")
		wantErrNo(t, "INSERT by root with super_read_only=1", err, erOptionPreventsStmt)
		_, err = w.ExecContext(ctx, "INSERT INTO t VALUES (5, 'writer')")
		wantErrNo(t, "INSERT by a non-SUPER user with super_read_only=1", err, erOptionPreventsStmt)

		mustExec(t, ctx, root, "SET GLOBAL super_read_only = 0", "SET GLOBAL read_only = 0")
		mustExec(t, ctx, w, "INSERT INTO t VALUES (6, 'writer')")
		if got := queryString(t, ctx, root, "SELECT GROUP_CONCAT(CONCAT(id, ':', who) ORDER BY id) FROM ro.t"); got != "1:writer,3:root,6:writer" {
			t.Errorf("rows: %q, want \"1:writer,3:root,6:writer\" (only the writes allowed at the time)", got)
		}
	})

	t.Run("SET GLOBAL", func(t *testing.T) {
		c := conn(t, ctx, root)
		mustExec(t, ctx, c, "SET GLOBAL innodb_lock_wait_timeout = 7")
		if v := queryInt(t, ctx, c, "SELECT @@GLOBAL.innodb_lock_wait_timeout"); v != 7 {
			t.Errorf("same session: @@GLOBAL.innodb_lock_wait_timeout = %d right after SET GLOBAL ... = 7", v)
		}
		if v := queryInt(t, ctx, c, "SELECT @@SESSION.innodb_lock_wait_timeout"); v != 50 {
			t.Errorf("same session: @@SESSION.innodb_lock_wait_timeout = %d, want 50 (SET GLOBAL does not change existing sessions)", v)
		}
		fresh := openConfig(t, clientConfig(t, p, "root", rootPassword, ""))
		if v := queryInt(t, ctx, fresh, "SELECT @@SESSION.innodb_lock_wait_timeout"); v != 7 {
			t.Errorf("new session: @@SESSION.innodb_lock_wait_timeout = %d, want 7 (new sessions start from the global)", v)
		}
		mustExec(t, ctx, c, "SET GLOBAL innodb_lock_wait_timeout = 50")
	})

	t.Run("status", func(t *testing.T) {
		if v := globalStatus(t, ctx, root, "Innodb_row_lock_waits"); v < 0 {
			t.Errorf("Innodb_row_lock_waits = %d", v)
		}
		if v := globalStatus(t, ctx, root, "Petrel_commits"); v < 1 {
			t.Errorf("Petrel_commits = %d after committed writes, want > 0", v)
		}
	})

	if err := p.Restart(ctx); err != nil {
		t.Fatalf("restart: %v", err)
	}
	again := openConfig(t, clientConfig(t, p, "root", rootPassword, ""))
	if v := queryString(t, ctx, again, "SELECT @@server_uuid"); v != uuid {
		t.Errorf("@@server_uuid changed across restart: %q -> %q", uuid, v)
	}
	if v := queryInt(t, ctx, again, "SELECT @@server_id"); v != serverID {
		t.Errorf("after restart: @@server_id = %d, want %d", v, serverID)
	}
	if v := queryInt(t, ctx, again, "SELECT @@GLOBAL.read_only"); v != 0 {
		t.Errorf("after restart: read_only = %d, want 0", v)
	}
}
