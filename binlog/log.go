// Package binlog writes and reads Petrel's binary log: MySQL 8.0 binlog v4
// files (row-based, GTIDs, CRC32 checksums) with an index file, group
// commit and rotation. The Log is storage's commit sink and the commit
// point: a transaction is committed once its events are durable here;
// storage applies it afterwards and, after a crash, recovery replays into
// storage what the log holds and storage lacks (see Recover).
//
// Invariants:
//   - Transactions are written whole and in commit order; a file never
//     holds half a transaction except a torn tail, which Open truncates.
//   - With sync_binlog=1, Wait returns only after an fsync covering the
//     transaction; concurrent committers share that fsync.
//   - GTIDs of this server are dense: server_uuid:1..N.
package binlog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"petrel/internal/base"
	"petrel/internal/failpoint"
	"petrel/internal/fsutil"
	"petrel/storage"
)

// Options configures a Log. Zero values take the defaults noted.
type Options struct {
	// Dir holds the binlog files and index. Required.
	Dir string
	// BaseName of files: BaseName.000001; default "binlog".
	BaseName string
	// MaxSize is max_binlog_size; default 1 GiB.
	MaxSize int64
	// SyncBinlog is sync_binlog: 1 (default) fsyncs every commit group,
	// N fsyncs every N groups, 0 leaves it to the OS. Use -1 for "0" in
	// Options (0 means default).
	SyncBinlog int
	// ServerID is server_id written in event headers; default 1.
	ServerID uint32
	// ServerUUID is server_uuid, the SID of this server's GTIDs. Required.
	ServerUUID base.SID
	// ServerVersion is written in FORMAT_DESCRIPTION; default "8.0.40-petrel".
	ServerVersion string
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Clock stamps events and the names of files set aside; default the
	// wall clock.
	Clock base.Clock
	// DependencyTracking is binlog_transaction_dependency_tracking
	// (writeset.go); default TrackWriteset.
	DependencyTracking string
	// HistorySize is binlog_transaction_dependency_history_size; default
	// DefaultHistorySize.
	HistorySize int
	// Store, when set, is reconciled with the log at Open: transactions
	// the log holds beyond storage's position are replayed into it.
	Store *storage.Engine
	// TruncateUnapplied makes recovery cut the transactions storage never
	// applied instead of replaying them: with semi-sync AFTER_SYNC those
	// were never acknowledged to a client (a replica may lack them), so a
	// restarted source must not serve them. They are kept aside in a
	// "<file>.unapplied-<unix time>" file for inspection.
	TruncateUnapplied bool
	// TruncateCorrupt is binlog_recovery_truncate_corrupt: instead of
	// refusing to start on a corrupt file, Open cuts the log at the
	// corruption, keeping what it removes aside, and logs it at ERROR
	// level (see recoverFiles). Default false: refuse.
	TruncateCorrupt bool
	// TailSize is the tail log's ring size (tail.go); default 64 MiB. A
	// file of this size sits beside the binlog files.
	TailSize int64

	versionNum uint32 // ServerVersion as a number, for GTID events
}

func (o *Options) setDefaults() error {
	if o.Dir == "" {
		return errors.New("binlog: Options.Dir is required")
	}
	if o.ServerUUID == (base.SID{}) {
		return errors.New("binlog: Options.ServerUUID is required")
	}
	if o.BaseName == "" {
		o.BaseName = "binlog"
	}
	if o.MaxSize <= 0 {
		o.MaxSize = 1 << 30
	}
	if o.SyncBinlog == 0 {
		o.SyncBinlog = 1
	}
	if o.ServerID == 0 {
		o.ServerID = 1
	}
	if o.ServerVersion == "" {
		o.ServerVersion = "8.0.40-petrel"
	}
	o.versionNum = serverVersionNumber(o.ServerVersion)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Clock = base.ClockOr(o.Clock)
	if o.DependencyTracking == "" {
		o.DependencyTracking = TrackWriteset
	}
	mode, err := ParseTracking(o.DependencyTracking)
	if err != nil {
		return err
	}
	o.DependencyTracking = mode
	if o.HistorySize <= 0 {
		o.HistorySize = DefaultHistorySize
	}
	if o.TailSize <= 0 {
		o.TailSize = defaultTailSize
	}
	return nil
}

