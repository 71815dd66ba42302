package node

import (
	"fmt"
	"path/filepath"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/sqlengine"
	"petrel/storage"
)

// openBinlog opens the log (replaying into storage what storage lacks),
// makes it storage's commit sink and exposes it through SQL.
func (n *Node) openBinlog() error {
	sid, err := base.ParseSID(n.meta.ServerUUID)
	if err != nil {
		return err
	}
	bs := n.binlogVars.Settings()
	sync := bs.SyncBinlog
	if sync == 0 {
		sync = -1
	}
	var beforeSync func() // petrel_storage_sync_delay: the log's fsyncs are as slow as storage's
	if n.store.SyncDelay() > 0 {
		beforeSync = n.store.DelaySync
	}
	l, err := binlog.Open(binlog.Options{BeforeSync: beforeSync,
		Dir: n.opts.Datadir + "/binlog", MaxSize: bs.MaxSize, SyncBinlog: sync,
		ServerID: n.opts.ServerID, ServerUUID: sid, ServerVersion: sqlengine.Version, Logger: n.opts.Logger, Clock: n.opts.Clock, Store: n.logStore(),
		TruncateUnapplied: bs.TruncateUnapplied, TruncateCorrupt: bs.TruncateCorrupt,
		CacheDir: filepath.Join(n.opts.Datadir, "#binlog_cache"),
	})
	if err != nil {
		return fmt.Errorf("node: binary log: %w", err)
	}
	n.binlog = l
	n.set.Push(func(s settings) { l.SetCacheSize(s.BinlogCacheSize) })
	n.sql.RegisterStatus("Binlog_cache_use", func() any { u, _ := l.CacheStats(); return u })
	n.sql.RegisterStatus("Binlog_cache_disk_use", func() any { _, d := l.CacheStats(); return d })
	if !n.opts.Relay {
		n.store.SetSink(l)
	}
	n.binlogVars.Register(n.sql, l, n.store, n.opts.Clock, n.opts.Logger)
	return nil
}

// logStore is the storage the log recovers at Open: none on a relay, whose
// log holds its source's transactions, never applied.
func (n *Node) logStore() *storage.Engine {
	if n.opts.Relay {
		return nil
	}
	return n.store
}
