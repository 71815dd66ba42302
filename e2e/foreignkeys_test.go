package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestForeignKeysMatchMariaDB runs testdata/foreignkeys/script.sql on
// Petrel and on MariaDB (InnoDB), statement by statement, and compares
// what a client sees of each (semOutcome: the error number, rows
// affected, the rows' bytes, the warnings' codes): cascades, SET NULL,
// RESTRICT and NO ACTION, composite and self-referencing keys, chains,
// foreign_key_checks=0, the constraints' DDL and information_schema.
// Where MySQL 8 and MariaDB differ the script states MySQL 8's outcome.
// Then the same checks through prepared statements (the binary protocol,
// where Petrel's fast paths would take a plain-key write): a child row
// with a missing parent is refused, a parent's delete cascades.
func TestForeignKeysMatchMariaDB(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	b := startBoth(t, ctx, "fk")
	names, conns := b.names, b.conns
	b.script(t, ctx, "testdata/foreignkeys/script.sql", 80, 15)

	// Prepared statements.
	for i, c := range conns {
		mustExec(t, ctx, c,
			"CREATE TABLE pp (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
			"CREATE TABLE pc (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES pp (id) ON DELETE CASCADE) ENGINE=InnoDB",
			"INSERT INTO pp VALUES (1,1),(2,2)")
		steps := []struct {
			q    string
			args []any
			want string
		}{
			{"INSERT INTO pc VALUES (?, ?)", []any{10, 1}, "affected 1"},
			{"INSERT INTO pc VALUES (?, ?)", []any{11, 3}, "error 1452"},
			{"INSERT INTO pc VALUES (?, ?)", []any{12, 2}, "affected 1"},
			{"UPDATE pc SET pid = ? WHERE id = ?", []any{5, 10}, "error 1452"},
			{"DELETE FROM pp WHERE id = ?", []any{1}, "affected 1"},
			{"UPDATE pp SET id = ? WHERE id = ?", []any{9, 2}, "error 1451"},
		}
		for _, s := range steps {
			got := ""
			if res, err := c.ExecContext(ctx, s.q, s.args...); err != nil {
				got = fmt.Sprintf("error %d", errNo(err))
			} else {
				a, _ := res.RowsAffected()
				got = fmt.Sprintf("affected %d", a)
			}
			if got != s.want {
				t.Errorf("%s: prepared %s %v: %s, want %s", names[i], s.q, s.args, got, s.want)
			}
		}
		if got := queryStrings(t, ctx, c, "SELECT CONCAT(id, ':', pid) FROM pc ORDER BY id"); strings.Join(got, " ") != "12:2" {
			t.Errorf("%s: pc after the prepared statements: %v, want [12:2]", names[i], got)
		}
	}
}

