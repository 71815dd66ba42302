package storage

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// When Options.LogIsWAL is set, the commit sink's log (the binary log) is
// storage's only write-ahead log: Pebble runs without its own, so a
// transaction's bytes reach the disk once, not twice. What storage holds
// durably is then what Pebble has flushed to sstables; recovery replays
// the sink's log over it (binlog.Open with Store). Three rules keep that
// sound:
//
//   - Writes the sink cannot replay (catalog changes, metadata blobs, the
//     sink position after a reset) flush the memtables before they return;
//     a catalog change flushes inside its turn, so no later commit becomes
//     visible (and acknowledged) before the change is durable.
//   - Before Pebble flushes a memtable, the sink makes durable everything
//     written so far (FlushSyncer), so storage is never ahead of the log
//     even with sync_binlog=0.
//   - The sink must not delete log files that storage may still need
//     (FlushApplied before a purge).
//
// A marker file (logIsWALMarker) exists while such a store is open; a
// store that was not closed cleanly refuses to open without LogIsWAL,
// since only the sink's log can complete it.

// logIsWALMarker is the marker file's name inside Options.Dir.
const logIsWALMarker = "PETREL-LOG-IS-WAL"

// FlushSyncer is implemented by sinks that can make everything written so
// far durable on demand; storage calls it before every memtable flush when
// Options.LogIsWAL is set.
type FlushSyncer interface {
	SyncForStorage() error
}

// checkLogIsWALMarker refuses to open without LogIsWAL a store that was
// last opened with it and not closed cleanly; with LogIsWAL it creates the
// marker.
func (e *Engine) checkLogIsWALMarker() error {
	fs, dir := e.opts.FS, e.opts.Dir
	path := fs.PathJoin(dir, logIsWALMarker)
	_, statErr := fs.Stat(path)
	exists := statErr == nil
	if !e.opts.LogIsWAL {
		if exists {
			return fmt.Errorf("storage: %s was last run with the binary log as its only write-ahead log and was not shut down cleanly; start it once with the binary log on (log_bin) so that recovery replays the log into storage", dir)
		}
		return nil
	}
	if exists {
		return nil
	}
	f, err := fs.Create(path, "")
	if err == nil {
		err = errors.Join(f.Sync(), f.Close())
	}
	if err == nil {
		var d vfs.File
		if d, err = fs.OpenDir(dir); err == nil {
			err = errors.Join(d.Sync(), d.Close())
		}
	}
	if err != nil {
		// Not fatal (a full disk must not keep the server from serving
		// reads); a later clean close removes nothing that is not there.
		e.opts.Logger.Warn("storage: cannot create marker", "file", path, "err", err)
	}
	return nil
}

// removeLogIsWALMarker records a clean close: everything is flushed.
func (e *Engine) removeLogIsWALMarker() {
	if !e.opts.LogIsWAL {
		return
	}
	fs := e.opts.FS
	if err := fs.Remove(fs.PathJoin(e.opts.Dir, logIsWALMarker)); err != nil && !errors.Is(err, os.ErrNotExist) {
		e.opts.Logger.Warn("storage: cannot remove marker", "file", logIsWALMarker, "err", err)
	}
}

// beforeFlush is Pebble's FlushBegin hook: the sink's log is made durable
// up to everything written, which covers every batch in the memtables
// being flushed (a batch is applied only after its sink append).
func (e *Engine) beforeFlush(info pebble.FlushInfo) {
	if !e.opts.LogIsWAL || info.Ingest {
		return
	}
	p := e.flushSyncer.Load()
	if p == nil {
		return
	}
	if err := (*p).SyncForStorage(); err != nil {
		// Storage must never hold durably what the log may lack: no
		// table file is created from now on, so this flush fails.
		e.Fail(fmt.Errorf("storage: syncing the log before a memtable flush: %w", err))
	}
}

// syncLog makes the sink's log durable up to everything written (grouped
// with concurrent callers by the sink).
func (e *Engine) syncLog() error {
	p := e.flushSyncer.Load()
	if p == nil {
		return errors.New("storage: the commit sink cannot sync its log")
	}
	return (*p).SyncForStorage()
}

// durableSet writes one metadata key durably: with Pebble's WAL, a synced
// write; without it, a write and a flush.
func (e *Engine) durableSet(key, value []byte) error {
	if !e.opts.LogIsWAL {
		return e.db.Set(key, value, pebble.Sync)
	}
	if err := e.db.Set(key, value, pebble.NoSync); err != nil {
		return err
	}
	return e.flushWait()
}

// applyDurable applies a batch that must be durable before the caller
// goes on: with Pebble's WAL, a synced apply whose fsync the caller waits
// for with batch.SyncWait (sync is true); without it, an apply and a flush.
//
// A failed flush (flushErr) comes after the batch was applied: it is
// visible, and becomes durable only if a later flush succeeds.
func (e *Engine) applyDurable(b *pebble.Batch) (sync bool, flushErr, err error) {
	if !e.opts.LogIsWAL {
		return true, nil, e.db.ApplyNoSyncWait(b, pebble.Sync)
	}
	if err := e.db.Apply(b, pebble.NoSync); err != nil {
		return false, nil, err
	}
	return false, e.flushWait(), nil
}

// flushWait flushes the memtables and waits for the flush to succeed.
// It gives up, with the refusal as its error, when writes are refused
// until restart (no flush can succeed then: see guardFS), or once writes
// have been refused for a full disk for flushFullRetries of Pebble's
// paced retries: the caller (a catalog change, PURGE BINARY LOGS) hears
// "disk full" instead of waiting for space, and Pebble goes on retrying
// the flush in the background until space returns. It also gives up when
// the engine is closing.
func (e *Engine) flushWait() error {
	var refusedAt time.Time
	err := e.flushUntil(func() bool {
		select {
		case <-e.closing:
			return true
		default:
		}
		if e.fatal.Load() != nil {
			return true
		}
		if !e.refusing() {
			return false
		}
		if refusedAt.IsZero() {
			refusedAt = e.opts.Clock.Now()
		}
		return e.opts.Clock.Now().Sub(refusedAt) >= flushFullRetries*e.opts.RetryInterval
	})
	if err == errFlushGivenUp {
		if p := e.fatal.Load(); p != nil {
			return *p
		}
		if p := e.gate.Load(); p != nil {
			return *p
		}
		if werr := e.WriteError(); werr != nil {
			return werr
		}
		return ErrClosing
	}
	return err
}

// ErrClosing is flushWait's answer when the engine began to close before
// the flush it waited for finished. What the caller wrote is applied, and
// Close's own flush makes it durable: it is no reason to refuse writes.
var ErrClosing = errors.New("storage: closing before a flush finished")

// flushFullRetries is how many of Pebble's paced retries a flush waited
// for gets while the disk is full (the first ENOSPC released the space
// reserve, which usually lets the retry through).
const flushFullRetries = 3

// FlushApplied makes every transaction the sink accepted so far durable in
// storage (no-op with Pebble's WAL, which already holds them). The sink
// calls it before deleting log files.
func (e *Engine) FlushApplied() error {
	if !e.opts.LogIsWAL {
		return nil
	}
	return e.WithCommitsPaused(e.flushWait)
}

// FlushLogged makes what storage applied so far durable without the
// sink's log (no-op with Pebble's WAL). For callers that already paused
// commits (WithCommitsPaused) and are about to delete the log (RESET
// MASTER).
func (e *Engine) FlushLogged() error {
	if !e.opts.LogIsWAL {
		return nil
	}
	return e.flushWait()
}
