package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// openTestNode opens a node on datadir with vars and a client for it.
func openTestNode(t *testing.T, datadir string, vars map[string]string) (*node.Node, *sql.DB) {
	t.Helper()
	return openNodeOpts(t, node.Options{Datadir: datadir, Variables: vars})
}

// openNodeOpts opens a node with o (root password "pw", logs discarded)
// and a root client for it; both are closed when the test ends.
func openNodeOpts(t *testing.T, o node.Options) (*node.Node, *sql.DB) {
	t.Helper()
	o.RootPassword = "pw"
	o.Logger, o.Out = slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard
	n, err := node.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return n, db
}

// TestSpilledTransactionsReplicate: with binlog_cache_size at 4 KiB, a
// 20,000-row INSERT ... SELECT and a transaction updating every row and
// deleting a tenth of them spill their binlog caches to files; the
// source holds the rows, mariadb-binlog decodes every row change from its
// log, a replica applies them to the same checksum, and no cache file is
// left.
func TestSpilledTransactionsReplicate(t *testing.T) {
	dir := t.TempDir()
	srcNode, src := openTestNode(t, filepath.Join(dir, "src"), map[string]string{"binlog_cache_size": "4096"})
	mustExec(t, src, "CREATE DATABASE d",
		"CREATE TABLE d.seed (i INT PRIMARY KEY)",
		"INSERT INTO d.seed WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT i FROM s",
		"CREATE TABLE d.t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(60) NOT NULL, KEY k_1 (k))",
		"INSERT INTO d.t SELECT a.i * 1000 + b.i + 1, (a.i * 7919 + b.i) % 5000, REPEAT(CHAR(97 + b.i % 26), 60) FROM d.seed a, d.seed b WHERE a.i < 20")
	ctx := context.Background()
	c, err := src.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustConnExec(t, c, "BEGIN")
	mustConnExec(t, c, "UPDATE d.t SET k = k + 1")
	mustConnExec(t, c, "DELETE FROM d.t WHERE id % 10 = 0")
	mustConnExec(t, c, "COMMIT")
	c.Close()

	const check = "SELECT COUNT(*), SUM(k), SUM(CRC32(CONCAT(id, ':', k, ':', c))) FROM d.t"
	want := fmt.Sprint(queryRows(t, src, check))
	var sumK int
	for a := 0; a < 20; a++ {
		for b := 0; b < 1000; b++ {
			if (b+1)%10 != 0 {
				sumK += (a*7919+b)%5000 + 1
			}
		}
	}
	if prefix := fmt.Sprintf("[[18000 %d ", sumK); !strings.HasPrefix(want, prefix) {
		t.Fatalf("source: %s, want %s...", want, prefix)
	}
	if got := queryRows(t, src, "SHOW GLOBAL STATUS LIKE 'Binlog_cache_disk_use'"); len(got) != 1 || got[0][1] < "2" {
		t.Fatalf("Binlog_cache_disk_use: %v, want at least 2 spilled caches", got)
	}
	if ents, err := os.ReadDir(filepath.Join(dir, "src", "#binlog_cache")); err != nil || len(ents) != 0 {
		t.Fatalf("cache directory after the commits: %v entries, %v", len(ents), err)
	}

	// mariadb-binlog reads every row change (checksums, positions and
	// lengths of the streamed events included).
	var files []string
	for _, r := range queryRows(t, src, "SHOW BINARY LOGS") {
		files = append(files, filepath.Join(dir, "src", "binlog", r[0]))
	}
	out, err := exec.Command("mariadb-binlog", append([]string{"--verbose", "--base64-output=DECODE-ROWS"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-binlog: %v\n%.2000s", err, out)
	}
	for what, n := range map[string]int{"### INSERT INTO `d`.`t`": 20000, "### UPDATE `d`.`t`": 20000, "### DELETE FROM `d`.`t`": 2000} {
		if got := strings.Count(string(out), what); got != n {
			t.Errorf("mariadb-binlog shows %d %q, want %d", got, what, n)
		}
	}

	// A replica applies them.
	_, rep := openNodeOpts(t, node.Options{Datadir: filepath.Join(dir, "rep"), ServerID: 2})
	mustExec(t, rep, fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%s, SOURCE_USER='root', SOURCE_PASSWORD='pw', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1", srcPort(t, srcNode)),
		"START REPLICA")
	deadline := time.Now().Add(30 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if rows, err := rep.Query(check); err == nil {
			got = fmt.Sprint(scanRows(t, rows))
			if got == want {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got != want {
		var errs []string
		if rows, err := rep.Query("SHOW REPLICA STATUS"); err == nil {
			cols, _ := rows.Columns()
			for _, r := range scanRows(t, rows) {
				for i, v := range r {
					if strings.Contains(cols[i], "Error") && v != "" && v != "0" {
						errs = append(errs, cols[i]+"="+v)
					}
				}
			}
		}
		t.Fatalf("replica: %s, want %s; replica status: %v", got, want, errs)
	}
	mustExec(t, rep, "STOP REPLICA")
}

// srcPort is the port n serves clients on.
func srcPort(t *testing.T, n *node.Node) string {
	t.Helper()
	_, p, err := net.SplitHostPort(n.Addr())
	if err != nil {
		t.Fatal(err)
	}
	return p
}
