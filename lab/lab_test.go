package lab

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// strictEnv, when "1", turns a missing MariaDB or petrel into a failure
// instead of a skip; `make test` sets it after installing dependencies.
const strictEnv = "PETREL_LAB_STRICT"

func requireTool(t *testing.T, name, fallback string) {
	t.Helper()
	p := findTool(name, fallback)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv(strictEnv) == "1" {
			t.Fatalf("%s not found (%v) and %s=1", name, err, strictEnv)
		}
		t.Skipf("%s not installed; run scripts/deps.sh", name)
	}
}

func TestTailBuffer(t *testing.T) {
	b := newTailBuffer(8)
	b.Write([]byte("abc"))
	if got := b.String(); got != "abc" {
		t.Fatalf("got %q", got)
	}
	for i := 0; i < 10; i++ {
		b.Write([]byte(strconv.Itoa(i)))
	}
	got := b.String()
	if !strings.HasSuffix(got, "23456789") || !strings.HasPrefix(got, "[... earlier output dropped") {
		t.Fatalf("got %q", got)
	}
	b.Write([]byte("0123456789ABCDEF"))
	if got := b.String(); !strings.HasSuffix(got, "\n89ABCDEF") {
		t.Fatalf("got %q", got)
	}
}

func TestParseSysbench(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("testdata", "sysbench_run.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseSysbench(string(out))
	if err != nil {
		t.Fatal(err)
	}
	want := SysbenchResult{Transactions: 150143, TPS: 74995.63, Queries: 150143, QPS: 74995.63,
		LatencyAvgMs: 0.03, LatencyP95Ms: 0.03}
	if r != want {
		t.Fatalf("got %+v, want %+v", r, want)
	}
	if _, err := ParseSysbench("FATAL: connection refused"); err == nil {
		t.Fatal("expected an error for output without a summary")
	}
	// With --report-checkpoints (clients-scaling's warm-up), the figures
	// are the last summary's, not the checkpoint's: a 10000-thread run
	// against Petrel, checkpoint at 50 s of 70.
	out, err = os.ReadFile(filepath.Join("testdata", "sysbench_checkpoint.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if r, err = ParseSysbench(string(out)); err != nil {
		t.Fatal(err)
	}
	want = SysbenchResult{Transactions: 10291, TPS: 155.17, Queries: 213110, QPS: 3213.29, IgnoredErrors: 1066,
		LatencyAvgMs: 100127.37, LatencyP95Ms: 100000}
	if r != want {
		t.Fatalf("after a checkpoint: got %+v, want %+v", r, want)
	}
}

func TestFreePort(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("port %d from FreePort is not free: %v", port, err)
	}
	l.Close()
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(mod), "module petrel\n") {
		t.Fatalf("%s/go.mod is not module petrel", root)
	}
}

// TestMariaDBRoundTrip writes with the CLI, reads with database/sql, then
// crashes the server, recovers it and checks the rows survived.
func TestMariaDBRoundTrip(t *testing.T) {
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	requireTool(t, "mariadb", "/usr/bin/mariadb")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	m, err := StartMariaDB(ctx, MariaDBOptions{
		ExtraArgs: []string{"--innodb-flush-log-at-trx-commit=1", "--log-bin=mysql-bin", "--sync-binlog=1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := m.Stop(context.Background()); err != nil {
			t.Errorf("stop: %v", err)
		}
		if t.Failed() {
			t.Logf("mariadbd log:\n%s", m.Log())
		}
	}()
	datadir := m.Datadir()

	if _, err := RunMariaDBClient(ctx, m.Port(), "root", "", "",
		"CREATE DATABASE lab; CREATE TABLE lab.t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB"); err != nil {
		t.Fatal(err)
	}
	if _, err := RunMariaDBClient(ctx, m.Port(), "root", "", "lab",
		"INSERT INTO t VALUES (1,'one'),(2,'two'),(3,'three')"); err != nil {
		t.Fatal(err)
	}
	out, err := RunMariaDBClient(ctx, m.Port(), "root", "", "lab", "SELECT id, v FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	if want := "1\tone\n2\ttwo\n3\tthree\n"; out != want {
		t.Fatalf("CLI select: got %q, want %q", out, want)
	}
	if _, err := RunMariaDBClient(ctx, m.Port(), "root", "", "lab", "SELECT * FROM missing"); err == nil ||
		!strings.Contains(err.Error(), "1146") {
		t.Fatalf("expected ERROR 1146 in the error, got %v", err)
	}

	checkRows := func() {
		t.Helper()
		db, err := m.DB("lab")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		var sum string
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*), GROUP_CONCAT(v ORDER BY id) FROM t").Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		if n != 3 || sum != "one,two,three" {
			t.Fatalf("database/sql read: got %d rows %q, want 3 rows \"one,two,three\"", n, sum)
		}
	}
	checkRows()

	pid := m.Pid()
	if err := m.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("pid %d still exists after Kill (kill -0: %v)", pid, err)
	}
	if _, err := RunMariaDBClient(ctx, m.Port(), "root", "", "", "SELECT 1"); err == nil {
		t.Fatal("CLI connected to a killed server")
	}

	if err := m.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if m.Pid() == pid {
		t.Fatal("Restart kept the old pid")
	}
	checkRows()

	if err := m.Stop(ctx); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	if _, err := os.Stat(datadir); !os.IsNotExist(err) {
		t.Fatalf("lab-created datadir %s not removed by Stop (stat: %v)", datadir, err)
	}
	if err := m.Restart(ctx); err == nil {
		t.Fatal("Restart after Stop removed the datadir should fail")
	}
}

