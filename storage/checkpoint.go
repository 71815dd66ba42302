package storage

import (
	"petrel/internal/base"
)

// SnapshotTo writes a consistent copy of storage into dir (which must not
// exist) as a Pebble checkpoint: table files hard-linked where the
// filesystem allows, MANIFEST and OPTIONS copied. Commits are paused
// while it runs and, when the sink's log is storage's only WAL, the
// memtables are flushed first (a checkpoint holds only what Pebble
// flushed), so the copy holds exactly the transactions applied so far and
// records the sink position of the last one. inPause runs in the same
// pause, after the flush and before the checkpoint: the sink takes its own
// consistent state there (the binary log rotates and notes its GTID set).
// The pause lasts a memtable flush plus the hard links: milliseconds.
func (e *Engine) SnapshotTo(dir string, inPause func() error) error {
	return e.WithCommitsPaused(func() error {
		if e.opts.LogIsWAL {
			if err := e.flushWait(); err != nil {
				return err
			}
		}
		if inPause != nil {
			if err := inPause(); err != nil {
				return err
			}
		}
		if err := e.db.Checkpoint(dir); err != nil {
			return base.Wrap(base.ClassStorageIO, err, "storage: checkpoint into %s", dir)
		}
		return nil
	})
}
