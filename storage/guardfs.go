package storage

import (
	"os"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
)

// guardFS is the filesystem Pebble sees (over vfs.OnDiskFull, which
// handles a full disk first). It has two jobs.
//
// It watches every write Pebble makes: a failure that the disk-space
// reserve did not absorb refuses writes at once (Engine.ioFailed), so
// statements get an error naming the errno instead of waiting for a flush
// that cannot happen. Only a full disk can clear by itself; any other
// failure (EIO, a removed directory, a read-only filesystem) refuses
// writes until a restart (Engine.fail).
//
// It keeps Pebble from retrying a failed flush or compaction in a hot
// loop: Pebble reschedules a failed flush at once, without end (issue 13:
// a million attempts in 100 s and megabytes of log per second after the
// datadir was removed). After a failure, the next table file is created
// no sooner than Options.RetryInterval after it. Once writes are refused
// until restart, Pebble creates no table file at all: the creation waits
// until Pebble's close begins and then fails without touching the disk,
// so what Pebble holds on disk stays as it was for recovery to complete
// from the binlog, and the failed flush is not retried.
//
// Pebble cannot survive a failed creation of its WAL or MANIFEST files
// (it panics or exits), so those creations never fail here once the
// failure is known, and a failed one is not returned: they wait for the
// process to end. The commit or flush that needed the file stays stuck
// (writes are refused meanwhile; reads go on), and the shutdown deadline
// bounds the close that would wait for it.
type guardFS struct {
	vfs.FS
	e *Engine
}

// tableFile reports whether name is one of Pebble's table or blob files,
// written by flushes and compactions: the creations guardFS paces.
func tableFile(name string) bool {
	return strings.HasSuffix(name, ".sst") || strings.HasSuffix(name, ".blob")
}

func (fs *guardFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if err := fs.e.beforeCreate(name); err != nil {
		return nil, err
	}
	f, err := fs.FS.Create(name, category)
	if err != nil {
		return nil, fs.e.createFailed(name, category, err)
	}
	g := fs.watch(f, category)
	if tableFile(name) {
		return newBufferedTable(g), nil // tablewrites.go
	}
	return g, nil
}

func (fs *guardFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if err := fs.e.beforeCreate(newname); err != nil {
		return nil, err
	}
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	if err != nil {
		return nil, fs.e.createFailed(newname, category, err)
	}
	return fs.watch(f, category), nil
}

func (fs *guardFS) Link(oldname, newname string) error {
	if p := fs.e.fatal.Load(); p != nil {
		return *p
	}
	return fs.e.ioFailed(fs.FS.Link(oldname, newname), "")
}

func (fs *guardFS) Rename(oldname, newname string) error {
	if p := fs.e.fatal.Load(); p != nil {
		return *p
	}
	return fs.e.ioFailed(fs.FS.Rename(oldname, newname), "")
}

func (fs *guardFS) MkdirAll(dir string, perm os.FileMode) error {
	return fs.e.ioFailed(fs.FS.MkdirAll(dir, perm), "")
}

func (fs *guardFS) Unwrap() vfs.FS { return fs.FS }

func (fs *guardFS) watch(f vfs.File, category vfs.DiskWriteCategory) *guardFile {
	return &guardFile{File: f, e: fs.e, category: category}
}

// guardFile reports the failures of writes to a file Pebble writes.
// Preallocation is left out: it is an optimisation whose failure Pebble
// ignores.
type guardFile struct {
	vfs.File
	e        *Engine
	category vfs.DiskWriteCategory
}

func (f *guardFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.e.ioFailed(err, f.category)
}

func (f *guardFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	return n, f.e.ioFailed(err, f.category)
}

func (f *guardFile) Sync() error     { return f.e.ioFailed(f.File.Sync(), f.category) }
func (f *guardFile) SyncData() error { return f.e.ioFailed(f.File.SyncData(), f.category) }
func (f *guardFile) Close() error    { return f.e.ioFailed(f.File.Close(), f.category) }

func (f *guardFile) SyncTo(length int64) (bool, error) {
	full, err := f.File.SyncTo(length)
	return full, f.e.ioFailed(err, f.category)
}

// beforeCreate paces the creation of table files after a failure (see
// guardFS), and, once writes are refused until restart, lets none
// through: table files fail when Pebble's close begins, others wait for
// the process to end.
func (e *Engine) beforeCreate(name string) error {
	if !e.guarding.Load() {
		return nil // Open: its errors are returned as they are
	}
	if p := e.fatal.Load(); p != nil {
		if !tableFile(name) {
			select {} // see guardFS: Pebble cannot take this failure
		}
		<-e.pebbleClosing
		return *p
	}
	if !tableFile(name) {
		return nil
	}
	last := e.lastIOFailure.Load()
	if last == 0 {
		return nil
	}
	wait := time.Unix(0, last).Add(e.opts.RetryInterval).Sub(e.opts.Clock.Now())
	if wait <= 0 {
		return nil
	}
	fired, stop := e.opts.Clock.NewTimer(wait)
	defer stop()
	select {
	case <-fired:
	case <-e.pebbleClosing:
	}
	if p := e.fatal.Load(); p != nil {
		return *p // failed for good while waiting
	}
	return nil
}

// createFailed handles a failed file creation: a table file's failure is
// returned to Pebble (the flush or compaction fails and is retried,
// paced); any other file's is not (see guardFS).
func (e *Engine) createFailed(name string, category vfs.DiskWriteCategory, err error) error {
	err = e.ioFailed(err, category)
	if !tableFile(name) && e.guarding.Load() {
		if p, first := e.fail(err); first { // even a full disk: Pebble is stuck
			e.publishInBackground(p)
		}
		select {}
	}
	return err
}

// ioFailed records a failed storage write and returns err. A full disk
// refuses writes until space is freed (onDiskFull has usually done so
// already, releasing the space reserve), except in Pebble's WAL, which
// cannot recover from it; anything else refuses writes until restart.
func (e *Engine) ioFailed(err error, category vfs.DiskWriteCategory) error {
	if err == nil || !e.guarding.Load() {
		return err
	}
	e.lastIOFailure.Store(e.opts.Clock.Now().UnixNano())
	if category == "pebble-wal" || classifyWriteErr(err) != base.ClassDiskFull {
		if p, first := e.fail(err); first {
			e.publishInBackground(p)
		}
	} else {
		e.diskFull("storage: disk full; refusing writes")
	}
	return err
}
