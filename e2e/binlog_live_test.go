package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"petrel/lab"
)

// liveWriters inserts rows into live.t from n connections until stop is
// closed; it returns the number of acknowledged inserts.
func liveWriters(t *testing.T, ctx context.Context, db *sql.DB, n int, stop <-chan struct{}) func() int64 {
	t.Helper()
	var acked atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				id := next.Add(1)
				if _, err := db.ExecContext(ctx, "INSERT INTO live.t VALUES (?, ?)", id, fmt.Sprintf("row-%d", id)); err != nil {
					errs <- err
					return
				}
				acked.Add(1)
			}
		}()
	}
	return func() int64 {
		wg.Wait()
		select {
		case err := <-errs:
			t.Fatalf("writer: %v", err)
		default:
		}
		return acked.Load()
	}
}

var insertLine = regexp.MustCompile("(?m)^### INSERT INTO `live`.`t`$")

// TestToolsReadTheLiveBinlog: mariadb-binlog and `petrel binlog` read the
// file a running server is writing, while it writes and after, and exit 0
// having printed every committed transaction; a `cp` of the file taken
// while the server writes is readable up to its last whole event.
func TestToolsReadTheLiveBinlog(t *testing.T) {
	tool := requireTool(t, "mariadb-binlog", "/usr/bin/mariadb-binlog")
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE live", "CREATE TABLE live.t (id BIGINT PRIMARY KEY, v VARCHAR(40))")
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	file, _ := binlogPosition(t, ctx, db)
	live := filepath.Join(p.Datadir(), "binlog", file)
	copies := t.TempDir()

	stop := make(chan struct{})
	wait := liveWriters(t, ctx, db, 8, stop)
	// While the server writes: each read exits 0 and sees at least what
	// was committed before it started; each copy is readable.
	for i := 0; i < 5; i++ {
		time.Sleep(150 * time.Millisecond)
		before := queryInt(t, ctx, db, "SELECT COUNT(*) FROM live.t")
		out, err := exec.CommandContext(ctx, tool, "-v", "--verify-binlog-checksum", live).CombinedOutput()
		if err != nil {
			t.Fatalf("mariadb-binlog on the live file, while writing: %v\n%s", err, tail(string(out), 2000))
		}
		if n := len(insertLine.FindAllString(string(out), -1)); int64(n) < before {
			t.Fatalf("mariadb-binlog on the live file shows %d inserts; %d were committed before it started", n, before)
		}
		cp := filepath.Join(copies, fmt.Sprintf("copy-%d", i))
		if out, err := exec.CommandContext(ctx, "cp", live, cp).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v\n%s", err, out)
		}
		pout, err := exec.CommandContext(ctx, bin, "binlog", "-v", cp).CombinedOutput()
		if err != nil {
			t.Fatalf("petrel binlog on a copy of the live file: %v\n%s", err, tail(string(pout), 2000))
		}
		mout, err := exec.CommandContext(ctx, tool, "-v", "--verify-binlog-checksum", cp).CombinedOutput()
		if err != nil {
			t.Fatalf("mariadb-binlog on a copy of the live file: %v\n%s", err, tail(string(mout), 2000))
		}
		// Both print every whole event of the copy: the same rows.
		pn, mn := len(insertLine.FindAllString(string(pout), -1)), len(insertLine.FindAllString(string(mout), -1))
		if pn != mn || int64(pn) < before {
			t.Fatalf("copy %d: petrel binlog shows %d inserts, mariadb-binlog %d; %d were committed before", i, pn, mn, before)
		}
		t.Logf("while writing: %d committed before, mariadb-binlog saw %d on the live file, %d on the copy", before, len(insertLine.FindAllString(string(out), -1)), mn)
	}
	close(stop)
	acked := wait()

	// After the writes, on the still-live file: exactly the committed rows.
	rows := queryInt(t, ctx, db, "SELECT COUNT(*) FROM live.t")
	if rows != acked {
		t.Fatalf("%d rows for %d acknowledged inserts", rows, acked)
	}
	out, err := exec.CommandContext(ctx, tool, "-v", "--verify-binlog-checksum", live).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-binlog on the live file: %v\n%s", err, tail(string(out), 2000))
	}
	if n := len(insertLine.FindAllString(string(out), -1)); int64(n) != rows {
		t.Fatalf("mariadb-binlog on the live file shows %d inserts, the table has %d rows", n, rows)
	}
	if n := strings.Count(string(out), "Ignorable event type 33 (MySQL Gtid)"); int64(n) != rows+2 {
		t.Fatalf("mariadb-binlog shows %d GTIDs, want %d (2 DDL + %d rows)", n, rows+2, rows)
	}
	pout, err := exec.CommandContext(ctx, bin, "binlog", "-v", live).CombinedOutput()
	if err != nil {
		t.Fatalf("petrel binlog on the live file: %v\n%s", err, tail(string(pout), 2000))
	}
	if n := strings.Count(string(pout), "# transaction "); int64(n) != rows+2 {
		t.Fatalf("petrel binlog shows %d transactions on the live file, want %d", n, rows+2)
	}
	if !strings.Contains(string(pout), "in use") {
		t.Errorf("petrel binlog does not say the live file is in use")
	}
	t.Logf("%d rows; both tools read all of them from the live file", rows)
}

