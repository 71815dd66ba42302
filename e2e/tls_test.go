package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// TLS on client connections and caching_sha2_password
// (docs/design/connections.md; docs/COMPATIBILITY.md).

const (
	erSecureTransportRequired = 3159 // ER_SECURE_TRANSPORT_REQUIRED
)

// tlsConfigFor is a client TLS configuration that trusts the server's
// generated CA (datadir/ca.pem) and checks its name.
func tlsConfigFor(t *testing.T, p *lab.Petrel) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(filepath.Join(p.Datadir(), "ca.pem"))
	if err != nil {
		t.Fatalf("the generated CA: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("ca.pem holds no certificate")
	}
	return &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// tlsDB opens a go-sql-driver pool for user over TLS (tls=custom with the
// generated CA, server name verified).
func tlsDB(t *testing.T, p *lab.Petrel, user, password string) *sql.DB {
	t.Helper()
	name := "petrel-" + strings.ReplaceAll(t.Name(), "/", "-") + "-" + user
	if err := mysql.RegisterTLSConfig(name, tlsConfigFor(t, p)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mysql.DeregisterTLSConfig(name) })
	cfg := clientConfig(t, p, user, password, "")
	cfg.TLSConfig = name
	return openConfig(t, cfg)
}

// sessionStatus is SHOW SESSION STATUS LIKE name's value.
func sessionStatus(t *testing.T, ctx context.Context, q querier, name string) string {
	t.Helper()
	var n, v string
	if err := q.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
		t.Fatalf("SHOW STATUS LIKE %s: %v", name, err)
	}
	return v
}

