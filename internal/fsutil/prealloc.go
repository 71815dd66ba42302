package fsutil

import "os"

// The relay log keeps its current file zero-filled a chunk ahead of its
// end and syncs it with DataSync: data written within a file's size needs
// no metadata journal commit. end is where the data stops; *alloc is how
// far the file has been written (data, then zeros). (The binlog does not:
// tools read its live file, which must end where its data ends; the cost
// is measured by BenchmarkAppendSync.)

// zeros is what zeroAhead writes, a piece at a time.
var zeros = make([]byte, 64<<10)

// zeroAhead makes sure the n bytes after end lie inside the zero-filled
// part of f, growing it by at least chunk. On failure the file is cut back
// to *alloc.
func zeroAhead(f *os.File, end, n uint64, alloc *uint64, chunk uint64) error {
	if end+n <= *alloc {
		return nil
	}
	grow := max(chunk, end+n-*alloc)
	for off := uint64(0); off < grow; {
		k := min(uint64(len(zeros)), grow-off)
		if _, err := f.WriteAt(zeros[:k], int64(*alloc+off)); err != nil {
			f.Truncate(int64(*alloc))
			return err
		}
		off += k
	}
	*alloc += grow
	return nil
}

// WriteAhead writes b at end, inside the zero-filled part (zeroAhead). On
// failure part of b may be in the file: the caller cuts it with CutBack.
func WriteAhead(f *os.File, b []byte, end uint64, alloc *uint64, chunk uint64) error {
	if err := zeroAhead(f, end, uint64(len(b)), alloc, chunk); err != nil {
		return err
	}
	_, err := f.WriteAt(b, int64(end))
	return err
}

// CutBack truncates f at end, removing whatever follows (a partly written
// record, the zeros).
func CutBack(f *os.File, end uint64, alloc *uint64) error {
	if err := f.Truncate(int64(end)); err != nil {
		return err
	}
	*alloc = end
	return nil
}

// Finish cuts the zeros after end and fsyncs f: a finished file is a
// plain file of its data.
func Finish(f *os.File, end uint64, alloc *uint64) error {
	if err := CutBack(f, end, alloc); err != nil {
		return err
	}
	return f.Sync()
}
