package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
	"petrel/storage"
)

// TestLargeTransactionSpillsItsBatch: a 200,000-row INSERT ... SELECT
// and an UPDATE of every row in one transaction (about 50 MB of writes
// each) write their batches to spill files as they go and commit them
// as ingested table files; a rollback of such an UPDATE restores every
// row, a committed one changes every row, and both survive a restart;
// while the UPDATE is open, another session reads the rows as they were
// and a locking read of a row it did not touch does not wait.
func TestLargeTransactionSpillsItsBatch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	n, err := node.Open(node.Options{Datadir: dir, RootPassword: "pw", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			n.Close()
		}
	}()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, "CREATE DATABASE d",
		"CREATE TABLE d.seed (i INT PRIMARY KEY)",
		"INSERT INTO d.seed WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT i FROM s",
		"CREATE TABLE d.t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL, KEY k_1 (k))",
		"CREATE TABLE d.other (id INT PRIMARY KEY, v INT)",
		"INSERT INTO d.other VALUES (1, 10)")
	spills, ingests := storage.BatchSpills(), storage.CommitIngests()
	mustExec(t, db, "INSERT INTO d.t SELECT a.i * 1000 + b.i + 1, (a.i * 7919 + b.i) % 50000, REPEAT(CHAR(97 + b.i % 26), 120), REPEAT('p', 60) FROM d.seed a, d.seed b WHERE a.i < 200")
	if storage.BatchSpills() == spills || storage.CommitIngests() == ingests {
		t.Fatalf("INSERT ... SELECT: %d spills, %d ingested commits, want some of each", storage.BatchSpills()-spills, storage.CommitIngests()-ingests)
	}
	const check = "SELECT COUNT(*), SUM(k), SUM(CRC32(CONCAT(id, ':', k, ':', c))) FROM d.t"
	loaded := fmt.Sprint(queryRows(t, db, check))
	var sumK, zeros int
	for a := 0; a < 200; a++ {
		for b := 0; b < 1000; b++ {
			sumK += (a*7919 + b) % 50000
			if (a*7919+b)%50000 == 0 {
				zeros++
			}
		}
	}
	if want := fmt.Sprintf("[[200000 %d ", sumK); len(loaded) < len(want) || loaded[:len(want)] != want {
		t.Fatalf("loaded: %s, want %s...", loaded, want)
	}

	ctx := context.Background()
	for _, commit := range []bool{false, true} {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		spills = storage.BatchSpills()
		mustConnExec(t, c, "BEGIN")
		mustConnExec(t, c, "UPDATE d.t SET k = k + 1")
		if storage.BatchSpills() == spills {
			t.Fatal("UPDATE: its batch did not spill")
		}
		if got := fmt.Sprint(queryRows(t, db, check)); got != loaded {
			t.Fatalf("another session during the UPDATE: %s, want %s", got, loaded)
		}
		if got := fmt.Sprint(queryRows(t, db, "SELECT v FROM d.other WHERE id = 1 FOR UPDATE NOWAIT")); got != "[[10]]" {
			t.Fatalf("a locking read of a row the UPDATE did not touch: %s", got)
		}
		if commit {
			mustConnExec(t, c, "COMMIT")
		} else {
			mustConnExec(t, c, "ROLLBACK")
		}
		c.Close()
		want := loaded
		if commit {
			want = fmt.Sprintf("[[200000 %d ", sumK+200000)
			got := fmt.Sprint(queryRows(t, db, check))
			if len(got) < len(want) || got[:len(want)] != want {
				t.Fatalf("after the commit: %s, want %s...", got, want)
			}
			continue
		}
		if got := fmt.Sprint(queryRows(t, db, check)); got != want {
			t.Fatalf("after the rollback: %s, want %s", got, want)
		}
	}
	after := fmt.Sprint(queryRows(t, db, check))
	if got, want := fmt.Sprint(queryRows(t, db, "SELECT COUNT(*) FROM d.t FORCE INDEX (k_1) WHERE k = 1")), fmt.Sprintf("[[%d]]", zeros); got != want {
		t.Fatalf("rows with k = 1 through the index: %s, want %s", got, want)
	}
	db.Close()
	closed = true
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	_, db2 := openTestNode(t, dir, nil)
	if got := fmt.Sprint(queryRows(t, db2, check)); got != after {
		t.Fatalf("after a restart: %s, want %s", got, after)
	}
}

// TestSpilledBatchReplicates: a replica applies a source's 200,000-row
// INSERT ... SELECT and a transaction updating a third of the rows and
// deleting a seventh, whose batches spilled on the source, to the same
// rows. (The applier's own batches are not lazy: they do not spill.)
func TestSpilledBatchReplicates(t *testing.T) {
	dir := t.TempDir()
	srcNode, src := openTestNode(t, filepath.Join(dir, "src"), nil)
	spills := storage.BatchSpills()
	mustExec(t, src, "CREATE DATABASE d",
		"CREATE TABLE d.seed (i INT PRIMARY KEY)",
		"INSERT INTO d.seed WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999) SELECT i FROM s",
		"CREATE TABLE d.t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL, KEY k_1 (k))",
		"INSERT INTO d.t SELECT a.i * 1000 + b.i + 1, (a.i * 7919 + b.i) % 50000, REPEAT(CHAR(97 + b.i % 26), 120), REPEAT('p', 60) FROM d.seed a, d.seed b WHERE a.i < 200")
	ctx := context.Background()
	c, err := src.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustConnExec(t, c, "BEGIN", "UPDATE d.t SET k = k + 1, c = REPEAT('u', 120) WHERE id % 3 = 0", "DELETE FROM d.t WHERE id % 7 = 0", "COMMIT")
	c.Close()
	const check = "SELECT COUNT(*), SUM(k), SUM(CRC32(CONCAT(id, ':', k, ':', c))) FROM d.t"
	want := fmt.Sprint(queryRows(t, src, check))
	if storage.BatchSpills() == spills {
		t.Fatal("no batch spilled on the source")
	}
	_, rep := openNodeOpts(t, node.Options{Datadir: filepath.Join(dir, "rep"), ServerID: 2})
	mustExec(t, rep, fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%s, SOURCE_USER='root', SOURCE_PASSWORD='pw', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1", srcPort(t, srcNode)),
		"START REPLICA")
	deadline := time.Now().Add(90 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if rows, err := rep.Query(check); err == nil {
			got = fmt.Sprint(scanRows(t, rows))
			if got == want {
				break
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got != want {
		t.Fatalf("replica: %s, want %s", got, want)
	}
	mustExec(t, rep, "STOP REPLICA")
}
