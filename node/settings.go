package node

import "time"

// settings are the variables node defines, typed (surface/sysvar): their
// change hooks validate and store them, and the components that use the
// dynamic ones get them pushed. shutdown_timeout is Shutdown's;
// binlog_cache_size is pushed to the binary log (Log.SetCacheSize) and
// max_binlog_cache_size to storage (Engine.SetMaxTxnSize), once open.
// petrel_memory_limit and petrel_storage_sync_delay are read-only: the
// option file's values, which Open reads once.
type settings struct {
	// ShutdownTimeout is shutdown_timeout; default 10 s.
	ShutdownTimeout time.Duration
	// MemoryLimit is petrel_memory_limit in bytes (0: none); default
	// Options.MemoryLimit.
	MemoryLimit int64
	// SyncDelay is petrel_storage_sync_delay; default 0.
	SyncDelay time.Duration
	// BinlogCacheSize is binlog_cache_size; default binlog.DefaultCacheSize.
	BinlogCacheSize int64
	// MaxTxnSize is max_binlog_cache_size as storage's limit (txnLimit;
	// 0: none); default none.
	MaxTxnSize int64
}

// pushSettings makes storage take its settings now and after every
// change.
func (n *Node) pushSettings() {
	st := n.store
	n.set.Push(func(s settings) { st.SetMaxTxnSize(s.MaxTxnSize) })
}
