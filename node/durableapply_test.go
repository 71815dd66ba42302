package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/node"
	"petrel/repl/replica"
	"petrel/storage"
)

// TestDurableApply: with DurableApply (petrel_replica_durable_apply) a
// replicated transaction becomes visible on the replica only after the
// replica's binlog fsync; without it the apply path never waits for that
// fsync. The fsync is held (the binlog's BeforeSync hook, where
// petrel_storage_sync_delay injects its latency) while the primary
// commits rows: the replica without DurableApply applies them all, the
// one with it applies none until the fsync is let through, then all.
func TestDurableApply(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	prim, err := node.Open(node.Options{Datadir: t.TempDir() + "/p", RootPassword: "pw", ServerID: 1, Logger: quiet, Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer prim.Close()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", prim.Addr()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(t *testing.T, q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(t, "CREATE DATABASE d1")
	exec(t, "CREATE TABLE d1.t (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR(20))")
	const rows = 50
	next := 0
	for i, durable := range []bool{false, true} {
		t.Run(fmt.Sprintf("durable=%v", durable), func(t *testing.T) {
			rdir := t.TempDir()
			st, err := storage.Open(storage.Options{Dir: rdir + "/data", Logger: quiet, LogIsWAL: true})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var hold atomic.Bool
			release := make(chan struct{})
			var held atomic.Int64
			beforeSync := func() {
				if hold.Load() {
					held.Add(1)
					select {
					case <-release:
					case <-time.After(time.Minute):
					}
				}
			}
			uuid := fmt.Sprintf("aaaaaaaa-bbbb-cccc-dddd-00000000001%d", i)
			sid, _ := base.ParseSID(uuid)
			blog, err := binlog.Open(binlog.Options{Dir: rdir + "/binlog", ServerID: uint32(10 + i), ServerUUID: sid, Logger: quiet, Store: st, BeforeSync: beforeSync})
			if err != nil {
				t.Fatal(err)
			}
			defer blog.Close()
			st.SetSink(blog)
			settings := testReplicaSettings()
			settings.DurableApply = durable
			r, err := replica.New(replica.Options{
				Datadir: rdir, ServerID: uint32(10 + i), ServerUUID: uuid, Store: st, Log: blog, Logger: quiet,
				Clock: base.RealClock{}, ExecDDL: copyDDL(st, prim.Store()), Settings: settings,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var once sync.Once
			let := func() { hold.Store(false); once.Do(func() { close(release) }) }
			defer let() // before the log's Close, which waits for a held fsync
			host, port, _ := net.SplitHostPort(prim.Addr())
			opts, err := replica.ParseOptions(fmt.Sprintf("SOURCE_HOST='%s', SOURCE_PORT=%s, SOURCE_USER='root', SOURCE_PASSWORD='pw', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1", host, port))
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Change(opts); err != nil {
				t.Fatal(err)
			}
			if err := r.Start(true, true); err != nil {
				t.Fatal(err)
			}
			waitRows := func(want int, within time.Duration) int {
				deadline := time.Now().Add(within)
				for {
					n := countRows(t, st)
					if n >= want || time.Now().After(deadline) {
						return n
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			// One row through before the fsync is held: the replica has
			// connected and applied the schema (whose DDL would otherwise
			// wait for a held fsync under a slow start).
			next++
			exec(t, "INSERT INTO d1.t VALUES (?, 'x')", next)
			if n := waitRows(next, 30*time.Second); n != next {
				t.Fatalf("the replica holds %d rows before the test, the primary %d", n, next)
			}
			hold.Store(true)
			for range rows {
				next++
				exec(t, "INSERT INTO d1.t VALUES (?, 'x')", next)
			}
			if !durable {
				if n := waitRows(next, 30*time.Second); n != next {
					t.Fatalf("with the binlog fsync held, the replica applied %d of %d rows without DurableApply", n, next)
				}
				return
			}
			if n := waitRows(next-rows+1, 500*time.Millisecond); n != next-rows {
				t.Fatalf("with the binlog fsync held, the replica applied %d rows with DurableApply, want the %d it had", n, next-rows)
			}
			if held.Load() == 0 {
				t.Fatal("no binlog fsync was asked for")
			}
			let()
			if n := waitRows(next, 30*time.Second); n != next {
				t.Fatalf("after the fsync was let through, the replica holds %d of %d rows", n, next)
			}
		})
	}
}

// copyDDL applies the replicated DDL of TestDurableApply (the replica
// there has no SQL engine) by copying the primary's definitions.
func copyDDL(st, prim *storage.Engine) func(ctx context.Context, qi binlog.QueryInfo, o storage.Origin) error {
	return func(ctx context.Context, qi binlog.QueryInfo, o storage.Origin) error {
		dbName, q := qi.Database, qi.Query
		txn := st.Begin()
		txn.SetOrigin(o)
		var err error
		switch {
		case strings.HasPrefix(q, "CREATE DATABASE d1"):
			err = st.Catalog().CreateDatabase(txn, "d1", prim.Catalog().Database("d1").Def().Collation)
		case strings.HasPrefix(q, "CREATE TABLE d1.t "):
			_, err = st.Catalog().CreateTable(txn, prim.Catalog().Table("d1", "t").Def)
		default:
			err = fmt.Errorf("unexpected replicated statement %q", q)
		}
		if err != nil {
			txn.Rollback()
			return err
		}
		txn.LogQuery(dbName, q)
		return txn.Commit(ctx)
	}
}

// countRows counts d1.t's rows in st (-1 before the table exists).
func countRows(t *testing.T, st *storage.Engine) int {
	t.Helper()
	tb := st.Catalog().Table("d1", "t")
	if tb == nil {
		return -1
	}
	txn := st.Begin()
	defer txn.Rollback()
	it, err := txn.Scan(context.Background(), tb, 0, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			return n
		}
		n++
	}
}