// follower is a running `petrel binlog -R` process.
type follower struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  strings.Builder
	done chan struct{}
	err  error
	errb strings.Builder
}

func startFollower(t *testing.T, ctx context.Context, bin string, args ...string) *follower {
	t.Helper()
	f := &follower{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	stdout, err := f.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	f.cmd.Stderr = &lockedWriter{mu: &f.mu, b: &f.errb}
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			f.mu.Lock()
			f.out.WriteString(sc.Text() + "\n")
			f.mu.Unlock()
		}
		f.err = f.cmd.Wait()
		close(f.done)
	}()
	t.Cleanup(func() {
		select {
		case <-f.done:
		default:
			f.cmd.Process.Kill()
			<-f.done
		}
	})
	return f
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (f *follower) output() (string, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.String(), f.errb.String()
}

// waitFor waits until the output contains s.
func (f *follower) waitFor(t *testing.T, s string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if out, _ := f.output(); strings.Contains(out, s) {
			return
		}
		select {
		case <-f.done:
			out, errs := f.output()
			t.Fatalf("the follower exited (%v) before printing %q:\n%s\n%s", f.err, s, tail(out, 2000), errs)
		case <-time.After(20 * time.Millisecond):
		}
	}
	out, errs := f.output()
	t.Fatalf("the follower did not print %q within %s:\n%s\n%s", s, d, tail(out, 2000), errs)
}

// exited waits for the process to end and returns its exit code.
func (f *follower) exited(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(d):
		t.Fatalf("the follower did not exit within %s", d)
	}
	return f.cmd.ProcessState.ExitCode()
}