// TestTLSClients: the server generates a CA and a certificate at first
// start and keeps them; the mariadb CLI (--ssl-verify-server-cert) and
// go-sql-driver (tls=custom) connect over TLS with that CA and see
// Ssl_cipher and Ssl_version; plaintext still works; packets larger than
// one frame cross TLS intact; connect_timeout still ends a client that
// stalls in (or garbles) the TLS handshake; Ssl_accepts counts.
func TestTLSClients(t *testing.T) {
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{ExtraArgs: []string{"--config",
		configFile(t, map[string]string{"connect_timeout": "2"})}})
	for _, f := range []string{"ca.pem", "ca-key.pem", "server-cert.pem", "server-key.pem", "private_key.pem", "public_key.pem"} {
		if _, err := os.Stat(filepath.Join(p.Datadir(), f)); err != nil {
			t.Fatalf("generated %s: %v", f, err)
		}
	}
	certBefore, _ := os.ReadFile(filepath.Join(p.Datadir(), "server-cert.pem"))
	root := rootDB(t, p, "")
	if v := queryString(t, ctx, root, "SELECT @@have_ssl"); v != "YES" {
		t.Errorf("have_ssl = %q, want YES", v)
	}
	if v := queryString(t, ctx, root, "SELECT @@ssl_ca"); v != filepath.Join(p.Datadir(), "ca.pem") {
		t.Errorf("ssl_ca = %q", v)
	}
	accepts := globalStatus(t, ctx, root, "Ssl_accepts")

	// mariadb CLI, verifying the server's certificate and name.
	ca := filepath.Join(p.Datadir(), "ca.pem")
	out, err := lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "",
		"SHOW SESSION STATUS LIKE 'Ssl_cipher'; SHOW SESSION STATUS LIKE 'Ssl_version'",
		"--ssl", "--ssl-ca="+ca, "--ssl-verify-server-cert")
	if err != nil {
		t.Fatalf("mariadb --ssl-verify-server-cert: %v", err)
	}
	ls := lines(out)
	if len(ls) != 2 || !strings.HasPrefix(ls[0], "Ssl_cipher\tTLS_") || !strings.HasPrefix(ls[1], "Ssl_version\tTLSv1.") {
		t.Errorf("mariadb over TLS: status %q", out)
	}
	// Plaintext: no cipher.
	out, err = lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "", "SHOW SESSION STATUS LIKE 'Ssl_cipher'")
	if err != nil || out != "Ssl_cipher\t\n" {
		t.Errorf("mariadb plaintext: Ssl_cipher %q, %v", out, err)
	}

	// go-sql-driver, tls=custom with the CA.
	tdb := tlsDB(t, p, "root", rootPassword)
	tdb.SetMaxOpenConns(1)
	if c := sessionStatus(t, ctx, tdb, "Ssl_cipher"); !strings.HasPrefix(c, "TLS_") {
		t.Errorf("go-sql-driver over TLS: Ssl_cipher %q", c)
	}
	// A 17 MiB value: more than one 16 MiB frame each way, through TLS.
	mustExec(t, ctx, tdb, "CREATE DATABASE tl", "CREATE TABLE tl.big (id INT PRIMARY KEY, b LONGBLOB)")
	big := bytes.Repeat([]byte("0123456789abcdef"), 17<<16)
	big = append(big, "tail"...)
	if _, err := tdb.ExecContext(ctx, "INSERT INTO tl.big VALUES (1, ?)", big); err != nil {
		t.Fatalf("17 MiB insert over TLS: %v", err)
	}
	var back []byte
	if err := tdb.QueryRowContext(ctx, "SELECT b FROM tl.big WHERE id = 1").Scan(&back); err != nil {
		t.Fatalf("17 MiB select over TLS: %v", err)
	}
	if sha256.Sum256(back) != sha256.Sum256(big) {
		t.Errorf("17 MiB value came back as %d bytes, different", len(back))
	}
	if n := queryInt(t, ctx, root, "SELECT LENGTH(b) FROM tl.big WHERE id = 1"); n != int64(len(big)) {
		t.Errorf("stored length %d, want %d", n, len(big))
	}
	if got := globalStatus(t, ctx, root, "Ssl_finished_accepts"); got < accepts+2 {
		t.Errorf("Ssl_finished_accepts = %d after two TLS clients (Ssl_accepts was %d)", got, accepts)
	}

	// connect_timeout (2 s) ends a client that sends the SSLRequest and
	// then nothing, and one that sends garbage instead of a ClientHello.
	for _, tc := range []struct {
		name  string
		after []byte
	}{{"stall", nil}, {"garbage", bytes.Repeat([]byte{0x16, 0x03, 0x01, 0xff, 0xff}, 4)}} {
		r := dialRaw(t, p.Port())
		if _, err := r.greeting(); err != nil {
			t.Fatal(err)
		}
		var req []byte
		req = binary.LittleEndian.AppendUint32(req, clientLongPassword|clientProtocol41|clientSecureConnection|clientPluginAuth|0x800)
		req = binary.LittleEndian.AppendUint32(req, 1<<24)
		req = append(req, 45)
		req = append(req, make([]byte, 23)...)
		if err := r.writePacket(req); err != nil {
			t.Fatal(err)
		}
		if tc.after != nil {
			_ = r.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			_, _ = r.c.Write(tc.after)
		}
		start := time.Now()
		_ = r.c.SetReadDeadline(time.Now().Add(15 * time.Second))
		buf := make([]byte, 4096)
		var readErr error
		for readErr == nil {
			_, readErr = r.c.Read(buf)
		}
		if el := time.Since(start); el > 8*time.Second {
			t.Errorf("%s TLS handshake: the server closed the socket after %v, want about connect_timeout (2s)", tc.name, el)
		}
		r.c.Close()
	}
	if v := queryInt(t, ctx, root, "SELECT 1"); v != 1 {
		t.Fatal("server unusable after bad TLS handshakes")
	}

	// The certificate is kept across restarts.
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	certAfter, _ := os.ReadFile(filepath.Join(p.Datadir(), "server-cert.pem"))
	if len(certBefore) == 0 || !bytes.Equal(certBefore, certAfter) {
		t.Error("server-cert.pem changed across a restart")
	}
	out, err = lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "tl", "SELECT LENGTH(b) FROM big",
		"--ssl", "--ssl-ca="+ca, "--ssl-verify-server-cert")
	if want := strconv.Itoa(len(big)) + "\n"; err != nil || out != want {
		t.Errorf("after restart, over TLS: %q, %v", out, err)
	}
}

