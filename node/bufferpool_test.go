package node_test

import (
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
	"petrel/storage"
)

// startupCase is one set of option-file settings and the value storage
// must open with.
type startupCase struct {
	vars map[string]string
	want int64
}

// checkStartupVariable checks a variable storage is opened with: for each
// case, storage took the value (stored), the server reports it as
// @@GLOBAL.name, and SET GLOBAL name fails with 1238 (read-only); each of
// bad is refused at start-up.
func checkStartupVariable(t *testing.T, name string, cases []startupCase, stored func(*node.Node) int64, bad []string) {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range cases {
		n, err := node.Open(node.Options{Datadir: t.TempDir() + "/d", RootPassword: "pw", Variables: c.vars, Logger: quiet, Out: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if got := stored(n); got != c.want {
			t.Errorf("%v: storage opened with %s = %d, want %d", c.vars, name, got, c.want)
		}
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		var v int64
		if err := db.QueryRow("SELECT @@GLOBAL." + name).Scan(&v); err != nil || v != c.want {
			t.Errorf("%v: @@%s = %d (%v), want %d", c.vars, name, v, err, c.want)
		}
		var me *mysql.MySQLError
		if _, err := db.Exec("SET GLOBAL " + name + " = 268435456"); !errors.As(err, &me) || me.Number != 1238 {
			t.Errorf("SET GLOBAL %s: %v, want error 1238", name, err)
		}
		db.Close()
		n.Close()
	}
	for _, b := range bad {
		if _, err := node.Open(node.Options{Datadir: t.TempDir() + "/d", Variables: map[string]string{name: b}, Logger: quiet, Out: io.Discard}); err == nil {
			t.Errorf("%s=%s accepted", name, b)
		}
	}
}

// TestBufferPoolSizeIsTheBlockCache: innodb_buffer_pool_size from the
// config file (MySQL's size suffixes) is the block cache storage opens
// with, and what the server reports; without it both are storage's
// default from the machine's memory; it cannot change while running
// (error 1238: Pebble's cache is not resizable).
func TestBufferPoolSizeIsTheBlockCache(t *testing.T) {
	checkStartupVariable(t, "innodb_buffer_pool_size", []startupCase{
		{map[string]string{"innodb_buffer_pool_size": "64M"}, 64 << 20},
		{map[string]string{"innodb-buffer-pool-size": "134217728"}, 128 << 20},
		{nil, storage.DefaultCacheSize()},
	}, func(n *node.Node) int64 { return n.Store().CacheSize() }, []string{"1X"})
}

// TestMemtableSize: petrel_memtable_size from the config file is the
// memtable size storage opens with and what the server reports (default
// storage's 2 MiB); it cannot change while running (1238), and a value
// outside 1 MiB to 1 GiB is refused at start-up.
func TestMemtableSize(t *testing.T) {
	checkStartupVariable(t, "petrel_memtable_size", []startupCase{
		{map[string]string{"petrel_memtable_size": "16M"}, 16 << 20},
		{map[string]string{"petrel-memtable-size": "8388608"}, 8 << 20},
		{nil, storage.DefaultMemTableSize},
	}, func(n *node.Node) int64 { return int64(n.Store().MemTableSize()) }, []string{"512K", "2G", "big"})
}
