package node

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"petrel/internal/base"
)

// watchInterval is how often the storage watcher looks at the datadir: the
// bound on how long writes go on into a removed datadir before they are
// refused, and on how long writes stay refused after space returns.
const watchInterval = time.Second

// datadirIdentity is what the watcher compares the datadir against: the
// directories the server opened (the datadir and its storage directory),
// as they were at start.
type datadirIdentity struct {
	paths []string
	infos []os.FileInfo
}

// identifyDatadir records the datadir the server runs on.
func identifyDatadir(dir string) (datadirIdentity, error) {
	id := datadirIdentity{paths: []string{dir, filepath.Join(dir, "data")}}
	for _, p := range id.paths {
		st, err := os.Stat(p)
		if err != nil {
			return id, fmt.Errorf("node: datadir: %w", err)
		}
		id.infos = append(id.infos, st)
	}
	return id, nil
}

// check returns why the datadir is no longer the one the server opened
// (removed, moved away, or replaced by another directory), or nil. The
// error carries the path and, when there is one, the errno, for
// ER_ERROR_ON_WRITE's text.
func (id datadirIdentity) check() error {
	for i, p := range id.paths {
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return err // *fs.PathError: ENOENT when removed or moved
		case !os.SameFile(st, id.infos[i]):
			return &fs.PathError{Op: "stat", Path: p, Err: errors.New("a different directory than the server opened")}
		}
	}
	return nil
}

// watchStorage runs until ctx ends, every interval:
//
//   - It checks that the datadir is still the one the server opened. The
//     server's open files go on working after the datadir is deleted or
//     moved away, so without this writes would succeed, acknowledged into
//     unlinked files, until the next file creation failed (a memtable
//     flush, a binlog rotation) minutes later. Writes are refused from
//     then on until a restart (storage.Engine.Fail: ER_ERROR_ON_WRITE with
//     the errno); reads go on from what is open.
//   - After a commit failed on a full disk it lets writes resume by
//     themselves once space returns (resumeAfterDiskFull).
func (n *Node) watchStorage(ctx context.Context, id datadirIdentity, every time.Duration) {
	defer close(n.watchDone)
	gone := false
	for {
		fired, stop := n.opts.Clock.NewTimer(every)
		select {
		case <-ctx.Done():
			stop()
			return
		case <-fired:
		}
		if !gone {
			if err := id.check(); err != nil {
				gone = true // storage logs it, once
				n.store.Fail(base.Wrap(base.ClassWritesRefused, err,
					"node: the datadir was removed or replaced; restore it and restart the server"))
			}
		}
		n.resumeAfterDiskFull()
	}
}

// resumeAfterDiskFull clears storage's refusal after a commit failed on a
// full disk, once space is back: with storage's disk-space reserve whole
// again, it probes the datadir with a real write and fsync of 8 MiB more,
// and clears the refusal when that works and the binlog undid the failed
// write cleanly.
func (n *Node) resumeAfterDiskFull() {
	err := n.store.WriteError()
	if err == nil || base.ClassOf(err) != base.ClassDiskFull {
		return
	}
	if n.binlog != nil && !n.binlog.Healthy() {
		return
	}
	// The reserve first, then room beyond it: the bytes a released
	// reserve gave back are not space an operator freed.
	if err := n.store.RestoreReserve(); err != nil {
		return
	}
	if perr := probeSpace(n.opts.Datadir, 8<<20); perr != nil {
		return
	}
	if cerr := n.store.ClearWriteError(); cerr != nil {
		n.opts.Logger.Debug("petrel: disk still too full to resume writes", "err", cerr)
		return
	}
	n.opts.Logger.Warn("petrel: disk space is back; writes resume")
}

// probeSpace writes and fsyncs size bytes in dir, then removes them.
func probeSpace(dir string, size int) error {
	p := filepath.Join(dir, ".space-probe")
	defer os.Remove(p)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(make([]byte, size)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
