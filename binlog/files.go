package binlog

// The log's file set: the index, opening and finishing files, rotation
// (FLUSH BINARY LOGS, max_binlog_size) and its hooks, the file list.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"petrel/internal/fsutil"
)

func (l *Log) path(name string) string { return filepath.Join(l.opts.Dir, name) }

func (l *Log) indexPath() string { return l.path(l.opts.BaseName + ".index") }

// readIndex reads the index file; without one, it lists the directory
// (BaseName.NNNNNN only: files kept aside by recovery have a suffix).
func (l *Log) readIndex() ([]string, error) {
	b, err := os.ReadFile(l.indexPath())
	if errors.Is(err, os.ErrNotExist) {
		ms, _ := filepath.Glob(l.path(l.opts.BaseName + ".[0-9]*"))
		var out []string
		for _, m := range ms {
			name := filepath.Base(m)
			if fileNum(name) >= 0 && !strings.ContainsAny(strings.TrimPrefix(name, l.opts.BaseName+"."), ".-") {
				out = append(out, name)
			}
		}
		sort.Slice(out, func(i, j int) bool { return fileNum(out[i]) < fileNum(out[j]) })
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("binlog: read index: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name := filepath.Base(line)
		if _, err := os.Stat(l.path(name)); err != nil {
			return nil, fmt.Errorf("binlog: index names %s, which is missing: %w", name, err)
		}
		out = append(out, name)
	}
	return out, nil
}

// writeIndex atomically rewrites the index file.
func (l *Log) writeIndex() error {
	var b strings.Builder
	for _, f := range l.files {
		b.WriteString("./" + f + "\n")
	}
	return fsutil.WriteFileAtomic(l.indexPath(), []byte(b.String()), 0o640)
}

func (l *Log) nextFileName() string {
	n := l.maxNum
	if len(l.files) > 0 {
		n = max(n, fileNum(l.files[len(l.files)-1]))
	}
	return fmt.Sprintf("%s.%06d", l.opts.BaseName, n+1)
}

// openNewFile starts a new file with FORMAT_DESCRIPTION (in use) and
// PREVIOUS_GTIDS. Caller holds mu (or is Open).
func (l *Log) openNewFile() error {
	name := l.nextFileName()
	f, err := os.OpenFile(l.path(name), os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o640)
	if err != nil {
		return fmt.Errorf("binlog: create %s: %w", name, err)
	}
	now := uint32(l.opts.Clock.Now().Unix())
	var buf []byte
	buf = append(buf, Magic...)
	fde := frame(FormatDescriptionEvent, InUseFlag, l.opts.ServerID, now, 0, formatDescription(l.opts.ServerVersion, now))
	setNextPos(fde, uint32(len(buf)+len(fde)))
	buf = append(buf, fde...)
	prev := frame(PreviousGTIDsEvent, 0, l.opts.ServerID, now, 0, l.executed.Encode())
	setNextPos(prev, uint32(len(buf)+len(prev)))
	buf = append(buf, prev...)
	if _, err := f.Write(buf); err != nil {
		f.Close()
		os.Remove(l.path(name))
		return fmt.Errorf("binlog: write %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("binlog: sync %s: %w", name, err)
	}
	old := l.f
	l.files = append(l.files, name)
	l.maxNum = max(l.maxNum, fileNum(name))
	if err := l.writeIndex(); err != nil {
		l.files = l.files[:len(l.files)-1]
		f.Close()
		return fmt.Errorf("binlog: index: %w", err)
	}
	l.f = f
	l.fileIdx = len(l.files) - 1
	l.pos = uint64(len(buf))
	l.fileSynced = l.pos
	l.alloc = 0
	l.seqNo = 0
	l.deps.reset(1) // numbering starts again
	l.syncMu.Lock()
	l.written = logPos{file: l.fileIdx, pos: l.pos}
	l.synced = l.written
	l.relaySent = l.written
	l.syncMu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// The current file is written by appends (pwrite at its end) and synced
// with fdatasync, so at any moment it is a plain binlog file: its size is
// where its data ends, and tools reading it while it grows (or a copy of
// it) see whole events up to the last one written, possibly one cut short
// at the end, which its in-use flag (InUseFlag) tells them to expect.
// Blocks are preallocated binlogChunk ahead with FALLOC_FL_KEEP_SIZE,
// which leaves the size alone; rotation, Close and recovery release what
// is left past the end. (Petrel once zero-filled the file ahead of its
// end, which spares a growing file's fdatasync the metadata journal
// commit on ext4, but readers then met zeros where they expected the end
// of the file; the cost is measured in docs/history/PERFORMANCE-log.md.)

// binlogChunk is how far ahead of its end the current file's blocks are
// preallocated.
const binlogChunk = 4 << 20

// writeAt appends b at the current file's end (l.pos). Preallocation is
// only an optimisation: if it fails (a full disk), the write allocates.
// Caller holds mu.
func (l *Log) writeAt(b []byte) error { return l.writeAtOff(b, l.pos) }

// writeAtOff writes b at off of the current file. Caller holds mu.
func (l *Log) writeAtOff(b []byte, off uint64) error {
	if err := fsutil.PreallocateKeepSize(l.f, off, uint64(len(b)), &l.alloc, binlogChunk); err != nil {
		l.alloc = 0
	}
	_, err := l.f.WriteAt(b, int64(off))
	return err
}

// logTail copies a transaction just appended to the current file (ending
// at l.pos+len(b)) into the tail log. When the ring must wrap, or the
// record is larger than the ring, the binlog file is fdatasync'd first:
// everything written to it, this transaction included, is then durable
// in place, and the records the ring overwrites were redundant. Caller
// holds mu.
// It returns where the record went (-1: none).
func (l *Log) logTail(b []byte) (int64, error) {
	t := l.tail
	if !t.fits(len(b)) || t.wraps(len(b)) {
		if err := fsutil.DataSync(l.f); err != nil {
			return -1, fmt.Errorf("binlog: sync %s before the tail log wraps: %w", l.files[l.fileIdx], err)
		}
		l.fileSynced = l.pos + uint64(len(b))
		if !t.fits(len(b)) {
			return -1, nil
		}
	}
	return t.append(fileNum(l.files[l.fileIdx]), l.pos, b)
}

// fileSyncedPos is fileSynced, read under mu (tests).
func (l *Log) fileSyncedPos() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fileSynced
}

// finish marks the current file finished (InUseFlag cleared, synced) and
// releases the blocks preallocated past its end. Caller holds mu.
func (l *Log) finish() error {
	if err := clearInUse(l.f); err != nil {
		return err
	}
	if l.alloc > l.pos {
		// Truncating to the size frees the blocks allocated past it.
		if err := l.f.Truncate(int64(l.pos)); err != nil {
			return fmt.Errorf("binlog: %w", err)
		}
		l.alloc = l.pos
	}
	return nil
}

// rotate ends the current file with a ROTATE event and starts the next.
// Caller holds mu.
func (l *Log) rotate() error {
	next := l.nextFileName()
	ev := frame(RotateEvent, 0, l.opts.ServerID, 0, 0, rotateBody(4, next))
	setNextPos(ev, uint32(l.pos)+uint32(len(ev)))
	if err := l.writeAt(ev); err != nil {
		if terr := l.f.Truncate(int64(l.pos)); terr != nil {
			l.broken = fmt.Errorf("binlog: cannot remove a partly written ROTATE event from %s: %w", l.files[l.fileIdx], terr)
		}
		return fmt.Errorf("binlog: write rotate: %w", err)
	}
	l.pos += uint64(len(ev))
	if err := l.finish(); err != nil {
		// The file ends with its ROTATE event but is not known durable:
		// nothing more may be appended to it, and a restart recovers it.
		l.broken = fmt.Errorf("binlog: finishing %s before rotation failed; restart the server to recover: %w", l.files[l.fileIdx], err)
		return l.broken
	}
	if err := l.openNewFile(); err != nil {
		return err
	}
	if len(l.onRotate) > 0 {
		select {
		case l.rotated <- struct{}{}:
		default: // a run is already due: it sees this rotation too
		}
	}
	return nil
}

// runOnRotate runs the OnRotate callbacks after rotations, outside the
// log's lock (they may purge), until Close stops it.
func (l *Log) runOnRotate() {
	defer close(l.rotateDone)
	for {
		select {
		case <-l.rotateStop:
			return
		case <-l.rotated:
		}
		l.mu.Lock()
		fns := append([]func(){}, l.onRotate...)
		l.mu.Unlock()
		for _, fn := range fns {
			fn()
		}
	}
}

// Rotate is FLUSH BINARY LOGS.
func (l *Log) Rotate() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errClosed
	}
	if err := l.failure(); err != nil {
		return err
	}
	if err := l.rotate(); err != nil {
		return err
	}
	l.wake()
	return nil
}