// TestRequireSSL: an account with REQUIRE SSL is refused in plaintext
// (1045) and admitted over TLS; ALTER USER ... REQUIRE NONE / SSL changes
// that, and it survives a restart; require_secure_transport refuses every
// plaintext connection with 3159.
func TestRequireSSL(t *testing.T) {
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	root := rootDB(t, p, "")
	mustExec(t, ctx, root, "CREATE USER 'sec'@'%' IDENTIFIED BY 'sec-pw' REQUIRE SSL", "CREATE USER 'plain'@'%' IDENTIFIED BY 'plain-pw'")
	ca := filepath.Join(p.Datadir(), "ca.pem")
	cli := func(user, pw string, tlsOn bool) (string, error) {
		var extra []string
		if tlsOn {
			extra = []string{"--ssl", "--ssl-ca=" + ca, "--ssl-verify-server-cert"}
		}
		return lab.RunMariaDBClient(ctx, p.Port(), user, pw, "", "SELECT CURRENT_USER()", extra...)
	}
	check := func(when string, wantPlainOK bool) {
		t.Helper()
		out, err := cli("sec", "sec-pw", false)
		switch {
		case wantPlainOK && (err != nil || out != "sec@%\n"):
			t.Errorf("%s: sec in plaintext: %q, %v; want admitted", when, out, err)
		case !wantPlainOK && (err == nil || !strings.Contains(err.Error(), "ERROR 1045")):
			t.Errorf("%s: sec in plaintext: %q, %v; want ERROR 1045", when, out, err)
		}
		if out, err := cli("sec", "sec-pw", true); err != nil || out != "sec@%\n" {
			t.Errorf("%s: sec over TLS: %q, %v", when, out, err)
		}
		// go-sql-driver too.
		_, err = login(ctx, p.DSN(""), "sec", "sec-pw")
		if wantPlainOK != (err == nil) || (!wantPlainOK && errNo(err) != erAccessDenied) {
			t.Errorf("%s: sec in plaintext via go-sql-driver: %v", when, err)
		}
	}
	check("created REQUIRE SSL", false)
	if out, err := cli("plain", "plain-pw", false); err != nil || out != "plain@%\n" {
		t.Errorf("an account without REQUIRE SSL in plaintext: %q, %v", out, err)
	}
	mustExec(t, ctx, root, "ALTER USER 'sec'@'%' REQUIRE NONE")
	check("after REQUIRE NONE", true)
	mustExec(t, ctx, root, "ALTER USER sec REQUIRE SSL")
	check("after ALTER USER REQUIRE SSL", false)
	_, err := root.ExecContext(ctx, "ALTER USER 'nobody'@'%' REQUIRE SSL")
	wantErrNo(t, "ALTER USER of an unknown account", err, 1396)
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	root = rootDB(t, p, "")
	check("after a restart", false)

	// require_secure_transport: plaintext refused with 3159, TLS admitted.
	mustExec(t, ctx, root, "SET GLOBAL require_secure_transport = ON")
	_, err = login(ctx, p.DSN(""), "plain", "plain-pw")
	wantErrNo(t, "plaintext login under require_secure_transport", err, erSecureTransportRequired)
	if out, err := cli("plain", "plain-pw", true); err != nil || out != "plain@%\n" {
		t.Errorf("TLS login under require_secure_transport: %q, %v", out, err)
	}
	tdb := tlsDB(t, p, "root", rootPassword)
	mustExec(t, ctx, tdb, "SET GLOBAL require_secure_transport = OFF")
	if _, err := login(ctx, p.DSN(""), "plain", "plain-pw"); err != nil {
		t.Errorf("plaintext login after require_secure_transport=OFF: %v", err)
	}
}