// Position is a place in the log: file name and byte offset.
type Position struct {
	File string
	Pos  uint64
}

func (p Position) String() string { return fmt.Sprintf("%s:%d", p.File, p.Pos) }

// Log is the binary log. Safe for concurrent use.
type Log struct {
	opts Options

	// mu guards the current file and the executed set; Append holds it
	// while writing one transaction.
	mu    sync.Mutex
	files []string // index, oldest first
	f     *os.File
	tail  *tailLog // what commit groups fsync (tail.go)
	// fileSynced is how far the current file itself is known durable
	// (its header, then each tail log wrap); tests cut there.
	fileSynced uint64
	fileIdx    int // index of the current file in files
	pos        uint64
	alloc      uint64        // how far the current file's blocks are preallocated
	maxNum     int           // highest file number seen, so names never repeat
	executed   *base.GTIDSet // every GTID written to the log
	purged     *base.GTIDSet
	// visible is gtid_executed as clients see it: GTIDs whose rows storage
	// has applied (Applied), a subset of executed.
	visMu   sync.Mutex
	visible *base.GTIDSet
	nextGNO int64
	seqNo   int64 // logical clock: per-file sequence number
	// broken is set when a failed write could not be undone; a failed
	// fsync sets syncErr instead (see failure).
	broken error
	// committed is the newest transaction whose commit completed (Wait
	// returned), packed with its file (packCommitted): COMMIT_ORDER's
	// last_committed. A transaction that waited for another's row locks
	// is appended after that one's Wait returned, so it never gets a
	// last_committed before a transaction it conflicts with.
	committed atomic.Int64
	closed    bool

	// sync state: the leader of a commit group fsyncs for everyone.
	syncMu     sync.Mutex
	syncCond   *sync.Cond
	syncing    bool
	written    logPos // end of the last Append
	synced     logPos // end of the last fsync
	groupsLeft int    // for sync_binlog = N
	syncClosed bool   // Close has begun: no new fsync of the file
	// syncErr is set when an fsync failed: from then on no position is
	// reported durable (see syncTo).
	syncErr error

	onRotate []func()
	// cols caches the binlog column descriptions of tables.
	cols colCache
	// deps computes last_committed (writeset.go); under mu.
	deps *depTracker
	// trackWritesets: Prepare extracts write sets (not COMMIT_ORDER).
	trackWritesets atomic.Bool
	// The OnRotate worker: rotated asks for a run, rotateStop ends it,
	// rotateDone is closed when it has.
	rotated    chan struct{}
	rotateStop chan struct{}
	rotateDone chan struct{}
	rotateOnce sync.Once
	// rotateStarted: the first OnRotate started the worker, or Close
	// began (none starts then). Under mu.
	rotateStarted bool
	// syncBinlog is sync_binlog (-1 for 0: never), changeable at run time.
	syncBinlog atomic.Int64
	// waiter is semi-sync, when on.
	waiter CommitWaiter
	// readers reports the oldest file a dump thread still reads.
	readers func() string

	// change notification for dump threads.
	notifyMu sync.Mutex
	notify   chan struct{}

	stats Stats
}

// logPos orders positions across files.
type logPos struct {
	file int
	pos  uint64
}

func (a logPos) less(b logPos) bool {
	return a.file < b.file || (a.file == b.file && a.pos < b.pos)
}

// Stats are cumulative counters.
type Stats struct {
	Commits      atomic.Uint64 // Binlog_commits
	GroupCommits atomic.Uint64 // Binlog_group_commits (fsyncs)
	BytesWritten atomic.Uint64
}