// TestRemoteReaderFollowsRunningServer: `petrel binlog
// --read-from-remote-server --stop-never` prints each transaction as it
// commits, across rotations, stops cleanly on SIGTERM and SIGINT, and
// exits with an error naming the link when the server dies. --raw copies
// the files byte for byte.
func TestRemoteReaderFollowsRunningServer(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE live", "CREATE TABLE live.t (id BIGINT PRIMARY KEY, v VARCHAR(40))")
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := binlogPosition(t, ctx, db)
	conn := []string{"binlog", "--read-from-remote-server", "--host", "127.0.0.1", "--port", fmt.Sprint(p.Port()), "--user", "root", "--password", rootPassword}

	f := startFollower(t, ctx, bin, append(conn, "--stop-never", "-v", first)...)
	for i := 1; i <= 30; i++ {
		mustExec(t, ctx, db, fmt.Sprintf("INSERT INTO live.t VALUES (%d, 'follow-%d')", i, i))
		if i == 15 {
			mustExec(t, ctx, db, "FLUSH BINARY LOGS")
		}
		// The committed row reaches the follower promptly.
		f.waitFor(t, fmt.Sprintf("@2='follow-%d'", i), 10*time.Second)
	}
	last, _ := binlogPosition(t, ctx, db)
	if last == first {
		t.Fatal("no rotation happened")
	}
	if err := f.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := f.exited(t, 10*time.Second); code != 0 {
		out, errs := f.output()
		t.Fatalf("SIGTERM: exit %d\n%s\n%s", code, tail(out, 1000), errs)
	}
	out, errs := f.output()
	if n := len(insertLine.FindAllString(out, -1)); n != 30 {
		t.Fatalf("the follower printed %d inserts, want 30", n)
	}
	if !strings.Contains(errs, "stopped by signal at "+last) {
		t.Fatalf("the follower's last words %q do not say where it stopped (%s)", errs, last)
	}

	// Without --stop-never: to the end of the named file, or of the log.
	one, err := exec.CommandContext(ctx, bin, append(conn, "-v", first)...).CombinedOutput()
	if err != nil {
		t.Fatalf("one file: %v\n%s", err, tail(string(one), 2000))
	}
	if n := len(insertLine.FindAllString(string(one), -1)); n != 15 {
		t.Fatalf("reading %s alone printed %d inserts, want 15", first, n)
	}
	all, err := exec.CommandContext(ctx, bin, append(conn, "--to-last-log", "-v", first)...).CombinedOutput()
	if err != nil {
		t.Fatalf("--to-last-log: %v\n%s", err, tail(string(all), 2000))
	}
	if n := len(insertLine.FindAllString(string(all), -1)); n != 30 {
		t.Fatalf("--to-last-log printed %d inserts, want 30", n)
	}

	// --raw: the finished file is copied byte for byte.
	dir := t.TempDir()
	if out, err := exec.CommandContext(ctx, bin, append(conn, "--raw", "--result-file", dir+"/", first)...).CombinedOutput(); err != nil {
		t.Fatalf("--raw: %v\n%s", err, out)
	}
	want, err := os.ReadFile(filepath.Join(p.Datadir(), "binlog", first))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, first))
	if err != nil || string(got) != string(want) {
		t.Fatalf("--raw copy of %s: %d bytes (err %v), the server's has %d, or they differ", first, len(got), err, len(want))
	}

	// The live file's copy: its events byte for byte, except that the
	// stream does not say "in use" (the flag byte, offset 21).
	if out, err := exec.CommandContext(ctx, bin, append(conn, "--raw", "--result-file", dir+"/", last)...).CombinedOutput(); err != nil {
		t.Fatalf("--raw of the live file: %v\n%s", err, out)
	}
	want, err = os.ReadFile(filepath.Join(p.Datadir(), "binlog", last))
	if err != nil {
		t.Fatal(err)
	}
	got, err = os.ReadFile(filepath.Join(dir, last))
	if err != nil || len(got) != len(want) || got[21] != 0 || want[21] != 1 || string(got[22:]) != string(want[22:]) || string(got[:21]) != string(want[:21]) {
		t.Fatalf("--raw copy of the live %s: %d bytes (err %v) against %d, flags %v against %v", last, len(got), err, len(want), got[21:22], want[21:22])
	}

	// SIGINT stops it cleanly too; then a follower whose server dies
	// exits 1 and says the link was lost.
	f2 := startFollower(t, ctx, bin, append(conn, "-R", "--stop-never", last)...)
	f2.waitFor(t, "Previous_gtids", 10*time.Second)
	f2.cmd.Process.Signal(syscall.SIGINT)
	if code := f2.exited(t, 10*time.Second); code != 0 {
		t.Fatalf("SIGINT: exit %d", code)
	}
	// A link that goes silent (no event, no heartbeat) is given up after
	// 20 s with an error.
	link, err := lab.StartLink(fmt.Sprintf("127.0.0.1:%d", p.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	viaLink := []string{"binlog", "-R", "-h", "127.0.0.1", "-P", fmt.Sprint(link.Port()), "-u", "root", "-p" + rootPassword, "--stop-never", last}
	f4 := startFollower(t, ctx, bin, viaLink...)
	f4.waitFor(t, "Previous_gtids", 10*time.Second)
	link.BlackHole(true)
	silenced := time.Now()
	if code := f4.exited(t, 60*time.Second); code != 1 {
		t.Fatalf("after the link went silent: exit %d, want 1", code)
	}
	if _, errs := f4.output(); !strings.Contains(errs, "link is down") || time.Since(silenced) < 15*time.Second {
		t.Fatalf("after %v of silence the follower said %q", time.Since(silenced), errs)
	}
	link.BlackHole(false)

	f3 := startFollower(t, ctx, bin, append(conn, "--stop-never", last)...)
	f3.waitFor(t, "Previous_gtids", 10*time.Second)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if code := f3.exited(t, 30*time.Second); code != 1 {
		t.Fatalf("after the server died: exit %d, want 1", code)
	}
	if _, errs := f3.output(); !strings.Contains(errs, "lost the connection to 127.0.0.1:") {
		t.Fatalf("after the server died the follower said %q", errs)
	}
}

// TestRemoteReaderReadsMariaDB: `petrel binlog -R` speaks the protocol of
// other servers too: against MariaDB it prints the same rows as
// mariadb-binlog -R and stops at the end of the log.
func TestRemoteReaderReadsMariaDB(t *testing.T) {
	tool := requireTool(t, "mariadb-binlog", "/usr/bin/mariadb-binlog")
	ctx := testContext(t, 2*time.Minute)
	m, err := lab.StartMariaDB(ctx, lab.MariaDBOptions{Datadir: t.TempDir(), ServerID: 7, ExtraArgs: []string{"--log-bin=mbin", "--binlog-format=ROW"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop(context.Background())
	db, err := m.DB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, ctx, db, "CREATE DATABASE live", "CREATE TABLE live.t (id INT PRIMARY KEY, v VARCHAR(20))",
		"INSERT INTO live.t VALUES (1,'a'),(2,'b')", "INSERT INTO live.t VALUES (3,'c')")
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(m.Port())
	out, err := exec.CommandContext(ctx, bin, "binlog", "-R", "-h", "127.0.0.1", "-P", port, "-u", "root", "-v", "mbin.000001").CombinedOutput()
	if err != nil {
		t.Fatalf("petrel binlog -R against MariaDB: %v\n%s", err, tail(string(out), 3000))
	}
	ref, err := exec.CommandContext(ctx, tool, "-R", "-h", "127.0.0.1", "-P", port, "-u", "root", "-v", "mbin.000001").CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-binlog -R: %v\n%s", err, tail(string(ref), 3000))
	}
	pn, mn := len(insertLine.FindAllString(string(out), -1)), len(insertLine.FindAllString(string(ref), -1))
	if pn != 3 || mn != 3 {
		t.Fatalf("inserts printed: petrel binlog %d, mariadb-binlog %d; want 3 each\n%s", pn, mn, tail(string(out), 3000))
	}
	for _, want := range []string{"@2='a'", "@2='b'", "@2='c'"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("petrel binlog does not show %s", want)
		}
	}
}
