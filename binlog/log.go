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
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"petrel/internal/base"
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
	// BeforeSync, when set, runs before every group fsync (the one that
	// makes commits durable): the lab's injected disk latency
	// (storage.Engine.DelaySync), so the binlog's fsyncs are as slow as
	// storage's. Default nil.
	BeforeSync func()
	// CacheDir holds the transaction caches spilled past
	// binlog_cache_size (txncache.go); Open removes the ones a crash left
	// there. Default: the system's temporary directory, never swept.
	CacheDir string

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
	// cachePool keeps spill files for transaction caches (txncache.go).
	cachePool cachePool
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
	syncMu   sync.Mutex
	syncCond *sync.Cond
	syncing  bool
	written  logPos // end of the last Append
	synced   logPos // end of the last fsync
	// localEnd is the end of the last transaction not already durable
	// elsewhere (not Origin.RelayDurable), and relaySent how far dump
	// threads may read before an fsync because everything after synced up
	// to it is replicated and durable in the relay log (sendableLocked).
	localEnd, relaySent logPos
	groupsLeft          int  // for sync_binlog = N
	syncClosed          bool // Close has begun: no new fsync of the file
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
	// cacheSize is binlog_cache_size (txncache.go).
	cacheSize atomic.Int64
	// comp is transaction compression's global state (compress.go).
	comp compression
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
	CacheUse     atomic.Uint64 // Binlog_cache_use
	CacheDiskUse atomic.Uint64 // Binlog_cache_disk_use
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
	l.cacheSize.Store(DefaultCacheSize)
	if err := l.sweepCacheDir(); err != nil {
		return nil, err
	}
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

var errClosed = errors.New("binlog: log is closed")

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
	if cerr := l.closeCachePool(); err == nil {
		err = cerr
	}
	l.wake()
	return err
}