// Open opens the log in opts.Dir: every file is verified, a torn tail of
// the last file is truncated (and logged with file and offset), corruption
// is refused, storage is brought up to date with the log, and the log's
// GTID state is checked against storage's (see recoverFiles). It always
// starts a new file, as MySQL does at startup.
func Open(opts Options) (*Log, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("binlog: %w", err)
	}
	l := &Log{opts: opts, executed: base.NewGTIDSet(), purged: base.NewGTIDSet(), notify: make(chan struct{}),
		rotated: make(chan struct{}, 1), rotateStop: make(chan struct{}), rotateDone: make(chan struct{})}
	l.syncBinlog.Store(int64(opts.SyncBinlog))
	l.deps = newDepTracker(opts.DependencyTracking, opts.HistorySize)
	l.trackWritesets.Store(opts.DependencyTracking != TrackCommitOrder)
	l.syncCond = sync.NewCond(&l.syncMu)
	files, err := l.readIndex()
	if err != nil {
		return nil, err
	}
	l.files = files
	for _, f := range files {
		l.maxNum = max(l.maxNum, fileNum(f))
	}
	if err := l.removeUnindexed(); err != nil {
		return nil, err
	}
	// Before anything reads the last file: restore what the tail log holds
	// for it (an operating-system crash may have cut its unsynced end).
	if err := l.replayTail(); err != nil {
		return nil, err
	}
	opened := false
	defer func() {
		if !opened {
			l.tail.close()
		}
	}()
	var sr *sinkRecord
	if opts.Store != nil {
		sp, err := opts.Store.SinkPos()
		if err != nil {
			return nil, err
		}
		if sp != nil {
			r, err := decodeSinkRecord(sp)
			if err != nil {
				return nil, base.Wrap(base.ClassCorrupt, err, "binlog: storage's log position")
			}
			sr = &r
		}
	}
	if err := l.recoverFiles(sr); err != nil {
		return nil, err
	}
	if opts.Store != nil {
		if err := l.recoverStorage(opts.Store, sr); err != nil {
			return nil, err
		}
	}
	if err := l.checkGTIDState(sr); err != nil {
		return nil, err
	}
	l.nextGNO = l.executed.Last(opts.ServerUUID) + 1
	l.resetVisible()
	if err := l.openNewFile(); err != nil {
		return nil, err
	}
	opened = true
	return l, nil
}

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
// of the file; the cost is measured in docs/PERFORMANCE.md.)

// binlogChunk is how far ahead of its end the current file's blocks are
// preallocated.
const binlogChunk = 4 << 20

