package fsutil

import "os"

// ZeroAhead makes sure the n bytes after end lie inside the zero-filled
// part of f, whose written size is *alloc, growing it by at least chunk.
// Logs written this way are synced with DataSync: data written within a
// file's size needs no metadata journal commit. On failure the file is cut
// back to *alloc.
func ZeroAhead(f *os.File, end, n uint64, alloc *uint64, chunk uint64) error {
	if end+n <= *alloc {
		return nil
	}
	grow := max(chunk, end+n-*alloc)
	if _, err := f.WriteAt(make([]byte, grow), int64(*alloc)); err != nil {
		f.Truncate(int64(*alloc))
		return err
	}
	*alloc += grow
	return nil
}
