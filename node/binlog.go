package node

import (
	"fmt"
	"path/filepath"
	"strings"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/sqlengine"
	"petrel/storage"
	"petrel/surface/binlogsql"
)

// openBinlog opens the log (replaying into storage what storage lacks),
// makes it storage's commit sink and exposes it through SQL.
func (n *Node) openBinlog() error {
	sid, err := base.ParseSID(n.meta.ServerUUID)
	if err != nil {
		return err
	}
	sync := int(sqlengine.GlobalUint("sync_binlog", 1))
	if sync == 0 {
		sync = -1
	}
	var beforeSync func() // petrel_storage_sync_delay: the log's fsyncs are as slow as storage's
	if n.store.SyncDelay() > 0 {
		beforeSync = n.store.DelaySync
	}
	l, err := binlog.Open(binlog.Options{BeforeSync: beforeSync,
		Dir: n.opts.Datadir + "/binlog", MaxSize: int64(sqlengine.GlobalUint("max_binlog_size", 1<<30)), SyncBinlog: sync,
		ServerID: n.opts.ServerID, ServerUUID: sid, ServerVersion: sqlengine.Version, Logger: n.opts.Logger, Clock: n.opts.Clock, Store: n.logStore(),
		// A crashed semi-sync source restarted as a replica (MariaDB's
		// --init-rpl-role=SLAVE) cuts its unapplied, possibly
		// unacknowledged tail instead of committing it.
		TruncateUnapplied: strings.EqualFold(sqlengine.GlobalString("init_rpl_role"), "SLAVE"),
		TruncateCorrupt:   sqlengine.Truthy(sqlengine.GlobalString("binlog_recovery_truncate_corrupt")),
		CacheDir:          filepath.Join(n.opts.Datadir, "#binlog_cache"),
	})
	if err == nil {
		mode, size := binlogsql.DependencySettings()
		l.SetDependencyHistorySize(size)
		if err = l.SetDependencyTracking(mode); err != nil {
			l.Close()
		}
	}
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
	binlogsql.Register(n.sql, l, n.store, n.opts.Clock, n.opts.Logger)
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