// writeAt appends b at the current file's end (l.pos). Preallocation is
// only an optimisation: if it fails (a full disk), the write allocates.
// Caller holds mu.
func (l *Log) writeAt(b []byte) error {
	if err := fsutil.PreallocateKeepSize(l.f, l.pos, uint64(len(b)), &l.alloc, binlogChunk); err != nil {
		l.alloc = 0
	}
	_, err := l.f.WriteAt(b, int64(l.pos))
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

var errClosed = errors.New("binlog: log is closed")

// EncodeSinkPos is a position for storage to record without a
// transaction (RESET MASTER): recovery replays what follows it. Each
// applied transaction records more (encodeSinkRecord): its GTID and the
// highest GNO this server had issued, which Open checks the log's GTID
// history against.
func EncodeSinkPos(file string, end uint64, gno int64) []byte {
	b := binary.BigEndian.AppendUint64(nil, end)
	b = binary.BigEndian.AppendUint64(b, uint64(gno))
	return append(b, file...)
}

// DecodeSinkPos parses storage's record of the last applied transaction:
// its end in the log and its GNO.
func DecodeSinkPos(b []byte) (Position, int64, error) {
	r, err := decodeSinkRecord(b)
	return r.pos, r.gtid.GNO, err
}

// Prepare implements storage.Preparer: it encodes the transaction before
// its commit turn, so Append, under storage's ordering lock, only places
// and writes it.
func (l *Log) Prepare(rec *storage.CommitRecord) error {
	x, err := l.encode(rec, l.sidFor(rec))
	if err != nil {
		return err
	}
	x.by = l
	rec.Prepared = x
	return nil
}

// encode encodes rec's events and, unless dependency tracking is
// COMMIT_ORDER, extracts its write set.
func (l *Log) encode(rec *storage.CommitRecord, sid base.SID) (*encodedTxn, error) {
	x, err := encodeTransaction(l.opts, &l.cols, rec, sid)
	if err != nil {
		return nil, err
	}
	if l.trackWritesets.Load() {
		ws, err := extractWriteset(rec)
		if err != nil {
			return nil, err
		}
		x.ws = &ws
	}
	return x, nil
}

// SetDependencyTracking sets binlog_transaction_dependency_tracking
// (TrackCommitOrder, TrackWriteset, TrackWritesetSession); a change of
// mode forgets the write-set history, as MySQL does.
func (l *Log) SetDependencyTracking(mode string) error {
	mode, err := ParseTracking(mode)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deps.setMode(mode, l.deps.historySize)
	l.trackWritesets.Store(mode != TrackCommitOrder)
	return nil
}

// SetDependencyHistorySize sets binlog_transaction_dependency_history_size.
func (l *Log) SetDependencyHistorySize(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deps.setMode(l.deps.mode, n)
}

// sidFor is the source id of rec's GTID.
func (l *Log) sidFor(rec *storage.CommitRecord) base.SID {
	if rec.Origin != nil {
		return rec.Origin.GTID.SID
	}
	return l.opts.ServerUUID
}

// Append implements storage.CommitSink: it assigns the transaction its
// GTID and logical clock and writes its events (encoded by Prepare) to
// the current file, not yet synced. Called in commit order under
// storage's ordering lock.
func (l *Log) Append(rec *storage.CommitRecord) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errClosed
	}
	if err := l.failure(); err != nil {
		return err
	}
	if l.waiter != nil {
		if err := l.waiter.Admit(); err != nil {
			return base.Wrap(base.ClassReadOnly, err, "binlog")
		}
	}
	if l.pos >= uint64(l.opts.MaxSize) {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	gtid := base.GTID{SID: l.opts.ServerUUID, GNO: l.nextGNO}
	if rec.Origin != nil {
		gtid = rec.Origin.GTID
		if l.executed.Contains(gtid) {
			return base.Errorf(base.ClassDuplicate, "binlog: GTID %s is already in gtid_executed", gtid)
		}
	}
	x, _ := rec.Prepared.(*encodedTxn)
	if x == nil || x.by != l || x.sid != gtid.SID {
		var err error
		if x, err = l.encode(rec, gtid.SID); err != nil {
			return err
		}
	}
	l.seqNo++
	last := l.committedIn(l.fileIdx)
	if last >= l.seqNo {
		last = l.seqNo - 1
	}
	last = l.deps.lastCommitted(l.seqNo, last, x.ws)
	x.place(gtid.GNO, last, l.seqNo, l.pos)
	x.file, x.seq = l.fileIdx, l.seqNo
	buf := x.buf
	p := l.pos + uint64(len(buf))
	err := l.writeAt(buf)
	rec0 := int64(-1)
	if err == nil {
		if rec0, err = l.logTail(buf); err != nil {
			// The record may be whole in the tail log, and a restart would
			// bring the transaction back: its outcome is unknown.
			if terr := l.f.Truncate(int64(l.pos)); terr == nil {
				err = base.Wrap(base.ClassOutcomeUnknown, err, "binlog")
			}
			l.broken = fmt.Errorf("binlog: the tail log failed; restart the server to recover: %w", err)
			l.seqNo--
			return err
		}
		err = failpoint.Inject("binlog.afterWrite")
	}
	if err != nil {
		// Leave no torn transaction behind for later appends; if that
		// fails too, the log stays broken until a restart (recovery then
		// truncates the torn tail).
		if terr := l.f.Truncate(int64(l.pos)); terr != nil {
			l.broken = fmt.Errorf("binlog: cannot remove a partly written transaction from %s: %w", l.files[l.fileIdx], terr)
		}
		if rec0 >= 0 {
			if terr := l.tail.invalidate(rec0); terr != nil {
				l.broken = fmt.Errorf("binlog: cannot withdraw a failed transaction from the tail log: %w", terr)
			}
		}
		l.seqNo--
		return fmt.Errorf("binlog: write %s at %d: %w", l.files[l.fileIdx], l.pos, err)
	}
	l.pos = p
	if gtid.SID == l.opts.ServerUUID && gtid.GNO >= l.nextGNO {
		l.nextGNO = gtid.GNO + 1
	}
	l.executed.Add(gtid)
	l.stats.Commits.Add(1)
	l.stats.BytesWritten.Add(uint64(len(buf)))
	rec.SinkPos = encodeSinkRecord(l.files[l.fileIdx], p, gtid, l.nextGNO-1)
	rec.GTID = gtid
	l.syncMu.Lock()
	l.written = logPos{file: l.fileIdx, pos: p}
	l.syncMu.Unlock()
	if l.syncBinlog.Load() != 1 || l.sendEarly() {
		l.wake()
	}
	return nil
}

