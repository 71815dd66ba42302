package e2e

import (
	"context"
	"crypto/sha1"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// nativeHash is mysql_native_password's stored form of a password.
func nativeHash(pw string) string {
	a := sha1.Sum([]byte(pw))
	b := sha1.Sum(a[:])
	return "*" + strings.ToUpper(hex.EncodeToString(b[:]))
}

// accountsOf reads (user, host, plugin, hash) of every account but the
// server's own (root, mysql.*), sorted.
func accountsOf(t *testing.T, ctx context.Context, db querier) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SELECT user, host, plugin, authentication_string FROM mysql.user WHERE user NOT IN ('root', 'repl', 'mariadb.sys', 'mysql.session', 'PUBLIC', '')")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var u, h, p, a string
		if err := rows.Scan(&u, &h, &p, &a); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s@%s %s %s", u, h, p, a))
	}
	slices.Sort(out)
	return out
}

// grantsOf is SHOW GRANTS FOR account, one string per line.
func grantsOf(t *testing.T, ctx context.Context, db querier, account string) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SHOW GRANTS FOR "+account)
	if err != nil {
		t.Fatalf("SHOW GRANTS FOR %s: %v", account, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// login connects as user with password to the server at dsn and returns
// CURRENT_USER(), or the error (1045 for a refused login).
func login(ctx context.Context, dsn, user, password string) (string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", err
	}
	cfg.User, cfg.Passwd, cfg.Logger = user, password, &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return "", err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var who string
	err = db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&who)
	return who, err
}

// startMariaDBReplica starts a MariaDB server replicating from the Petrel
// source on port by file and position from the first binlog.
func startMariaDBReplica(t *testing.T, ctx context.Context, port int) (*lab.MariaDB, *sql.DB) {
	t.Helper()
	m, mdb := startMariaDB(t, ctx, 3)
	mustExec(t, ctx, mdb,
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no, MASTER_HEARTBEAT_PERIOD=1, MASTER_CONNECT_RETRY=1", port, replUser, replPassword),
		"START SLAVE")
	return m, mdb
}

