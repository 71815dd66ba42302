// Package fsutil holds file helpers the logs share: fdatasync (the
// binlog's group commit, the tail log, the relay log), preallocation
// that keeps the file's size (the binlog's blocks ahead of its end),
// zero-filling ahead of the relay log's end (WriteAhead), and atomic file
// replacement (WriteFileAtomic).
package fsutil
