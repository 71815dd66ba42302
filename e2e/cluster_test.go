package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// freePortRun finds n consecutive free loopback ports.
func freePortRun(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		base := 20000 + rand.IntN(30000)
		ok := true
		for i := 0; i < n && ok; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no run of free ports")
	return 0
}

// startCluster runs `petrel cluster` and waits for its connection details.
func startCluster(t *testing.T, ctx context.Context, bin, dir string, base, replicas int) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "cluster", "--datadir", dir, "--base-port", fmt.Sprint(base), "--replicas", fmt.Sprint(replicas), "--root-password", rootPassword)
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGINT)
			cmd.Wait()
		}
	})
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
	var got []string
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("petrel cluster exited before it was ready: %s\n%s", strings.Join(got, "\n"), stderr.String())
			}
			got = append(got, l)
			if len(got) == replicas+2 {
				return cmd, strings.Join(got, "\n")
			}
		case <-ctx.Done():
			t.Fatalf("petrel cluster not ready: %s\n%s", strings.Join(got, "\n"), stderr.String())
		}
	}
}

// TestClusterCommand: `petrel cluster` starts a primary and replicas with
// replication wired and replicas read-only; Ctrl-C stops it cleanly; a
// restart on the same directory keeps the data and keeps replicating.
func TestClusterCommand(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 3)
	open := func(port int) querier {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", rootPassword, "tcp", fmt.Sprintf("127.0.0.1:%d", port)
		cfg.Logger = &mysql.NopLogger{}
		return openConfig(t, cfg)
	}
	cmd, details := startCluster(t, ctx, bin, dir, base, 2)
	for i := 0; i < 3; i++ {
		if !strings.Contains(details, fmt.Sprintf("-P %d", base+i)) {
			t.Errorf("connection details lack port %d:\n%s", base+i, details)
		}
	}
	p, r1, r2 := open(base), open(base+1), open(base+2)
	mustExec(t, ctx, p, "CREATE DATABASE c", "CREATE TABLE c.t (id INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO c.t VALUES (1, 'one'), (2, 'two')")
	waitRows := func(q querier, want int64) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			var n int64
			if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM c.t").Scan(&n); err == nil && n == want {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("replica did not reach %d rows in c.t", want)
	}
	waitRows(r1, 2)
	waitRows(r2, 2)
	_, err = r1.ExecContext(ctx, "INSERT INTO c.t VALUES (3, 'no')")
	wantErrNo(t, "write on a cluster replica", err, erOptionPreventsStmt)

	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("petrel cluster after Ctrl-C: %v", err)
	}
	cmd, _ = startCluster(t, ctx, bin, dir, base, 2)
	p, r1, r2 = open(base), open(base+1), open(base+2)
	mustExec(t, ctx, p, "INSERT INTO c.t VALUES (3, 'three')")
	waitRows(r1, 3)
	waitRows(r2, 3)
	sameTable(t, ctx, p, r2, "c.t", "id")
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("petrel cluster after the second Ctrl-C: %v", err)
	}
}
