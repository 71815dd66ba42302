package storage

import (
	"errors"
	"syscall"

	"petrel/internal/base"
)

// readErr classifies a failed read from Pebble. An operating-system
// error (EIO from a failing disk; ENOENT for a table file not yet open
// when the datadir was removed) becomes ClassStorageIO, which clients see
// as ER_GET_ERRNO (1030) with the errno text, not as an unknown error.
// Other errors pass through as they are.
func readErr(err error) error {
	if err == nil {
		return nil
	}
	var b *base.Error
	var no syscall.Errno
	if errors.As(err, &b) || !errors.As(err, &no) {
		return err
	}
	return base.Wrap(base.ClassStorageIO, err, "storage: read failed")
}
