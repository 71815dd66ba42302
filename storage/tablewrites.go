package storage

import (
	"errors"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Table files written in large writes. Pebble writes an sstable through
// a 4 KiB bufio.Writer (objstorageprovider's fileBufferedWritable, which
// has no setting for it), so a flush or compaction made one write system
// call per 4 KiB: under TPC-C, 3,000 4-KiB writes in 5 s, 2.5% of the
// server's CPU in the write calls of compactions alone. A table file is
// written front to back, once, and read only after Pebble finished it,
// so its writes are gathered here into tableWriteBuf-sized ones; every
// other call on the file (syncs, Stat, reads, Close) writes what was
// gathered first, so what the file holds is what Pebble wrote by then.

// tableWriteBuf is the size of a table file's writes.
const tableWriteBuf = 256 << 10

var tableWriteBufs = sync.Pool{New: func() any { b := make([]byte, 0, tableWriteBuf); return &b }}

// bufferedTable is a table file's guardFile with its writes gathered.
type bufferedTable struct {
	*guardFile
	buf *[]byte // nil once closed
}

func newBufferedTable(f *guardFile) *bufferedTable {
	return &bufferedTable{guardFile: f, buf: tableWriteBufs.Get().(*[]byte)}
}

func (f *bufferedTable) Write(p []byte) (int, error) {
	if f.buf == nil {
		return f.guardFile.Write(p)
	}
	b := *f.buf
	if len(b)+len(p) > cap(b) {
		if err := f.flush(); err != nil {
			return 0, err
		}
		b = *f.buf
		if len(p) >= cap(b) {
			return f.guardFile.Write(p)
		}
	}
	*f.buf = append(b, p...)
	return len(p), nil
}

// flush writes what was gathered.
func (f *bufferedTable) flush() error {
	if f.buf == nil || len(*f.buf) == 0 {
		return nil
	}
	b := *f.buf
	*f.buf = b[:0]
	_, err := f.guardFile.Write(b)
	return err
}

func (f *bufferedTable) WriteAt(p []byte, off int64) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.guardFile.WriteAt(p, off)
}

func (f *bufferedTable) Read(p []byte) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.guardFile.Read(p)
}

func (f *bufferedTable) ReadAt(p []byte, off int64) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.guardFile.ReadAt(p, off)
}

func (f *bufferedTable) Stat() (vfs.FileInfo, error) {
	if err := f.flush(); err != nil {
		return nil, err
	}
	return f.guardFile.Stat()
}

func (f *bufferedTable) Sync() error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.guardFile.Sync()
}

func (f *bufferedTable) SyncData() error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.guardFile.SyncData()
}

func (f *bufferedTable) SyncTo(length int64) (bool, error) {
	if err := f.flush(); err != nil {
		return false, err
	}
	return f.guardFile.SyncTo(length)
}

func (f *bufferedTable) Close() error {
	err := f.flush()
	if f.buf != nil {
		*f.buf = (*f.buf)[:0]
		tableWriteBufs.Put(f.buf)
		f.buf = nil
	}
	return errors.Join(err, f.guardFile.Close())
}
