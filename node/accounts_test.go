package node_test

import (
	"context"
	"crypto/sha1"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/internal/failpoint"
	"petrel/node"
)

// binlogStatements lists the statements (QUERY events but BEGIN) of the
// server's first binlog file.
func binlogStatements(t *testing.T, db *sql.DB) []string {
	t.Helper()
	var out []string
	for _, r := range queryRows(t, db, "SHOW BINLOG EVENTS") {
		if r[2] == "Query" && r[5] != "BEGIN" {
			out = append(out, r[5])
		}
	}
	return out
}

// TestAccountStatementsAreLogged: each account statement is one logged
// statement, CREATE/ALTER USER and SET PASSWORD with the stored hash;
// statements that fail log nothing and leave nothing; an account
// statement commits the open transaction first (MySQL's implicit commit);
// direct writes to the grant tables are not logged.
func TestAccountStatementsAreLogged(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db,
		// caching_sha2_password hashes are salted at random: these
		// accounts use mysql_native_password, which ALTER USER and SET
		// PASSWORD keep.
		"CREATE USER 'a'@'%' IDENTIFIED WITH mysql_native_password BY 'pw-a'",
		"CREATE USER IF NOT EXISTS 'a'@'%' IDENTIFIED BY 'other'",
		"CREATE USER 'b'@'localhost' IDENTIFIED WITH mysql_native_password",
		"GRANT SELECT ON *.* TO 'a'@'%' WITH GRANT OPTION",
		"RENAME USER 'b'@'localhost' TO 'c'@'%'",
		"SET PASSWORD FOR 'c'@'%' = 'pw-c'",
		"ALTER USER 'a'@'%' IDENTIFIED BY 'pw-a2'",
		"REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'a'@'%'",
		"DROP USER 'c'@'%'",
	)
	want := []string{
		"CREATE USER 'a'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + hashOf("pw-a") + "'",
		// IF NOT EXISTS on an existing account logs the account as it is.
		"CREATE USER IF NOT EXISTS 'a'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + hashOf("pw-a") + "'",
		"CREATE USER 'b'@'localhost' IDENTIFIED WITH 'mysql_native_password' AS ''",
		"GRANT SELECT ON *.* TO 'a'@'%' WITH GRANT OPTION",
		"RENAME USER 'b'@'localhost' TO 'c'@'%'",
		"ALTER USER 'c'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + hashOf("pw-c") + "'",
		"ALTER USER 'a'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + hashOf("pw-a2") + "'",
		"REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'a'@'%'",
		"DROP USER 'c'@'%'",
	}
	if got := binlogStatements(t, db); !slices.Equal(got, want) {
		t.Fatalf("logged\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if g := queryRows(t, db, "SHOW GRANTS FOR 'a'@'%'"); len(g) != 1 || g[0][0] != "GRANT USAGE ON *.* TO `a`@`%`" {
		t.Errorf("after REVOKE ALL: grants %v", g)
	}

	gtids := queryRows(t, db, "SELECT @@GLOBAL.gtid_executed")[0][0]
	for _, q := range []string{
		"CREATE USER 'half'@'%', 'a'@'%'",
		"RENAME USER 'nobody'@'%' TO 'x'@'%'",
		"DROP USER 'nobody'@'%'",
		"SET PASSWORD FOR 'nobody'@'%' = 'x'",
	} {
		_, err := db.Exec(q)
		var me *mysql.MySQLError
		if err == nil || !asMySQL(err, &me) || me.Number != 1396 {
			t.Errorf("%s: %v, want error 1396", q, err)
		}
	}
	if n := queryRows(t, db, "SELECT COUNT(*) FROM mysql.user WHERE user IN ('half', 'x')")[0][0]; n != "0" {
		t.Errorf("failed statements left %s accounts", n)
	}
	// Through PREPARE the statement's text is not at hand: refused (MySQL's
	// 1295) before it changes anything.
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(context.Background(), `PREPARE g FROM 'GRANT INSERT ON *.* TO ''a''@''%'''`); err != nil {
		t.Fatal(err)
	}
	_, err = c.ExecContext(context.Background(), "EXECUTE g")
	var me *mysql.MySQLError
	if err == nil || !asMySQL(err, &me) || me.Number != 1295 {
		t.Errorf("EXECUTE of a prepared GRANT: %v, want error 1295", err)
	}
	if g := queryRows(t, db, "SHOW GRANTS FOR 'a'@'%'"); len(g) != 1 || g[0][0] != "GRANT USAGE ON *.* TO `a`@`%`" {
		t.Errorf("after a refused EXECUTE: grants %v", g)
	}
	mustExec(t, db, "UPDATE mysql.user SET authentication_string = '' WHERE user = 'a'")
	if got := queryRows(t, db, "SELECT @@GLOBAL.gtid_executed")[0][0]; got != gtids {
		t.Errorf("failed statements or grant-table writes were logged: gtid_executed %s -> %s", gtids, got)
	}

	// Implicit commit: the INSERT before CREATE USER stays after ROLLBACK.
	mustExec(t, db, "CREATE DATABASE ic", "CREATE TABLE ic.t (id INT PRIMARY KEY)")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO ic.t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("CREATE USER 'd'@'%'"); err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
	if n := queryRows(t, db, "SELECT COUNT(*) FROM ic.t")[0][0]; n != "1" {
		t.Errorf("CREATE USER inside a transaction: %s rows after ROLLBACK, want 1 (implicit commit)", n)
	}
}

