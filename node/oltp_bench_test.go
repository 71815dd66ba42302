package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// BenchmarkOLTP runs the transactions of sysbench's oltp_point_select,
// oltp_read_write and oltp_write_only (the same statements, prepared, as
// sysbench sends them) over the wire against an in-process server, from
// 8 connections. Besides
// wall time per transaction it reports the process's CPU time per
// transaction (client and server: on a shared host, wall time measures
// the neighbours as much as the code). Compare two trees by running it in
// each, interleaved:
//
//	go test ./node -run XXX -bench OLTP -benchtime 3000x -count 1
func BenchmarkOLTP(b *testing.B) {
	const rows = 10000
	n, root := benchNode(b)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE sbtest",
		"CREATE TABLE sbtest.sbtest1 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k))",
	} {
		if _, err := root.ExecContext(ctx, q); err != nil {
			b.Fatal(q, err)
		}
	}
	for lo := 1; lo <= rows; lo += 1000 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO sbtest.sbtest1 (id, k, c, pad) VALUES ")
		for id := lo; id < lo+1000; id++ {
			if id > lo {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, "(%d, %d, '%s', '%s')", id, id, strings.Repeat("c", 119), strings.Repeat("p", 59))
		}
		if _, err := root.ExecContext(ctx, sb.String()); err != nil {
			b.Fatal(err)
		}
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "root", "pw", "tcp", n.Addr(), "sbtest"
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(16)

	type conn struct {
		c     *sql.Conn
		stmts map[string]*sql.Stmt
	}
	stmts := map[string]string{
		"point":    "SELECT c FROM sbtest1 WHERE id=?",
		"simple":   "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?",
		"sum":      "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
		"order":    "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
		"distinct": "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
		"uindex":   "UPDATE sbtest1 SET k=k+1 WHERE id=?",
		"unindex":  "UPDATE sbtest1 SET c=? WHERE id=?",
		"delete":   "DELETE FROM sbtest1 WHERE id=?",
		"insert":   "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
		"begin":    "BEGIN",
		"commit":   "COMMIT",
	}
	var seed atomic.Uint64
	open := func() *conn {
		c, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		out := &conn{c: c, stmts: map[string]*sql.Stmt{}}
		for k, q := range stmts {
			if out.stmts[k], err = c.PrepareContext(ctx, q); err != nil {
				b.Fatal(q, err)
			}
		}
		return out
	}
	query := func(c *conn, name string, args ...any) {
		rs, err := c.stmts[name].QueryContext(ctx, args...)
		if err != nil {
			panic(fmt.Sprint(name, err))
		}
		for rs.Next() {
		}
		if err := rs.Err(); err != nil {
			panic(fmt.Sprint(name, err))
		}
		rs.Close()
	}
	exec := func(c *conn, name string, args ...any) {
		if _, err := c.stmts[name].ExecContext(ctx, args...); err != nil {
			panic(fmt.Sprint(name, err))
		}
	}
	// sysbench's deadlock retry: a victim's statements fail, the
	// transaction is rolled back and abandoned.
	retry := func(c *conn) {
		if r := recover(); r != nil {
			if !strings.Contains(fmt.Sprint(r), "1213") && !strings.Contains(fmt.Sprint(r), "1062") {
				panic(r)
			}
			c.c.ExecContext(ctx, "ROLLBACK")
		}
	}
	// The write statements of oltp_read_write and oltp_write_only, then COMMIT.
	writes := func(c *conn, rng *rand.Rand) {
		exec(c, "uindex", 1+rng.IntN(rows))
		exec(c, "unindex", strings.Repeat("u", 119), 1+rng.IntN(rows))
		id := 1 + rng.IntN(rows)
		exec(c, "delete", id)
		exec(c, "insert", id, rng.IntN(rows), strings.Repeat("c", 119), strings.Repeat("p", 59))
		exec(c, "commit")
	}
	run := func(b *testing.B, txn func(c *conn, rng *rand.Rand)) {
		b.SetParallelism(4) // 8 connections on 2 CPUs
		cpu0 := processCPU()
		b.RunParallel(func(pb *testing.PB) {
			c := open()
			defer c.c.Close()
			rng := rand.New(rand.NewPCG(seed.Add(1), 1))
			for pb.Next() {
				txn(c, rng)
			}
		})
		b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-us/txn")
	}
	b.Run("point_select", func(b *testing.B) {
		run(b, func(c *conn, rng *rand.Rand) { query(c, "point", 1+rng.IntN(rows)) })
	})
	b.Run("read_write", func(b *testing.B) {
		run(b, func(c *conn, rng *rand.Rand) {
			defer retry(c)
			exec(c, "begin")
			for range 10 {
				query(c, "point", 1+rng.IntN(rows))
			}
			lo := 1 + rng.IntN(rows-100)
			query(c, "simple", lo, lo+99)
			query(c, "sum", lo, lo+99)
			query(c, "order", lo, lo+99)
			query(c, "distinct", lo, lo+99)
			writes(c, rng)
		})
	})
	b.Run("write_only", func(b *testing.B) {
		run(b, func(c *conn, rng *rand.Rand) {
			defer retry(c)
			exec(c, "begin")
			writes(c, rng)
		})
	})
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchNode runs an in-process server for a benchmark and opens root on
// it; both close when the benchmark ends.
func benchNode(b *testing.B) (*node.Node, *sql.DB) {
	b.Helper()
	n, err := node.Open(node.Options{
		Datadir: b.TempDir() + "/d", Port: 0, RootPassword: "pw",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { n.Close() })
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
	root, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	return n, root
}
