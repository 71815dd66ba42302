package storage

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
)

// A large transaction's undo log goes to a file (issue 29: a transaction
// of any size within the server's memory). The undo records of an UPDATE
// of a million rows are the rows' previous images, about 250 MB; they
// are read only by a statement's or a savepoint's rollback and by the
// read view's write set, both in order, so past undoSpillAt bytes held
// in memory the log's full chunks are written to a file of their own in
// undoDirName under the storage directory, and read back a chunk at a
// time when asked (the last chunk read stays in memory). A failed spill
// is logged and the log stays in memory: spilling saves memory, it is
// never a reason to fail a statement.

// undoSpillAt is the bytes of undo chunks a transaction keeps in memory
// before the full ones go to its spill file. A variable for tests.
var undoSpillAt = 16 << 20

// undoDirName is the directory, under Options.Dir, of the spill files;
// Open empties it (what a crash left).
const undoDirName = "petrel-undo"

// undoSpills counts the transactions whose undo log went to a file
// (Petrel_undo_spills).
var undoSpills atomic.Uint64

// UndoSpills is the number of transactions whose undo log spilled.
func UndoSpills() uint64 { return undoSpills.Load() }

// undoFiles opens spill files.
type undoFiles struct {
	fs  vfs.FS
	dir string
	seq atomic.Uint64
	// logf reports a spill that failed (ratelimited by the caller).
	logf func(format string, args ...any)
}

func (uf *undoFiles) create() (vfs.File, string, error) {
	if err := uf.fs.MkdirAll(uf.dir, 0o750); err != nil {
		return nil, "", err
	}
	name := uf.fs.PathJoin(uf.dir, fmt.Sprintf("undo-%d", uf.seq.Add(1)))
	f, err := uf.fs.Create(name, vfs.WriteCategoryUnspecified)
	return f, name, err
}

// undoSpill is the file part of one undo log: chunk i, when spilled, is
// at[i] bytes into f, size[i] long.
type undoSpill struct {
	uf     *undoFiles
	f      vfs.File
	name   string
	at     []int64
	size   []int
	end    int64
	failed bool
	// cached is the chunk whose bytes are in buf (-1: none).
	cached int
	buf    []byte
}

// spillChunks writes the log's full chunks (all but the last) that are
// still in memory to the file and drops them from memory.
func (u *undoLog) spillChunks() {
	if u.files == nil || (u.sp != nil && u.sp.failed) {
		return
	}
	if u.sp == nil {
		f, name, err := u.files.create()
		if err != nil {
			u.files.logf("storage: undo log kept in memory: %v", err)
			u.sp = &undoSpill{failed: true}
			return
		}
		u.sp = &undoSpill{uf: u.files, f: f, name: name, cached: -1}
		undoSpills.Add(1)
	}
	sp := u.sp
	for i := 0; i < len(u.chunks)-1; i++ {
		c := u.chunks[i]
		if c == nil {
			continue
		}
		if _, err := sp.f.WriteAt(c, sp.end); err != nil {
			u.files.logf("storage: undo log kept in memory: %v", err)
			sp.failed = true
			return
		}
		for len(sp.at) <= i {
			sp.at = append(sp.at, 0)
			sp.size = append(sp.size, 0)
		}
		sp.at[i], sp.size[i] = sp.end, len(c)
		sp.end += int64(len(c))
		u.mem -= cap(c)
		u.chunks[i] = nil
	}
}

// chunk is chunk i's bytes, read back from the file when spilled; the
// bytes of a spilled chunk are valid until the next read of another.
func (u *undoLog) chunk(i int) ([]byte, error) {
	if c := u.chunks[i]; c != nil {
		return c, nil
	}
	sp := u.sp
	if sp.cached != i {
		n := sp.size[i]
		if cap(sp.buf) < n {
			sp.buf = make([]byte, n)
		}
		sp.buf = sp.buf[:n]
		if _, err := sp.f.ReadAt(sp.buf, sp.at[i]); err != nil && err != io.EOF {
			sp.cached = -1
			return nil, base.Wrap(base.ClassStorageIO, err, "storage: undo log file %s unreadable", sp.name)
		}
		sp.cached = i
	}
	return sp.buf, nil
}

// unspill brings chunk i back into memory (a truncation inside it).
func (u *undoLog) unspill(i int) error {
	if u.chunks[i] != nil {
		return nil
	}
	c, err := u.chunk(i)
	if err != nil {
		return err
	}
	u.chunks[i] = append(make([]byte, 0, undoChunkMax), c...)
	u.mem += cap(u.chunks[i])
	u.sp.end = u.sp.at[i]
	u.sp.cached = -1
	return nil
}

// release closes and removes the spill file.
func (u *undoLog) release() {
	if sp := u.sp; sp != nil && sp.f != nil {
		sp.f.Close()
		sp.uf.fs.Remove(sp.name)
	}
	u.sp = nil
}
