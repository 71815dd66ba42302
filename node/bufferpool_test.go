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

// TestBufferPoolSizeIsTheBlockCache: innodb_buffer_pool_size from the
// config file (MySQL's size suffixes) is the block cache storage opens
// with, and what the server reports; without it both are storage's
// default from the machine's memory; it cannot change while running
// (error 1238: Pebble's cache is not resizable).
func TestBufferPoolSizeIsTheBlockCache(t *testing.T) {
	for _, c := range []struct {
		vars map[string]string
		want int64
	}{
		{map[string]string{"innodb_buffer_pool_size": "64M"}, 64 << 20},
		{map[string]string{"innodb-buffer-pool-size": "134217728"}, 128 << 20},
		{nil, storage.DefaultCacheSize()},
	} {
		n, err := node.Open(node.Options{
			Datadir: t.TempDir() + "/d", RootPassword: "pw", Variables: c.vars,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Store().CacheSize(); got != c.want {
			t.Errorf("%v: block cache %d, want %d", c.vars, got, c.want)
		}
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		var v int64
		if err := db.QueryRow("SELECT @@GLOBAL.innodb_buffer_pool_size").Scan(&v); err != nil || v != c.want {
			t.Errorf("%v: @@innodb_buffer_pool_size = %d (%v), want %d", c.vars, v, err, c.want)
		}
		var me *mysql.MySQLError
		if _, err := db.Exec("SET GLOBAL innodb_buffer_pool_size = 268435456"); !errors.As(err, &me) || me.Number != 1238 {
			t.Errorf("SET GLOBAL innodb_buffer_pool_size: %v, want error 1238", err)
		}
		db.Close()
		n.Close()
	}
	if _, err := node.Open(node.Options{Datadir: t.TempDir() + "/d", Variables: map[string]string{"innodb_buffer_pool_size": "1X"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard}); err == nil {
		t.Error("innodb_buffer_pool_size=1X accepted")
	}
}

// TestMemtableSize: petrel_memtable_size from the config file is the
// memtable size storage opens with and what the server reports (default
// storage's 2 MiB); it cannot change while running (1238), and a value
// outside 1 MiB to 1 GiB is refused at start-up.
func TestMemtableSize(t *testing.T) {
	for _, c := range []struct {
		vars map[string]string
		want uint64
	}{
		{map[string]string{"petrel_memtable_size": "16M"}, 16 << 20},
		{map[string]string{"petrel-memtable-size": "8388608"}, 8 << 20},
		{nil, storage.DefaultMemTableSize},
	} {
		n, err := node.Open(node.Options{
			Datadir: t.TempDir() + "/d", RootPassword: "pw", Variables: c.vars,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Store().MemTableSize(); got != c.want {
			t.Errorf("%v: memtable %d, want %d", c.vars, got, c.want)
		}
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		var v uint64
		if err := db.QueryRow("SELECT @@GLOBAL.petrel_memtable_size").Scan(&v); err != nil || v != c.want {
			t.Errorf("%v: @@petrel_memtable_size = %d (%v), want %d", c.vars, v, err, c.want)
		}
		var me *mysql.MySQLError
		if _, err := db.Exec("SET GLOBAL petrel_memtable_size = 33554432"); !errors.As(err, &me) || me.Number != 1238 {
			t.Errorf("SET GLOBAL petrel_memtable_size: %v, want error 1238", err)
		}
		db.Close()
		n.Close()
	}
	for _, bad := range []string{"512K", "2G", "big"} {
		if _, err := node.Open(node.Options{Datadir: t.TempDir() + "/d", Variables: map[string]string{"petrel_memtable_size": bad},
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard}); err == nil {
			t.Errorf("petrel_memtable_size=%s accepted", bad)
		}
	}
}