// sendEarly reports whether dump threads may send what is written before
// it is fsynced: while semi-sync acknowledgements make commits durable
// (ON, AFTER_SYNC). A commit then waits for its local fsync and for the
// acknowledgement, and the two overlap instead of following each other.
// The price: after an operating-system crash of this server (not a
// process crash: the page cache keeps the tail), a replica may hold
// transactions whose clients never got OK and that this server lost; it
// is the server to fail over to, and it refuses to replicate from this
// one again (it has GTIDs the source lacks). Caller holds mu.
func (l *Log) sendEarly() bool {
	return l.waiter != nil && l.waiter.NetworkDurable()
}

// SendablePosition is how far dump threads may read the log: its durable
// end, or everything written while sendEarly holds.
func (l *Log) SendablePosition() Position { return l.endPosition(true) }

// failure is why nothing more may be appended: a failed write that could
// not be undone, or a failed fsync. Caller holds mu (syncMu is taken
// after mu, never before).
func (l *Log) failure() error {
	if l.broken != nil {
		return l.broken
	}
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	return l.syncErr
}

// Healthy reports whether appends can resume (no failed write left a
// torn transaction in the current file).
func (l *Log) Healthy() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failure() == nil && !l.closed
}

// Durable implements storage.CommitSink: the log makes commits durable
// with sync_binlog=1, or, with semi-sync on (AFTER_SYNC), by a replica's
// acknowledgement (network durability: no local fsync needed at all).
func (l *Log) Durable() bool {
	if l.syncBinlog.Load() == 1 {
		return true
	}
	w := l.commitWaiter()
	return w != nil && w.NetworkDurable()
}

// SetSyncBinlog changes sync_binlog (SET GLOBAL): 0 never fsyncs, 1 every
// group, N every N groups.
func (l *Log) SetSyncBinlog(n int) {
	if n == 0 {
		n = -1
	}
	l.syncMu.Lock()
	l.groupsLeft = 0
	l.syncMu.Unlock()
	l.syncBinlog.Store(int64(n))
}

// CommitWaiter is semi-synchronous replication as the log sees it.
type CommitWaiter interface {
	// Admit may refuse a commit before anything is written.
	Admit() error
	// WaitAcked waits until replicas acknowledged the log up to pos (or
	// the source fell back to asynchronous).
	WaitAcked(ctx context.Context, pos Position) error
	// AfterSync: wait before storage applies (AFTER_SYNC), else after
	// (AFTER_COMMIT).
	AfterSync() bool
	// NetworkDurable: acknowledgements currently stand in for a local
	// fsync (semi-sync ON, AFTER_SYNC).
	NetworkDurable() bool
}

// SetCommitWaiter installs semi-sync (nil removes it).
func (l *Log) SetCommitWaiter(w CommitWaiter) {
	l.mu.Lock()
	l.waiter = w
	l.mu.Unlock()
}

func (l *Log) commitWaiter() CommitWaiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiter
}

// Wait implements storage.CommitSink: it returns once rec's events are
// durable under sync_binlog and, with semi-sync AFTER_SYNC, acknowledged.
// One committer (the leader) fsyncs for all transactions written so far;
// the others wait on that fsync; one acknowledgement releases them all.
func (l *Log) Wait(ctx context.Context, rec *storage.CommitRecord) error {
	pos, _, err := DecodeSinkPos(rec.SinkPos)
	if err != nil {
		return err
	}
	// A replicated transaction durable in the relay log needs no fsync:
	// after a crash the replica re-applies what this log lost.
	if rec.Origin == nil || !rec.Origin.RelayDurable {
		if err := l.waitSync(ctx, pos); err != nil {
			return err
		}
	}
	// Replicated transactions (the applier's) do not wait: they were
	// acknowledged where they were first committed.
	if w := l.commitWaiter(); w != nil && w.AfterSync() && rec.Origin == nil {
		if err := waitAcked(ctx, w, pos); err != nil {
			return err
		}
	}
	if x, ok := rec.Prepared.(*encodedTxn); ok && x.by == l {
		l.noteCommitted(x.file, x.seq)
	}
	return nil
}

