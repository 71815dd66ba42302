package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestMariaDBCLI runs the seed tutorial's statements through the mariadb
// command-line client, then checks the error codes the CLI reports for the
// common mistakes.
func TestMariaDBCLI(t *testing.T) {
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	cli := func(user, password, db, sql string) (string, error) {
		return lab.RunMariaDBClient(ctx, p.Port(), user, password, db, sql)
	}
	mustCLI := func(db, sql string) string {
		t.Helper()
		out, err := cli("root", rootPassword, db, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return out
	}

	mustCLI("", "CREATE DATABASE important; CREATE TABLE important.stuff "+
		"(id INT AUTO_INCREMENT PRIMARY KEY, details VARCHAR(100), happened TIMESTAMP DEFAULT CURRENT_TIMESTAMP)")
	mustCLI("", "insert into important.stuff set details = 'Replicating Master to Slave'")
	out := mustCLI("", "select * from important.stuff order by id desc limit 1")
	checkStuffRow(t, out, "1", "Replicating Master to Slave")

	// A second row: AUTO_INCREMENT goes on and ORDER BY id DESC picks it.
	mustCLI("important", "insert into stuff set details = 'second'")
	out = mustCLI("", "select * from important.stuff order by id desc limit 1")
	checkStuffRow(t, out, "2", "second")
	out = mustCLI("important", "select count(*), group_concat(details order by id separator '|') from stuff")
	if want := "2\tReplicating Master to Slave|second\n"; out != want {
		t.Errorf("count and details: got %q, want %q", out, want)
	}
	// DEFAULT CURRENT_TIMESTAMP is the server's current time.
	out = mustCLI("important", "select count(*) from stuff where abs(timestampdiff(second, happened, now())) <= 120")
	if out != "2\n" {
		t.Errorf("rows with happened within 2 minutes of NOW(): got %q, want 2", out)
	}

	// state is the SQLSTATE MySQL 8.0 sends. A different one is logged,
	// not failed: clients branch on the number.
	cases := []struct {
		name, user, password, db, sql string
		code, state                   string
	}{
		{"wrong password", "root", "not-the-password", "", "SELECT 1", "1045", "28000"},
		{"unknown user", "nobody", rootPassword, "", "SELECT 1", "1045", "28000"},
		{"USE unknown database", "root", rootPassword, "", "USE nosuch", "1049", "42000"},
		{"connect to unknown database", "root", rootPassword, "nosuch", "SELECT 1", "1049", "42000"},
		{"bad SQL", "root", rootPassword, "important", "SELEC * FROM stuff", "1064", "42000"},
		{"unknown table", "root", rootPassword, "important", "SELECT * FROM nosuch", "1146", "42S02"},
		{"duplicate key", "root", rootPassword, "important", "INSERT INTO stuff (id, details) VALUES (1, 'dup')", "1062", "23000"},
	}
	for _, c := range cases {
		out, err := cli(c.user, c.password, c.db, c.sql)
		if err == nil {
			t.Errorf("%s: %q succeeded with output %q; want ERROR %s", c.name, c.sql, out, c.code)
			continue
		}
		m := regexp.MustCompile(`ERROR ` + c.code + ` \(([0-9A-Z]{5})\)`).FindStringSubmatch(err.Error())
		if m == nil {
			t.Errorf("%s: want ERROR %s, got: %v", c.name, c.code, err)
		} else if m[1] != c.state {
			t.Logf("note: %s: ERROR %s with SQLSTATE %s; MySQL sends %s", c.name, c.code, m[1], c.state)
		}
	}

	// The failed duplicate left the table as it was.
	out = mustCLI("important", "select count(*), max(id) from stuff where details <> 'dup'")
	if out != "2\t2\n" {
		t.Errorf("after the failed statements: got %q, want \"2\\t2\\n\"", out)
	}
}

// checkStuffRow checks one "id<TAB>details<TAB>happened" line of CLI output.
func checkStuffRow(t *testing.T, out, id, details string) {
	t.Helper()
	ls := lines(out)
	if len(ls) != 1 {
		t.Fatalf("select ... limit 1: got %d lines %q, want 1", len(ls), out)
	}
	f := strings.Split(ls[0], "\t")
	if len(f) != 3 {
		t.Fatalf("row %q: got %d columns, want 3 (id, details, happened)", ls[0], len(f))
	}
	if f[0] != id || f[1] != details {
		t.Errorf("row: got id %q details %q, want %q %q", f[0], f[1], id, details)
	}
	if _, err := time.Parse(time.DateTime, f[2]); err != nil {
		t.Errorf("happened %q is not a DATETIME literal: %v", f[2], err)
	}
}

// TestNumericResults checks how numbers come back in the text protocol:
// the CLI prints SUM of an integer column as digits, and a DOUBLE without
// an exponent up to 15 significant digits. (go-mysql-server types SUM and
// AVG as DOUBLE where MySQL uses DECIMAL, a known difference listed in
// docs/COMPATIBILITY.md, so Go code scans the sum as a float64 here.)
func TestNumericResults(t *testing.T) {
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx := testContext(t, time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db,
		"CREATE DATABASE num",
		"CREATE TABLE num.t (id INT PRIMARY KEY, k INT NOT NULL, d DOUBLE NOT NULL)",
		"INSERT INTO num.t VALUES (1, 1000000, 1234567), (2, 1007984, 0.5)")

	out, err := lab.RunMariaDBClient(ctx, p.Port(), "root", rootPassword, "num", "SELECT SUM(k) FROM t; SELECT d FROM t WHERE id = 1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "2007984\n1234567\n"; out != want {
		t.Errorf("CLI: SUM(k) and d printed as %q, want %q", out, want)
	}
	var sum float64
	if err := db.QueryRowContext(ctx, "SELECT SUM(k) FROM num.t").Scan(&sum); err != nil || sum != 2007984 {
		t.Errorf("Go: SUM(k) scanned: %v, %v; want exactly 2007984", sum, err)
	}
}