// TestCachingSha2Password: new accounts get caching_sha2_password;
// logins work in plaintext (RSA key exchange) and over TLS, with
// go-sql-driver and the mariadb CLI, the second one from the fast-auth
// cache; a wrong password, or the old one after ALTER USER, is 1045;
// mysql_native_password accounts still log in.
func TestCachingSha2Password(t *testing.T) {
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	root := rootDB(t, p, "")
	if v := queryString(t, ctx, root, "SELECT @@default_authentication_plugin"); v != "caching_sha2_password" {
		t.Errorf("default_authentication_plugin = %q", v)
	}
	if v := queryString(t, ctx, root, "SELECT @@authentication_policy"); v != "*,," {
		t.Errorf("authentication_policy = %q, want MySQL's *,,", v)
	}
	mustExec(t, ctx, root,
		"CREATE USER 'sha'@'%' IDENTIFIED BY 'sha-pw'",
		"CREATE USER 'nat'@'%' IDENTIFIED WITH mysql_native_password BY 'nat-pw'",
		"CREATE USER 'both'@'%' IDENTIFIED WITH caching_sha2_password BY 'both-pw'")
	plugins := map[string]string{}
	rows, err := root.QueryContext(ctx, "SELECT user, plugin, authentication_string FROM mysql.user WHERE user IN ('sha', 'nat', 'both')")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var u, pl, a string
		if err := rows.Scan(&u, &pl, &a); err != nil {
			t.Fatal(err)
		}
		plugins[u] = pl
		if pl == "caching_sha2_password" && !strings.HasPrefix(a, "$A$005$") {
			t.Errorf("%s: authentication_string %q is not a SHA-256 crypt hash", u, hex.EncodeToString([]byte(a)))
		}
	}
	rows.Close()
	if plugins["sha"] != "caching_sha2_password" || plugins["nat"] != "mysql_native_password" || plugins["both"] != "caching_sha2_password" {
		t.Fatalf("plugins: %v", plugins)
	}
	// Restart: the fast-auth cache is empty, the first logins take the full path.
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	root = rootDB(t, p, "")
	full0, fast0 := globalStatus(t, ctx, root, "Petrel_sha2_full_auths"), globalStatus(t, ctx, root, "Petrel_sha2_fast_auths")

	// Plaintext, go-sql-driver: full authentication with the server's RSA key.
	if u, err := login(ctx, p.DSN(""), "sha", "sha-pw"); err != nil || u != "sha@%" {
		t.Fatalf("sha in plaintext (RSA): %q, %v", u, err)
	}
	if full := globalStatus(t, ctx, root, "Petrel_sha2_full_auths"); full != full0+1 {
		t.Errorf("Petrel_sha2_full_auths %d -> %d after the first login", full0, full)
	}
	// Again: the fast path.
	if u, err := login(ctx, p.DSN(""), "sha", "sha-pw"); err != nil || u != "sha@%" {
		t.Fatalf("sha again: %q, %v", u, err)
	}
	if fast := globalStatus(t, ctx, root, "Petrel_sha2_fast_auths"); fast != fast0+1 {
		t.Errorf("Petrel_sha2_fast_auths %d -> %d after the second login", fast0, fast)
	}
	_, err = login(ctx, p.DSN(""), "sha", "wrong")
	wantErrNo(t, "sha with a wrong password", err, erAccessDenied)
	_, err = login(ctx, p.DSN(""), "nobody", "x")
	wantErrNo(t, "an unknown user", err, erAccessDenied)

	// Over TLS, go-sql-driver: the password goes in clear inside TLS.
	tdb := tlsDB(t, p, "both", "both-pw")
	if u := queryString(t, ctx, tdb, "SELECT CURRENT_USER()"); u != "both@%" {
		t.Errorf("both over TLS: %q", u)
	}
	// mariadb CLI, plaintext (it asks for the RSA key) and TLS, each from
	// an empty cache (FLUSH PRIVILEGES empties it, as in MySQL).
	ca := filepath.Join(p.Datadir(), "ca.pem")
	for _, extra := range [][]string{nil, {"--ssl", "--ssl-ca=" + ca, "--ssl-verify-server-cert"}} {
		mustExec(t, ctx, root, "FLUSH PRIVILEGES")
		full := globalStatus(t, ctx, root, "Petrel_sha2_full_auths")
		out, err := lab.RunMariaDBClient(ctx, p.Port(), "both", "both-pw", "", "SELECT CURRENT_USER()", extra...)
		if err != nil || out != "both@%\n" {
			t.Errorf("mariadb %v as both: %q, %v", extra, out, err)
		}
		if got := globalStatus(t, ctx, root, "Petrel_sha2_full_auths"); got != full+1 {
			t.Errorf("mariadb %v: Petrel_sha2_full_auths %d -> %d, want one full authentication", extra, full, got)
		}
		_, err = lab.RunMariaDBClient(ctx, p.Port(), "both", "nope", "", "SELECT 1", extra...)
		if err == nil || !strings.Contains(err.Error(), "ERROR 1045") {
			t.Errorf("mariadb %v with a wrong password: %v, want ERROR 1045", extra, err)
		}
	}
	// A changed password: the cached one no longer works, the plugin stays.
	mustExec(t, ctx, root, "ALTER USER 'sha'@'%' IDENTIFIED BY 'sha-pw-2'")
	if pl := queryString(t, ctx, root, "SELECT plugin FROM mysql.user WHERE user = 'sha'"); pl != "caching_sha2_password" {
		t.Errorf("ALTER USER changed the plugin to %q", pl)
	}
	_, err = login(ctx, p.DSN(""), "sha", "sha-pw")
	wantErrNo(t, "the old password after ALTER USER", err, erAccessDenied)
	if u, err := login(ctx, p.DSN(""), "sha", "sha-pw-2"); err != nil || u != "sha@%" {
		t.Errorf("the new password: %q, %v", u, err)
	}
	// mysql_native_password accounts, both clients.
	if u, err := login(ctx, p.DSN(""), "nat", "nat-pw"); err != nil || u != "nat@%" {
		t.Errorf("nat via go-sql-driver: %q, %v", u, err)
	}
	if out, err := lab.RunMariaDBClient(ctx, p.Port(), "nat", "nat-pw", "", "SELECT CURRENT_USER()"); err != nil || out != "nat@%\n" {
		t.Errorf("nat via mariadb: %q, %v", out, err)
	}
	_, err = login(ctx, p.DSN(""), "nat", "bad")
	wantErrNo(t, "nat with a wrong password", err, erAccessDenied)
}

