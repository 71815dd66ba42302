package storage

import (
	"time"

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
// The memtables are flushed once before the pause too (as Pebble flushes
// a full one, commits going on), so the flush inside it writes only what
// came meanwhile: the pause lasts a small flush plus the hard links.
// It returns how long commits were held: from the pause's start (new
// commits wait from then on) to its end.
func (e *Engine) SnapshotTo(dir string, inPause func() error) (time.Duration, error) {
	if e.opts.LogIsWAL {
		if err := e.flushWait(); err != nil {
			return 0, err
		}
	}
	var start time.Time
	err := e.WithCommitsPaused(func() error {
		start = e.opts.Clock.Now()
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
	if start.IsZero() {
		return 0, err
	}
	return e.opts.Clock.Now().Sub(start), err
}