// hashOf is pw as mysql_native_password stores it.
func hashOf(pw string) string {
	a := sha1.Sum([]byte(pw))
	b := sha1.Sum(a[:])
	return "*" + strings.ToUpper(hex.EncodeToString(b[:]))
}

// TestConcurrentAccountStatements: account statements run in parallel are
// logged in the order they were applied and stored in that order: the
// log replayed on another server gives the same accounts (a statement
// logged out of order would leave another password), and so does a
// restart (a commit storing an older snapshot of the accounts after a
// newer one would lose changes).
func TestConcurrentAccountStatements(t *testing.T) {
	opts := restartableOptions(t)
	n, err := node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	connect := func(n *node.Node) *sql.DB { return rootConn(t, n) }
	db := connect(n)
	// Widen the window between an account change and its commit, where
	// another statement could otherwise overtake it.
	failpoint.Enable("sqlengine.beforeAccountCommit", func() error {
		time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
		return nil
	})
	defer failpoint.Disable("sqlengine.beforeAccountCommit")
	mustExec(t, db, "CREATE USER 'shared'@'%'")
	const workers, each = 6, 12
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*3+workers)
	// GRANT and REVOKE of one privilege do not commute: the final state
	// depends on their order, which the log must keep.
	toggle := func() string {
		if rand.IntN(2) == 0 {
			return "GRANT SELECT ON tog.* TO 'shared'@'%'"
		}
		return "REVOKE SELECT ON tog.* FROM 'shared'@'%'"
	}
	barrier := make(chan struct{})
	var ready sync.WaitGroup
	ready.Add(workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				u := fmt.Sprintf("'u%d_%d'@'%%'", w, i)
				for _, q := range []string{"CREATE USER " + u + " IDENTIFIED BY 'x'", "GRANT SELECT ON *.* TO " + u, toggle()} {
					if _, err := db.Exec(q); err != nil {
						errs <- fmt.Errorf("%s: %w", q, err)
					}
				}
			}
			// A last burst at once: the last commit is rarely the last change.
			ready.Done()
			<-barrier
			if _, err := db.Exec(fmt.Sprintf("ALTER USER 'shared'@'%%' IDENTIFIED BY 'last-%d'", w)); err != nil {
				errs <- err
			}
		}(w)
	}
	ready.Wait()
	close(barrier)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const accounts = "SELECT user, host, authentication_string FROM mysql.user WHERE user LIKE 'u%' OR user = 'shared' ORDER BY user, host"
	before := queryRows(t, db, accounts)
	logged := binlogStatements(t, db)
	if len(logged) != 1+workers*each*3+workers {
		t.Errorf("%d statements logged, want %d", len(logged), 1+workers*each*3+workers)
	}

	// The log replayed elsewhere.
	_, open2 := startNode(t)
	db2 := open2("")
	mustExec(t, db2, logged...)
	if got := queryRows(t, db2, accounts); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("accounts on the server\n%v\nfrom its log replayed\n%v", before, got)
	}
	if a, b := queryRows(t, db, "SHOW GRANTS FOR 'shared'@'%'"), queryRows(t, db2, "SHOW GRANTS FOR 'shared'@'%'"); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("grants of shared on the server %v, from its log replayed %v", a, b)
	}
	sharedGrants := queryRows(t, db, "SHOW GRANTS FOR 'shared'@'%'")

	// A restart.
	db.Close()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n3, err := node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer n3.Close()
	db3 := connect(n3)
	if got := queryRows(t, db3, accounts); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("accounts before the restart\n%v\nafter\n%v", before, got)
	}
	if g := queryRows(t, db3, "SHOW GRANTS FOR 'shared'@'%'"); fmt.Sprint(g) != fmt.Sprint(sharedGrants) {
		t.Fatalf("grants of shared before the restart %v, after %v", sharedGrants, g)
	}
	for w := 0; w < workers; w++ {
		g := queryRows(t, db3, fmt.Sprintf("SHOW GRANTS FOR 'u%d_%d'@'%%'", w, each-1))
		if len(g) != 1 || !strings.HasPrefix(g[0][0], "GRANT SELECT ON *.*") {
			t.Fatalf("grants of u%d_%d after the restart: %v", w, each-1, g)
		}
	}
}

