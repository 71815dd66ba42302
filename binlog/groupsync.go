package binlog

// Group sync: one fsync (of the tail log, or of the file) makes durable
// every transaction written before it; committers wait for the group
// that covers them.

import (
	"context"
	"fmt"

	"petrel/internal/failpoint"
	"petrel/internal/fsutil"
)

// waitSync returns once the log is durable up to pos under sync_binlog.
func (l *Log) waitSync(ctx context.Context, pos Position) error {
	target := logPos{pos: pos.Pos}
	l.mu.Lock()
	for i, f := range l.files {
		if f == pos.File {
			target.file = i
		}
	}
	l.mu.Unlock()

	switch {
	case l.syncBinlog.Load() < 0:
		return nil
	case l.syncBinlog.Load() > 1:
		l.syncMu.Lock()
		l.groupsLeft--
		due := l.groupsLeft <= 0
		if due {
			l.groupsLeft = int(l.syncBinlog.Load())
		}
		l.syncMu.Unlock()
		if !due {
			return nil
		}
	}
	return l.syncTo(ctx, target)
}

// SyncForStorage implements storage.FlushSyncer: everything written so far
// becomes durable whatever sync_binlog says, so storage (whose only WAL is
// this log) never flushes a transaction the log could lose.
func (l *Log) SyncForStorage() error {
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return nil // Close synced the file
	}
	l.syncMu.Lock()
	target := l.written
	l.syncMu.Unlock()
	if err := l.syncTo(context.Background(), target); err != errClosed {
		return err
	}
	return nil // Close synced everything written
}

// syncTo returns once the log is durable up to target: one caller (the
// leader) fsyncs everything written so far for all waiters.
//
// After a failed fsync it fails every wait for a position not synced
// before the failure, without another fsync: the kernel may have dropped
// the dirty pages and marked them clean, so a later fsync could succeed
// without the data reaching the disk (PostgreSQL's "fsyncgate", 2018).
// Only a restart, whose recovery reads the file back, knows what it
// holds.
func (l *Log) syncTo(ctx context.Context, target logPos) error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	for l.synced.less(target) {
		if l.syncErr != nil {
			return l.syncErr
		}
		if l.syncing {
			l.syncCond.Wait()
			continue
		}
		if l.syncClosed {
			return errClosed // Close synced everything written
		}
		// Leader: fsync everything written so far, for the whole group.
		l.syncing = true
		upto := l.written
		l.syncMu.Unlock()
		l.mu.Lock()
		tf := l.tail.f
		l.mu.Unlock()
		// The tail log holds every transaction written (tail.go); the
		// binlog files themselves are synced when the ring wraps, when a
		// file is finished, and at Close.
		if l.opts.BeforeSync != nil {
			l.opts.BeforeSync()
		}
		serr := fsutil.DataSync(tf)
		if serr == nil {
			serr = failpoint.Inject("binlog.afterSync")
		}
		l.syncMu.Lock()
		l.syncing = false
		if serr != nil {
			// After a failed fsync the kernel may have dropped the pages:
			// nothing written since the last good fsync can be trusted
			// until a restart re-reads the file.
			l.syncErr = fmt.Errorf("binlog: fsync of %s failed; restart the server to recover: %w", tf.Name(), serr)
			l.syncCond.Broadcast()
			return fmt.Errorf("binlog: fsync: %w", serr)
		}
		if l.synced.less(upto) {
			l.synced = upto
		}
		l.stats.GroupCommits.Add(1)
		l.syncCond.Broadcast()
		l.wake()
	}
	// Durable: a cancelled ctx no longer matters (the fsync is not
	// interruptible, and reporting a durable commit failed would be false).
	return nil
}

// wake tells dump threads that the log grew.
func (l *Log) wake() {
	l.notifyMu.Lock()
	close(l.notify)
	l.notify = make(chan struct{})
	l.notifyMu.Unlock()
}

// Changed returns a channel closed at the next growth of the log.
func (l *Log) Changed() <-chan struct{} {
	l.notifyMu.Lock()
	defer l.notifyMu.Unlock()
	return l.notify
}