// waitMariaDBAt waits until the MariaDB replica executed up to the
// source's current binlog position.
func waitMariaDBAt(t *testing.T, ctx context.Context, sdb, mdb *sql.DB, within time.Duration) {
	t.Helper()
	file, pos := binlogPosition(t, ctx, sdb)
	deadline := time.Now().Add(within)
	var st map[string]string
	for time.Now().Before(deadline) {
		st = replicaStatus(t, ctx, mdb, "SHOW SLAVE STATUS")
		if st["Relay_Master_Log_File"] == file && st["Exec_Master_Log_Pos"] == fmt.Sprint(pos) {
			return
		}
		if st["Slave_SQL_Running"] == "No" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("MariaDB stopped at %s:%s, source is at %s:%d; IO=%s SQL=%s io_err=%q sql_err=%q",
		st["Relay_Master_Log_File"], st["Exec_Master_Log_Pos"], file, pos, st["Slave_IO_Running"], st["Slave_SQL_Running"], st["Last_IO_Error"], st["Last_SQL_Error"])
}

// TestAccountsReplicate: account statements run on a Petrel primary are
// logged as statements carrying the password hash (never the clear text)
// and applied by a Petrel replica (with super_read_only on) and by a
// MariaDB replica: the same accounts, hashes and grants everywhere, and
// logins that work (or are refused) alike. A failed statement logs
// nothing; an acknowledged one survives a kill -9 of the primary.
func TestAccountsReplicate(t *testing.T) {
	tool := requireTool(t, "mariadb-binlog", "/usr/bin/mariadb-binlog")
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	ctx := testContext(t, 4*time.Minute)
	// MariaDB has no caching_sha2_password: a primary with MariaDB
	// replicas creates mysql_native_password accounts, as a MySQL 8
	// primary must.
	src := startPetrel(t, ctx, lab.PetrelOptions{ExtraArgs: []string{"--config",
		configFile(t, map[string]string{"default_authentication_plugin": "mysql_native_password"})}})
	rep := startReplicaServer(t, ctx, 2, map[string]string{"super_read_only": "1"})
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUser(t, ctx, sdb)
	pointAt(t, ctx, rdb, src.Port(), "")
	_, mdb := startMariaDBReplica(t, ctx, src.Port())
	m := mariaDSN(t, ctx, mdb)

	mustExec(t, ctx, sdb,
		"CREATE DATABASE acc", "CREATE TABLE acc.t (id INT PRIMARY KEY, v VARCHAR(20))", "INSERT INTO acc.t VALUES (1, 'one'), (2, 'two')",
		"CREATE USER 'app'@'%' IDENTIFIED BY 'app-pw-1'",
		"GRANT SELECT, INSERT ON acc.* TO 'app'@'%'",
		"CREATE USER 'old'@'%' IDENTIFIED BY 'old-pw'",
		"GRANT SELECT ON acc.* TO 'old'@'%'",
		"RENAME USER 'old'@'%' TO 'renamed'@'%'",
		"SET PASSWORD FOR 'renamed'@'%' = 'renamed-pw'",
		"CREATE USER 'gone'@'%' IDENTIFIED BY 'gone-pw'",
		"GRANT SELECT ON acc.* TO 'gone'@'%'",
		"ALTER USER 'app'@'%' IDENTIFIED BY 'app-pw-2'",
		"REVOKE INSERT ON acc.* FROM 'app'@'%'",
		"CREATE USER 'self'@'%' IDENTIFIED BY 'self-pw-1'",
		"GRANT SELECT ON acc.* TO 'self'@'%'",
		"DROP USER 'gone'@'%'",
		"CREATE USER 'nopw'@'%'",
	)
	// Anyone may change their own password.
	selfDB := openConfig(t, clientConfig(t, src, "self", "self-pw-1", ""))
	mustExec(t, ctx, selfDB, "SET PASSWORD = 'self-pw-2'")

	// A failed statement changes nothing and logs nothing (GMS adds 'half'
	// before it finds 'app' exists).
	before := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed")
	_, err := sdb.ExecContext(ctx, "CREATE USER 'half'@'%' IDENTIFIED BY 'half-pw', 'app'@'%' IDENTIFIED BY 'x'")
	wantErrNo(t, "CREATE USER of an existing account", err, 1396)
	if after := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed"); after != before {
		t.Errorf("a failed CREATE USER was logged: gtid_executed %s -> %s", before, after)
	}
	if n := queryInt(t, ctx, sdb, "SELECT COUNT(*) FROM mysql.user WHERE user = 'half'"); n != 0 {
		t.Errorf("a failed CREATE USER left %d 'half' account(s) behind", n)
	}
	// Replicas refuse account statements of their own (super_read_only).
	_, err = rdb.ExecContext(ctx, "CREATE USER 'local'@'%' IDENTIFIED BY 'x'")
	wantErrNo(t, "CREATE USER on a super_read_only replica", err, erOptionPreventsStmt)

	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	waitMariaDBAt(t, ctx, sdb, mdb, 30*time.Second)

	want := []string{
		"app@% mysql_native_password " + nativeHash("app-pw-2"),
		"nopw@% mysql_native_password ",
		"renamed@% mysql_native_password " + nativeHash("renamed-pw"),
		"self@% mysql_native_password " + nativeHash("self-pw-2"),
	}
	for _, s := range []struct {
		name string
		db   *sql.DB
	}{{"primary", sdb}, {"petrel replica", rdb}, {"mariadb replica", mdb}} {
		if got := accountsOf(t, ctx, s.db); !slices.Equal(got, want) {
			t.Errorf("%s: accounts\n%s\nwant\n%s", s.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if g, w := grantsOf(t, ctx, rdb, "'app'@'%'"), grantsOf(t, ctx, sdb, "'app'@'%'"); !slices.Equal(g, w) {
		t.Errorf("petrel replica: grants of app %q, primary %q", g, w)
	}
	if g := grantsOf(t, ctx, rdb, "'renamed'@'%'"); !slices.Contains(g, "GRANT SELECT ON `acc`.* TO `renamed`@`%`") {
		t.Errorf("petrel replica: grants of renamed %q lack SELECT on acc (RENAME USER keeps privileges)", g)
	}
	if g := strings.Join(grantsOf(t, ctx, mdb, "'app'@'%'"), "\n"); !strings.Contains(g, "GRANT SELECT ON `acc`.* TO `app`@`%`") || strings.Contains(g, "INSERT") {
		t.Errorf("mariadb replica: grants of app:\n%s\nwant SELECT on acc and no INSERT", g)
	}

	// Logins: the same outcome on all three servers.
	logins := []struct {
		user, pw string
		ok       bool
	}{
		{"app", "app-pw-2", true}, {"app", "app-pw-1", false},
		{"renamed", "renamed-pw", true}, {"old", "old-pw", false},
		{"gone", "gone-pw", false},
		{"self", "self-pw-2", true}, {"self", "self-pw-1", false},
		{"half", "half-pw", false},
		{"nopw", "", true}, {"nopw", "x", false},
	}
	for _, s := range []struct{ name, dsn string }{{"primary", src.DSN("")}, {"petrel replica", rep.DSN("")}, {"mariadb replica", m}} {
		for _, l := range logins {
			who, err := login(ctx, s.dsn, l.user, l.pw)
			switch {
			case l.ok && (err != nil || who != l.user+"@%"):
				t.Errorf("%s: login %s/%s: %q, %v; want %s@%%", s.name, l.user, l.pw, who, err, l.user)
			case !l.ok && errNo(err) != erAccessDenied:
				t.Errorf("%s: login %s/%s: %q, %v; want error 1045", s.name, l.user, l.pw, who, err)
			}
		}
	}
	appDB := openConfig(t, clientConfig(t, rep, "app", "app-pw-2", ""))
	if n := queryInt(t, ctx, appDB, "SELECT COUNT(*) FROM acc.t"); n != 2 {
		t.Errorf("app on the petrel replica counts %d rows, want 2", n)
	}

	// The log holds hashes, never clear text: in the events (SHOW BINLOG
	// EVENTS, mariadb-binlog -v) and anywhere in the files, on the primary
	// and in the replica's own log (which a promoted replica serves).
	mustExec(t, ctx, sdb, "FLUSH BINARY LOGS")
	var events []string
	rows, err := sdb.QueryContext(ctx, "SHOW BINLOG EVENTS IN 'binlog.000001'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var file, typ, info string
		var pos, sid, end int64
		if err := rows.Scan(&file, &pos, &typ, &sid, &end, &info); err != nil {
			t.Fatal(err)
		}
		if typ == "Query" && info != "BEGIN" {
			events = append(events, info)
		}
	}
	rows.Close()
	for _, w := range []string{
		"CREATE USER 'app'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + nativeHash("app-pw-1") + "'",
		"ALTER USER 'app'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + nativeHash("app-pw-2") + "'",
		"ALTER USER 'renamed'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + nativeHash("renamed-pw") + "'",
		"ALTER USER 'self'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + nativeHash("self-pw-2") + "'",
		"RENAME USER 'old'@'%' TO 'renamed'@'%'",
		"REVOKE INSERT ON acc.* FROM 'app'@'%'",
		"DROP USER 'gone'@'%'",
	} {
		if !slices.Contains(events, w) {
			t.Errorf("SHOW BINLOG EVENTS lacks %q; statements:\n%s", w, strings.Join(events, "\n"))
		}
	}
	out, err := exec.CommandContext(ctx, tool, "-v", "--verify-binlog-checksum", filepath.Join(src.Datadir(), "binlog", "binlog.000001")).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-binlog: %v\n%s", err, tail(string(out), 4000))
	}
	if !strings.Contains(string(out), "AS '"+nativeHash("self-pw-2")+"'") {
		t.Errorf("mariadb-binlog -v does not show the hash of self's new password:\n%s", tail(string(out), 4000))
	}
	clear := []string{"app-pw-1", "app-pw-2", "old-pw", "renamed-pw", "gone-pw", "self-pw-1", "self-pw-2", "half-pw"}
	for _, dir := range []string{filepath.Join(src.Datadir(), "binlog"), filepath.Join(rep.Datadir(), "binlog")} {
		files, _ := filepath.Glob(filepath.Join(dir, "binlog.0*"))
		if len(files) == 0 {
			t.Fatalf("no binlog files in %s", dir)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, pw := range clear {
				if strings.Contains(string(b), pw) {
					t.Errorf("%s holds the clear-text password %q", f, pw)
				}
			}
		}
	}
	if rs := replicaBinlogQueries(t, ctx, rdb); !slices.Contains(rs, "RENAME USER 'old'@'%' TO 'renamed'@'%'") {
		t.Errorf("the replica's own binlog lacks the RENAME USER (a promoted replica would not serve it): %q", rs)
	}

	// An acknowledged account statement survives a kill -9 of the primary,
	// and the replicas get it once it is back.
	mustExec(t, ctx, sdb, "CREATE USER 'late'@'%' IDENTIFIED BY 'late-pw'", "GRANT SELECT ON acc.* TO 'late'@'%'")
	if err := src.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := src.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if who, err := login(ctx, src.DSN(""), "late", "late-pw"); err != nil || who != "late@%" {
		t.Fatalf("after kill -9 and restart: login late: %q, %v", who, err)
	}
	waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
	waitMariaDBAt(t, ctx, sdb, mdb, 30*time.Second)
	for _, s := range []struct{ name, dsn string }{{"petrel replica", rep.DSN("")}, {"mariadb replica", m}} {
		if who, err := login(ctx, s.dsn, "late", "late-pw"); err != nil || who != "late@%" {
			t.Errorf("%s: login late after the primary's restart: %q, %v", s.name, who, err)
		}
	}
}

// mariaDSN is the DSN of the MariaDB server behind mdb.
func mariaDSN(t *testing.T, ctx context.Context, mdb *sql.DB) string {
	t.Helper()
	port := queryInt(t, ctx, mdb, "SELECT @@port")
	return fmt.Sprintf("root@tcp(127.0.0.1:%d)/?timeout=5s&readTimeout=60s&writeTimeout=60s", port)
}

// replicaBinlogQueries lists the statements in a server's binlog.
func replicaBinlogQueries(t *testing.T, ctx context.Context, db querier) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SHOW BINLOG EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var file, typ, info string
		var pos, sid, end int64
		if err := rows.Scan(&file, &pos, &typ, &sid, &end, &info); err != nil {
			t.Fatal(err)
		}
		if typ == "Query" && info != "BEGIN" {
			out = append(out, info)
		}
	}
	return out
}
