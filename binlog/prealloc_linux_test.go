package binlog

import (
	"path/filepath"
	"syscall"
	"testing"
)

// allocated is how many bytes of disk a file holds (blocks, including
// those preallocated past its end).
func allocated(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// The current file's blocks are preallocated ahead of its end without
// changing its size; rotation and Close release what is left past the end.
func TestPreallocationIsReleased(t *testing.T) {
	r := rigWithRows(t, 20)
	cur := r.log.Current()
	path := filepath.Join(r.dir, cur.File)
	if size, blocks := fileSize(t, path), allocated(t, path); uint64(size) != cur.Pos || blocks < binlogChunk {
		t.Fatalf("live file: size %d (data ends at %d), %d bytes allocated (want >= %d preallocated)", size, cur.Pos, blocks, binlogChunk)
	}
	if err := r.log.Rotate(); err != nil {
		t.Fatal(err)
	}
	if blocks := allocated(t, path); blocks > fileSize(t, path)+4096 {
		t.Fatalf("after rotation %s holds %d bytes of disk for %d of data", cur.File, blocks, fileSize(t, path))
	}
	insertRange(t, r, 21, 30)
	next := filepath.Join(r.dir, r.log.Current().File)
	if err := r.log.Close(); err != nil {
		t.Fatal(err)
	}
	if blocks := allocated(t, next); blocks > fileSize(t, next)+4096 {
		t.Fatalf("after Close the last file holds %d bytes of disk for %d of data", blocks, fileSize(t, next))
	}
}
