package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// pymysqlScript uses PyMySQL with its defaults (autocommit=False): it
// trusts the server's SERVER_STATUS_AUTOCOMMIT flag to decide whether to
// send SET autocommit=0, so a server that never sets the flag gets every
// statement committed at once. It prints what it observed, one fact a
// line.
const pymysqlScript = `
import sys, pymysql
port, pw = int(sys.argv[1]), sys.argv[2]
def connect():
    return pymysql.connect(host="127.0.0.1", port=port, user="root", password=pw, database="py")
a, b = connect(), connect()
print("autocommit", a.get_autocommit())
with a.cursor() as c:
    c.execute("INSERT INTO t VALUES (1, 'rolled back')")
with b.cursor() as c:
    c.execute("SELECT COUNT(*) FROM t")
    print("other session sees", c.fetchone()[0])
a.rollback()
with a.cursor() as c:
    c.execute("SELECT COUNT(*) FROM t")
    print("after rollback", c.fetchone()[0])
    c.execute("INSERT INTO t VALUES (2, 'committed')")
a.commit()
b.commit()
with b.cursor() as c:
    c.execute("SELECT GROUP_CONCAT(id) FROM t")
    print("after commit", c.fetchone()[0])
try:
    with a.cursor() as c:
        c.execute("INSERT INTO t VALUES (2, 'dup')")
except pymysql.err.IntegrityError as e:
    print("error", type(e).__name__, e.args[0])
`

// TestPyMySQLTransactions runs PyMySQL (Debian's python3-pymysql) with
// its default settings: rollback() undoes an INSERT, another session does
// not see it uncommitted, commit() keeps one, and a duplicate key is an
// IntegrityError 1062.
func TestPyMySQLTransactions(t *testing.T) {
	requireTool(t, "python3", debianPython)
	py := debianPython
	if err := exec.Command(py, "-c", "import pymysql").Run(); err != nil {
		if os.Getenv(strictEnv) == "1" {
			t.Fatalf("python3 cannot import pymysql (%v), and %s=1", err, strictEnv)
		}
		t.Skip("python3-pymysql not installed; run scripts/deps.sh")
	}
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE py", "CREATE TABLE py.t (id INT PRIMARY KEY, s VARCHAR(20))")

	script := filepath.Join(t.TempDir(), "tx.py")
	if err := os.WriteFile(script, []byte(pymysqlScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, py, script, strconv.Itoa(p.Port()), rootPassword).CombinedOutput()
	if err != nil {
		t.Fatalf("pymysql script: %v\n%s", err, out)
	}
	want := []string{
		"autocommit False",
		"other session sees 0",
		"after rollback 0",
		"after commit 2",
		"error IntegrityError 1062",
	}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("PyMySQL observed:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
	if n := queryInt(t, ctx, rootDB(t, p, "py"), "SELECT COUNT(*) FROM t"); n != 1 {
		t.Errorf("rows in py.t: %d, want 1", n)
	}
}