// packCommitted orders (file, sequence number) pairs in one int64.
func packCommitted(file int, seq int64) int64 { return int64(file)<<40 | seq&(1<<40-1) }

// noteCommitted records that the transaction numbered seq in file
// committed.
func (l *Log) noteCommitted(file int, seq int64) {
	v := packCommitted(file, seq)
	for {
		cur := l.committed.Load()
		if cur >= v || l.committed.CompareAndSwap(cur, v) {
			return
		}
	}
}

// committedIn is the newest committed transaction's number in file (0:
// none yet).
func (l *Log) committedIn(file int) int64 {
	v := l.committed.Load()
	if int(v>>40) != file {
		return 0
	}
	return v & (1<<40 - 1)
}

// AfterApply implements storage.AfterApplyWaiter (semi-sync AFTER_COMMIT).
func (l *Log) AfterApply(ctx context.Context, rec *storage.CommitRecord) error {
	w := l.commitWaiter()
	if w == nil || w.AfterSync() || rec.SinkPos == nil || rec.Origin != nil {
		return nil
	}
	pos, _, err := DecodeSinkPos(rec.SinkPos)
	if err != nil {
		return err
	}
	return waitAcked(ctx, w, pos)
}

func waitAcked(ctx context.Context, w CommitWaiter, pos Position) error {
	if err := w.WaitAcked(ctx, pos); err != nil {
		return fmt.Errorf("%w: %v", storage.ErrNotAcknowledged, err)
	}
	return nil
}

// waitSync returns once the log is durable up to pos under sync_binlog.
func (l *Log) waitSync(ctx context.Context, pos Position) error {
	target := logPos{pos: pos.Pos}
	l.mu.Lock()
	for i, f := range l.files {
		if f == pos.File {
			target.file = i
		}
	}
	l.mu.Unlock()

	switch {
	case l.syncBinlog.Load() < 0:
		return nil
	case l.syncBinlog.Load() > 1:
		l.syncMu.Lock()
		l.groupsLeft--
		due := l.groupsLeft <= 0
		if due {
			l.groupsLeft = int(l.syncBinlog.Load())
		}
		l.syncMu.Unlock()
		if !due {
			return nil
		}
	}
	return l.syncTo(ctx, target)
}

// SyncForStorage implements storage.FlushSyncer: everything written so far
// becomes durable whatever sync_binlog says, so storage (whose only WAL is
// this log) never flushes a transaction the log could lose.
func (l *Log) SyncForStorage() error {
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return nil // Close synced the file
	}
	l.syncMu.Lock()
	target := l.written
	l.syncMu.Unlock()
	if err := l.syncTo(context.Background(), target); err != errClosed {
		return err
	}
	return nil // Close synced everything written
}

// syncTo returns once the log is durable up to target: one caller (the
// leader) fsyncs everything written so far for all waiters.
//
// After a failed fsync it fails every wait for a position not synced
// before the failure, without another fsync: the kernel may have dropped
// the dirty pages and marked them clean, so a later fsync could succeed
// without the data reaching the disk (PostgreSQL's "fsyncgate", 2018).
// Only a restart, whose recovery reads the file back, knows what it
// holds.
func (l *Log) syncTo(ctx context.Context, target logPos) error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	for l.synced.less(target) {
		if l.syncErr != nil {
			return l.syncErr
		}
		if l.syncing {
			l.syncCond.Wait()
			continue
		}
		if l.syncClosed {
			return errClosed // Close synced everything written
		}
		// Leader: fsync everything written so far, for the whole group.
		l.syncing = true
		upto := l.written
		l.syncMu.Unlock()
		l.mu.Lock()
		tf := l.tail.f
		l.mu.Unlock()
		// The tail log holds every transaction written (tail.go); the
		// binlog files themselves are synced when the ring wraps, when a
		// file is finished, and at Close.
		serr := fsutil.DataSync(tf)
		if serr == nil {
			serr = failpoint.Inject("binlog.afterSync")
		}
		l.syncMu.Lock()
		l.syncing = false
		if serr != nil {
			// After a failed fsync the kernel may have dropped the pages:
			// nothing written since the last good fsync can be trusted
			// until a restart re-reads the file.
			l.syncErr = fmt.Errorf("binlog: fsync of %s failed; restart the server to recover: %w", tf.Name(), serr)
			l.syncCond.Broadcast()
			return fmt.Errorf("binlog: fsync: %w", serr)
		}
		if l.synced.less(upto) {
			l.synced = upto
		}
		l.stats.GroupCommits.Add(1)
		l.syncCond.Broadcast()
		l.wake()
	}
	// Durable: a cancelled ctx no longer matters (the fsync is not
	// interruptible, and reporting a durable commit failed would be false).
	return nil
}

