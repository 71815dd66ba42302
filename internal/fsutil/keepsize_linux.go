package fsutil

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// PreallocateKeepSize makes sure the n bytes after end lie in blocks
// allocated ahead of time, growing the allocation by at least chunk, with
// FALLOC_FL_KEEP_SIZE: the file's size stays where the data ends, so a
// reader of a file that is still being written sees a clean end of file,
// never zeros. *alloc is how far blocks are allocated. A file system
// without fallocate support is left to allocate on write. Blocks past the
// end stay allocated until the file is truncated to its size.
func PreallocateKeepSize(f *os.File, end, n uint64, alloc *uint64, chunk uint64) error {
	if end+n <= *alloc {
		return nil
	}
	from := max(end, *alloc)
	grow := max(chunk, end+n-from)
	err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, int64(from), int64(grow))
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		*alloc = end + n // nothing to preallocate: the writes allocate
		return nil
	}
	if err != nil {
		return &os.PathError{Op: "fallocate", Path: f.Name(), Err: err}
	}
	*alloc = from + grow
	return nil
}