// FileInfo describes one binlog file (SHOW BINARY LOGS).
type FileInfo struct {
	Name      string
	Size      int64
	Encrypted bool
}

// Files lists the log files, oldest first.
func (l *Log) Files() []FileInfo {
	l.mu.Lock()
	names := append([]string(nil), l.files...)
	var cur Position
	if len(l.files) > 0 {
		cur = Position{File: l.files[l.fileIdx], Pos: l.pos}
	}
	l.mu.Unlock()
	out := make([]FileInfo, 0, len(names))
	for _, n := range names {
		st, err := os.Stat(l.path(n))
		size := int64(0)
		if err == nil {
			size = st.Size()
		}
		if n == cur.File {
			size = int64(cur.Pos) // a write in progress is not counted
		}
		out = append(out, FileInfo{Name: n, Size: size})
	}
	return out
}

// Path returns the full path of a log file named in the index.
func (l *Log) Path(name string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.files {
		if f == name {
			return l.path(f), true
		}
	}
	return "", false
}

// stopOnRotate ends the OnRotate worker (once; a callback running is let
// finish).
func (l *Log) stopOnRotate() {
	l.rotateOnce.Do(func() {
		l.mu.Lock()
		started := l.rotateStarted
		l.rotateStarted = true // no worker starts after this
		l.mu.Unlock()
		close(l.rotateStop)
		if started {
			<-l.rotateDone
		}
	})
}
