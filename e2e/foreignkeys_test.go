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
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	ctx := testContext(t, 4*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	m, err := lab.StartMariaDB(ctx, lab.MariaDBOptions{Datadir: t.TempDir(), ExtraArgs: []string{"--skip-log-bin"}})
	if err != nil {
		t.Fatalf("start mariadb: %v", err)
	}
	t.Cleanup(func() { m.Stop(context.Background()) })
	mdb, err := m.DB("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mdb.Close() })
	names := []string{"petrel", "mariadb"}
	dbs := []*sql.DB{rootDB(t, p, ""), mdb}
	var conns [2]*sql.Conn
	for i, db := range dbs {
		mustExec(t, ctx, db, "CREATE DATABASE fk")
		conns[i] = conn(t, ctx, db)
		mustExec(t, ctx, conns[i], "USE fk")
	}
	f, err := os.Open("testdata/foreignkeys/script.sql")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var diffs []string
	n, errs := 0, 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, mysql8 := line, ""
		if rest, ok := strings.CutPrefix(line, "mysql8: "); ok {
			mysql8, q, _ = strings.Cut(rest, "\t")
		}
		var out [2]string
		for i := range conns {
			out[i] = semOutcome(ctx, conns[i], q)
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
	t.Logf("script: %d statements (%d answered with an error), %d differ", n, errs, len(diffs))
	if n < 80 || errs < 15 {
		t.Fatalf("script too short: %d statements, %d errors", n, errs)
	}
	if len(diffs) > 0 {
		t.Errorf("%d statements differ:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}

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