// TestMariaDBPortInUse checks that a server that dies at startup is
// reported at once, with its output, and leaves no directories behind.
func TestMariaDBPortInUse(t *testing.T) {
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	dir := filepath.Join(t.TempDir(), "data")

	start := time.Now()
	m, err := StartMariaDB(context.Background(), MariaDBOptions{Datadir: dir, Port: port, StartTimeout: 120 * time.Second})
	if err == nil {
		m.Stop(context.Background())
		t.Fatal("StartMariaDB succeeded on a port that is in use")
	}
	if elapsed := time.Since(start); elapsed > 90*time.Second {
		t.Errorf("failure took %v; expected the exit to be noticed quickly", elapsed)
	}
	if !strings.Contains(err.Error(), "exited before accepting connections") ||
		!strings.Contains(err.Error(), "mariadbd output") {
		t.Fatalf("error lacks the exit or the server output: %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "mysql")); statErr != nil {
		t.Fatalf("caller's datadir should be initialised and kept: %v", statErr)
	}
}

// TestPetrelLifecycle exercises StartPetrel against the real binary once
// cmd/petrel exists.
func TestPetrelLifecycle(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "petrel")); err != nil && os.Getenv(PetrelBinaryEnv) == "" {
		t.Skip("cmd/petrel does not exist yet")
	}
	exercisePetrel(t, PetrelOptions{Datadir: t.TempDir(), RootPassword: "petrel"})
}

// TestPetrelWrapperFake runs the same lifecycle with testdata/fakepetrel.sh,
// which takes petrel's flags and runs mariadbd, so the wrapper itself is
// tested whatever state cmd/petrel is in.
func TestPetrelWrapperFake(t *testing.T) {
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	fake, err := filepath.Abs(filepath.Join("testdata", "fakepetrel.sh"))
	if err != nil {
		t.Fatal(err)
	}
	p := exercisePetrel(t, PetrelOptions{Binary: fake, Datadir: t.TempDir(), RootPassword: "s3cr'et", ServerID: 7})
	if !strings.Contains(p.Log(), "fakepetrel: starting on port "+strconv.Itoa(p.Port())) {
		t.Errorf("Log lacks the server's stderr:\n%s", p.Log())
	}
}

// exercisePetrel starts a server, writes rows, restarts it cleanly, kills
// it, restarts it and checks the rows each time, then stops it.
func exercisePetrel(t *testing.T, opts PetrelOptions) *Petrel {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p, err := StartPetrel(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			p.Kill()
			t.Logf("server log:\n%s", p.Log())
		}
	}()

	db, err := p.DB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE DATABASE lab",
		"CREATE TABLE lab.t (id INT PRIMARY KEY, v VARCHAR(20))",
		"INSERT INTO lab.t VALUES (1,'one'),(2,'two')",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	count := func(when string) {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM lab.t").Scan(&n); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if n != 2 {
			t.Fatalf("%s: %d rows, want 2", when, n)
		}
	}
	if out, err := RunMariaDBClient(ctx, p.Port(), "root", opts.RootPassword, "lab", "SELECT v FROM t ORDER BY id"); err != nil || out != "one\ntwo\n" {
		t.Fatalf("CLI read: %q, %v", out, err)
	}
	if _, err := RunMariaDBClient(ctx, p.Port(), "root", "wrong", "", "SELECT 1"); err == nil || !strings.Contains(err.Error(), "1045") {
		t.Fatalf("wrong password: want ERROR 1045, got %v", err)
	}

	if err := p.Restart(ctx); err != nil { // clean stop, then start
		t.Fatal(err)
	}
	count("after clean restart")

	pid := p.Pid()
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("pid %d still exists after Kill (kill -0: %v)", pid, err)
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	count("after kill -9 and restart")

	if err := p.Stop(ctx); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	return p
}

// FuzzParseSysbench checks the parser never panics and that whatever it
// accepts is internally consistent.
func FuzzParseSysbench(f *testing.F) {
	if out, err := os.ReadFile(filepath.Join("testdata", "sysbench_run.txt")); err == nil {
		f.Add(string(out))
	}
	f.Add("    transactions:                        1 (0.50 per sec.)\n    queries: 2 (1.00 per sec.)\n")
	f.Fuzz(func(t *testing.T, out string) {
		r, err := ParseSysbench(out)
		if err == nil && (r.Transactions < 0 || r.Queries < 0 || r.TPS < 0 || r.QPS < 0) {
			t.Fatalf("negative figures from %q: %+v", out, r)
		}
	})
}