// TestReplicationOverTLS: a replica told SOURCE_SSL=1 with the source's
// CA and SOURCE_SSL_VERIFY_SERVER_CERT=1 replicates over TLS: the
// replication account is REQUIRE SSL (a plaintext link would be refused),
// the source's Ssl_finished_accepts counts the link, the rows arrive,
// SHOW REPLICA STATUS shows the settings, and they survive the replica's
// restart. A replica given a CA that did not sign the source's
// certificate (MASTER_ spellings) refuses the link and applies nothing.
func TestReplicationOverTLS(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	rep := startReplicaServer(t, ctx, 2, nil)
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUser(t, ctx, sdb)
	mustExec(t, ctx, sdb,
		"ALTER USER 'repl'@'%' REQUIRE SSL",
		"CREATE DATABASE rt", "CREATE TABLE rt.t (id INT PRIMARY KEY, v VARCHAR(64))",
		"INSERT INTO rt.t VALUES (1, 'one'), (2, 'two')")
	if pl := queryString(t, ctx, sdb, "SELECT plugin FROM mysql.user WHERE user = 'repl'"); pl != "caching_sha2_password" {
		t.Errorf("replication account plugin %q, want caching_sha2_password", pl)
	}
	before := globalStatus(t, ctx, sdb, "Ssl_finished_accepts")
	srcCA := filepath.Join(src.Datadir(), "ca.pem")
	pointAt(t, ctx, rdb, src.Port(), ", SOURCE_SSL=1, SOURCE_SSL_CA='"+srcCA+"', SOURCE_SSL_VERIFY_SERVER_CERT=1")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	if n := sameTable(t, ctx, sdb, rdb, "rt.t", "id"); n != 2 {
		t.Errorf("replicated %d rows, want 2", n)
	}
	if after := globalStatus(t, ctx, sdb, "Ssl_finished_accepts"); after < before+1 {
		t.Errorf("source Ssl_finished_accepts %d -> %d: the link did not use TLS", before, after)
	}
	st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
	if st["Source_SSL_Allowed"] != "Yes" || st["Source_SSL_CA_File"] != srcCA || st["Source_SSL_Verify_Server_Cert"] != "Yes" {
		t.Errorf("SHOW REPLICA STATUS: Source_SSL_Allowed=%q Source_SSL_CA_File=%q Source_SSL_Verify_Server_Cert=%q",
			st["Source_SSL_Allowed"], st["Source_SSL_CA_File"], st["Source_SSL_Verify_Server_Cert"])
	}

	// The settings are kept across the replica's restart.
	if err := rep.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	rdb = rootDB(t, rep, "")
	mustExec(t, ctx, sdb, "INSERT INTO rt.t VALUES (3, REPEAT('x', 64))", "UPDATE rt.t SET v = 'uno' WHERE id = 1")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	if n := sameTable(t, ctx, sdb, rdb, "rt.t", "id"); n != 3 {
		t.Errorf("after the replica's restart: %d rows, want 3", n)
	}
	if v := queryString(t, ctx, rdb, "SELECT v FROM rt.t WHERE id = 1"); v != "uno" {
		t.Errorf("updated row on the replica: %q", v)
	}
	if st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS"); st["Source_SSL_Allowed"] != "Yes" || st["Source_SSL_CA_File"] != srcCA {
		t.Errorf("after restart: Source_SSL_Allowed=%q Source_SSL_CA_File=%q", st["Source_SSL_Allowed"], st["Source_SSL_CA_File"])
	}

	// A CA that did not sign the source's certificate: no link, no rows.
	bad := startReplicaServer(t, ctx, 3, nil)
	bdb := rootDB(t, bad, "")
	mustExec(t, ctx, bdb,
		"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT="+strconv.Itoa(src.Port())+", MASTER_USER='repl', MASTER_PASSWORD='"+replPassword+
			"', MASTER_AUTO_POSITION=1, MASTER_CONNECT_RETRY=1, MASTER_SSL=1, MASTER_SSL_CA='"+filepath.Join(bad.Datadir(), "ca.pem")+"', MASTER_SSL_VERIFY_SERVER_CERT=1",
		"START REPLICA")
	deadline := time.Now().Add(15 * time.Second)
	for {
		st := replicaStatus(t, ctx, bdb, "SHOW REPLICA STATUS")
		if strings.Contains(st["Last_IO_Error"], "certificate") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a replica with the wrong CA: Last_IO_Error %q, want a certificate error", st["Last_IO_Error"])
		}
		time.Sleep(200 * time.Millisecond)
	}
	var n int
	if err := bdb.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'rt'").Scan(&n); err != nil || n != 0 {
		t.Errorf("a replica that refused the link has rt: %d, %v", n, err)
	}
}