// TestRequireSSLAccounts: which accounts must log in over TLS follows
// CREATE USER ... REQUIRE SSL (not undone by CREATE USER IF NOT EXISTS of
// the existing account), ALTER USER ... REQUIRE NONE|SSL, RENAME USER and
// DROP USER; plaintext logins of such accounts get 1045; the statements
// are logged with REQUIRE SSL or as written.
func TestRequireSSLAccounts(t *testing.T) {
	n, open := startNode(t)
	db := open("")
	login := func(user, pw string) error {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, pw, "tcp", n.Addr()
		cfg.Logger = &mysql.NopLogger{}
		d, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Ping()
	}
	refused := func(what, user, pw string, want bool) {
		t.Helper()
		err := login(user, pw)
		var me *mysql.MySQLError
		switch {
		case want && !(errors.As(err, &me) && me.Number == 1045):
			t.Errorf("%s: plaintext login of %s: %v, want 1045", what, user, err)
		case !want && err != nil:
			t.Errorf("%s: plaintext login of %s: %v, want admitted", what, user, err)
		}
	}
	mustExec(t, db,
		"CREATE USER 'a'@'%' IDENTIFIED WITH mysql_native_password BY 'pw' REQUIRE SSL",
		"CREATE USER IF NOT EXISTS 'a'@'%' IDENTIFIED BY 'other'")
	refused("CREATE USER IF NOT EXISTS of a REQUIRE SSL account", "a", "pw", true)
	mustExec(t, db, "ALTER USER 'a'@'%' REQUIRE NONE")
	refused("REQUIRE NONE", "a", "pw", false)
	mustExec(t, db, "ALTER USER a REQUIRE SSL", "RENAME USER 'a'@'%' TO 'b'@'%'")
	refused("renamed", "b", "pw", true)
	mustExec(t, db, "DROP USER 'b'@'%'", "CREATE USER 'b'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'")
	refused("dropped and created again", "b", "pw", false)

	want := []string{
		"CREATE USER 'a'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + hashOf("pw") + "' REQUIRE SSL",
		"CREATE USER IF NOT EXISTS 'a'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + hashOf("pw") + "'",
		"ALTER USER 'a'@'%' REQUIRE NONE",
		"ALTER USER a REQUIRE SSL",
		"RENAME USER 'a'@'%' TO 'b'@'%'",
		"DROP USER 'b'@'%'",
		"CREATE USER 'b'@'%' IDENTIFIED WITH 'mysql_native_password' AS '" + hashOf("pw") + "'",
	}
	if got := binlogStatements(t, db); !slices.Equal(got, want) {
		t.Fatalf("logged\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
