package fsutil

import (
	"os"
	"syscall"
)

// DataSync flushes f's data (fdatasync): for a file written inside its
// preallocated size it skips the metadata journal commit an fsync of a
// growing file needs.
func DataSync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			if err != nil {
				return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: err}
			}
			return nil
		}
	}
}
