//go:build !linux

package fsutil

import "os"

// DataSync flushes f (fsync where fdatasync is not available).
func DataSync(f *os.File) error { return f.Sync() }
