package storage

import (
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Injected disk latency (Options.SyncDelay, Options.WriteDelay): a lab
// setting that makes a fast local disk behave like a networked one, where
// every fsync costs a round trip (about 1 ms). It exists for experiments
// such as `petrel lab run catch-up-slow-disk`, whose point is what waits
// on the disk; production servers leave it at zero.
//
// The delay is added before the real call, so the data is written as
// before, only later. It uses the engine's Clock and ends early once
// Close starts, so a slow disk never holds a shutdown. Open is not
// slowed: recovery's syncs are not what experiments measure.

// slowFS adds the engine's injected latency to Pebble's writes and syncs.
type slowFS struct {
	vfs.FS
	e *Engine
}

func (fs *slowFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err != nil {
		return nil, err
	}
	return &slowFile{File: f, e: fs.e}, nil
}

func (fs *slowFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	if err != nil {
		return nil, err
	}
	return &slowFile{File: f, e: fs.e}, nil
}

func (fs *slowFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := fs.FS.OpenReadWrite(name, category, opts...)
	if err != nil {
		return nil, err
	}
	return &slowFile{File: f, e: fs.e}, nil
}

func (fs *slowFS) Unwrap() vfs.FS { return fs.FS }

// slowFile delays a file's writes and syncs. Reads are not delayed.
type slowFile struct {
	vfs.File
	e *Engine
}

func (f *slowFile) Write(p []byte) (int, error) {
	f.e.delayWrite()
	return f.File.Write(p)
}

func (f *slowFile) WriteAt(p []byte, off int64) (int, error) {
	f.e.delayWrite()
	return f.File.WriteAt(p, off)
}

func (f *slowFile) Sync() error {
	f.e.DelaySync()
	return f.File.Sync()
}

func (f *slowFile) SyncData() error {
	f.e.DelaySync()
	return f.File.SyncData()
}

func (f *slowFile) SyncTo(length int64) (bool, error) {
	f.e.DelaySync()
	return f.File.SyncTo(length)
}

// DelaySync waits Options.SyncDelay, as one fsync on the slow disk would:
// Pebble's syncs call it, and so does any other log the server keeps on
// the same disk (the binary log's group fsync), so that one setting slows
// every fsync alike. It returns at once when no delay is set, while Open
// runs, and once Close has started. Safe for concurrent use: concurrent
// callers wait side by side, as concurrent fsyncs on a networked disk do.
func (e *Engine) DelaySync() {
	if e.opts.SyncDelay > 0 && e.wait(e.opts.SyncDelay) {
		e.stats.DelayedSyncs.Add(1)
	}
}

// SyncDelay is Options.SyncDelay.
func (e *Engine) SyncDelay() time.Duration { return e.opts.SyncDelay }

func (e *Engine) delayWrite() {
	if e.opts.WriteDelay > 0 {
		e.wait(e.opts.WriteDelay)
	}
}

// wait sleeps d on the engine's clock unless the engine is not open yet
// or is closing; it reports whether it slept the whole delay.
func (e *Engine) wait(d time.Duration) bool {
	if !e.opened.Load() {
		return false
	}
	select {
	case <-e.closing:
		return false
	default:
	}
	fired, stop := e.opts.Clock.NewTimer(d)
	defer stop()
	select {
	case <-fired:
		return true
	case <-e.closing:
		return false
	}
}

// MaxInjectedDelay bounds Options.SyncDelay and WriteDelay: a lab disk
// slower than this is a mistake (a unit typed wrong), not an experiment.
const MaxInjectedDelay = time.Second