// runScriptBoth runs a script of statements (one per line; '#' lines are
// comments; "mysql8: OUTCOME<TAB>STATEMENT" states MySQL 8's outcome where
// MariaDB's differs; "ok: STATEMENT" compares only whether it failed and
// with which error) on conns[0] (Petrel) and conns[1] (MariaDB),
// comparing each statement's semOutcome. It returns the statements run,
// how many were expected to fail, and the differences.
func runScriptBoth(t *testing.T, ctx context.Context, conns [2]*sql.Conn, path string) (n, errs int, diffs []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, mysql8 := line, ""
		if rest, ok := strings.CutPrefix(line, "mysql8: "); ok {
			mysql8, q, _ = strings.Cut(rest, "\t")
		}
		q, okOnly := strings.CutPrefix(q, "ok: ")
		var out [2]string
		for i := range conns {
			out[i] = semOutcome(ctx, conns[i], q)
			if okOnly && !strings.HasPrefix(out[i], "error") {
				out[i] = "ok"
			}
		}
		want := out[1]
		if mysql8 != "" {
			want = mysql8
		}
		n++
		if strings.HasPrefix(want, "error") {
			errs++
		}
		if out[0] != want {
			diffs = append(diffs, fmt.Sprintf("%s\n    petrel:  %s\n    %s: %s", q, out[0], map[bool]string{true: "mysql 8", false: "mariadb"}[mysql8 != ""], want))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n, errs, diffs
}

// TestTemporaryTablesMatchMariaDB runs testdata/temptables/script.sql on
// Petrel and on MariaDB (InnoDB) statement by statement (runScriptBoth):
// a temporary table shadowing a base table of its name, its rows in
// transactions and savepoints, CREATE INDEX, ALTER, TRUNCATE, RENAME, DROP
// showing the base table again, CREATE ... SELECT / LIKE, joins with base
// tables. Then what only a second session can see: another session never
// sees the temporary table (it reads the base table, also through a
// prepared statement, which Petrel's fast paths would answer from the
// catalog), and a session that ends takes its temporary tables along.
func TestTemporaryTablesMatchMariaDB(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	b := startBoth(t, ctx, "tmp")
	p, m, names, dbs, conns := b.p, b.m, b.names, b.dbs, b.conns
	b.script(t, ctx, "testdata/temptables/script.sql", 55, 4)

	for i, c := range conns {
		mustExec(t, ctx, c, "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v VARCHAR(20))", "INSERT INTO t VALUES (1, 'mine')")
		other := conn(t, ctx, dbs[i])
		mustExec(t, ctx, other, "USE tmp")
		// The owner reads its temporary row by key, prepared and as text.
		for _, q := range []func() []string{
			func() []string { return queryStrings(t, ctx, c, "SELECT v FROM t WHERE id = ?", 1) },
			func() []string { return queryStrings(t, ctx, c, "SELECT v FROM t WHERE id = 1") },
		} {
			if got := q(); strings.Join(got, ",") != "mine" {
				t.Errorf("%s: the owner reads %v, want [mine]", names[i], got)
			}
		}
		for _, q := range []func() []string{
			func() []string { return queryStrings(t, ctx, other, "SELECT v FROM t WHERE id = ?", 1) },
			func() []string { return queryStrings(t, ctx, other, "SELECT v FROM t WHERE id = 1") },
		} {
			if got := q(); strings.Join(got, ",") != "base one!" {
				t.Errorf("%s: another session reads %v, want the base table's [base one!]", names[i], got)
			}
		}
		// A prepared write of the owner goes to its temporary table.
		if _, err := c.ExecContext(ctx, "UPDATE t SET v = ? WHERE id = ?", "mine 2", 1); err != nil {
			t.Fatal(err)
		}
		if got := queryStrings(t, ctx, other, "SELECT v FROM t WHERE id = 1"); strings.Join(got, ",") != "base one!" {
			t.Errorf("%s: the owner's prepared UPDATE reached the base table: %v", names[i], got)
		}
		other.Close()
	}
	// A session that ends takes its temporary tables along (a client of
	// its own, closed for real).
	for i, open := range []func() *sql.DB{func() *sql.DB { return rootDB(t, p, "") }, func() *sql.DB {
		d, err := m.DB("")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}} {
		d := open()
		d.SetMaxOpenConns(1)
		mustExec(t, ctx, d, "USE tmp", "CREATE TEMPORARY TABLE gone (id INT PRIMARY KEY)", "INSERT INTO gone VALUES (1)")
		if got := queryStrings(t, ctx, d, "SELECT id FROM gone"); len(got) != 1 {
			t.Fatalf("%s: temporary table before the session ends: %v", names[i], got)
		}
		d.Close()
		var err error
		for try := 0; try < 50; try++ {
			if _, err = dbs[i].ExecContext(ctx, "SELECT * FROM tmp.gone"); errNo(err) == 1146 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if errNo(err) != 1146 {
			t.Errorf("%s: a temporary table of a closed session: %v, want 1146", names[i], err)
		}
	}
}

// bothServers is a Petrel and a MariaDB server, each with database db
// and one connection in it (conns[0] Petrel's, conns[1] MariaDB's).
type bothServers struct {
	p     *lab.Petrel
	m     *lab.MariaDB
	names []string
	dbs   []*sql.DB
	conns [2]*sql.Conn
}

// startBoth starts both servers (MariaDB on a temporary datadir, stopped
// at the test's end) and makes database db on each.
func startBoth(t *testing.T, ctx context.Context, db string) *bothServers {
	t.Helper()
	b := &bothServers{names: []string{"petrel", "mariadb"}}
	b.p = startPetrel(t, ctx, lab.PetrelOptions{})
	var mdb *sql.DB
	b.m, mdb = startMariaDB(t, ctx, 0)
	b.dbs = []*sql.DB{rootDB(t, b.p, ""), mdb}
	for i, d := range b.dbs {
		mustExec(t, ctx, d, "CREATE DATABASE "+db)
		b.conns[i] = conn(t, ctx, d)
		mustExec(t, ctx, b.conns[i], "USE "+db)
	}
	return b
}

// script runs a script on both (runScriptBoth): at least minStmts
// statements, minErrs of them expected to fail, none differing.
func (b *bothServers) script(t *testing.T, ctx context.Context, path string, minStmts, minErrs int) {
	t.Helper()
	n, errs, diffs := runScriptBoth(t, ctx, b.conns, path)
	t.Logf("script: %d statements (%d answered with an error), %d differ", n, errs, len(diffs))
	if n < minStmts || errs < minErrs {
		t.Fatalf("script too short: %d statements, %d errors", n, errs)
	}
	if len(diffs) > 0 {
		t.Errorf("%d statements differ:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}