// wake tells dump threads that the log grew.
func (l *Log) wake() {
	l.notifyMu.Lock()
	close(l.notify)
	l.notify = make(chan struct{})
	l.notifyMu.Unlock()
}

// Changed returns a channel closed at the next growth of the log.
func (l *Log) Changed() <-chan struct{} {
	l.notifyMu.Lock()
	defer l.notifyMu.Unlock()
	return l.notify
}

// Executed returns a copy of gtid_executed: the GTIDs whose transactions
// are committed and visible.
func (l *Log) Executed() *base.GTIDSet {
	l.visMu.Lock()
	defer l.visMu.Unlock()
	return l.visible.Clone()
}

// Applied implements storage.AppliedNotifier: rec's rows are visible, so
// its GTID joins gtid_executed.
func (l *Log) Applied(rec *storage.CommitRecord) {
	l.visMu.Lock()
	l.visible.Add(rec.GTID)
	l.visMu.Unlock()
	l.wake()
}

// resetVisible makes gtid_executed equal to what the log holds (at open,
// after recovery, after RESET MASTER). Caller holds mu or is Open.
func (l *Log) resetVisible() {
	l.visMu.Lock()
	l.visible = l.executed.Clone()
	l.visMu.Unlock()
}

// Logged returns every GTID written to the log, including transactions
// still waiting for their commit to finish (semi-sync acknowledgements): a
// replica may already hold those.
func (l *Log) Logged() *base.GTIDSet {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.executed.Clone()
}

// HasExecuted reports whether g is in gtid_executed.
func (l *Log) HasExecuted(g base.GTID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.executed.Contains(g)
}

// Purged returns a copy of gtid_purged.
func (l *Log) Purged() *base.GTIDSet {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.purged.Clone()
}

// Current is the end of the log (SHOW MASTER STATUS).
func (l *Log) Current() Position {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Position{File: l.files[l.fileIdx], Pos: l.pos}
}

// SyncedPosition is the end of the durable part of the log.
func (l *Log) SyncedPosition() Position { return l.endPosition(false) }

// endPosition is the durable end of the log (everything written when
// sync_binlog is not 1), or, with early and sendEarly holding, everything
// written.
func (l *Log) endPosition(early bool) Position {
	l.mu.Lock()
	files := l.files
	written := l.syncBinlog.Load() != 1 || (early && l.sendEarly())
	l.mu.Unlock()
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if written {
		return Position{File: files[l.written.file], Pos: l.written.pos}
	}
	return Position{File: files[l.synced.file], Pos: l.synced.pos}
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

// StatsSnapshot returns the counters.
func (l *Log) StatsSnapshot() (commits, groups, bytes uint64) {
	return l.stats.Commits.Load(), l.stats.GroupCommits.Load(), l.stats.BytesWritten.Load()
}

// Close syncs the current file, marks it finished (InUseFlag cleared) and
// closes it. An fsync in progress is waited for first (closing the file
// under it would fail it with EBADF); waiters not yet synced then get
// errClosed.
func (l *Log) Close() error {
	l.stopOnRotate()
	l.syncMu.Lock()
	for l.syncing {
		l.syncCond.Wait()
	}
	l.syncClosed = true
	l.syncCond.Broadcast()
	l.syncMu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	var err error
	if l.failure() == nil {
		err = l.finish()
	} else {
		// A torn transaction may remain: leave the flag, so that
		// recovery treats the file as interrupted.
		err = l.f.Sync()
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if cerr := l.tail.close(); err == nil {
		err = cerr
	}
	l.wake()
	return err
}
