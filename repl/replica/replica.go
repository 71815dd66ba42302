package replica

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/internal/tcptune"
	"petrel/storage"
)

// Options configures a Replica.
type Options struct {
	Datadir    string
	ServerID   uint32
	ServerUUID string
	Store      *storage.Engine
	// Log is the replica's own binary log: it records applied GTIDs
	// atomically with the rows. Required.
	Log *binlog.Log
	// ExecDDL runs a replicated statement (DDL) through the SQL engine,
	// logged under the origin's GTID.
	ExecDDL func(ctx context.Context, q binlog.QueryInfo, o storage.Origin) error
	// Settings are the run-time settings the replica starts with;
	// Configure changes them. Zero: DefaultSettings().
	Settings Settings
	// LockWaitTimeout returns innodb_lock_wait_timeout's global value
	// (read at each transaction): how long the applier waits for a row
	// lock a client transaction on the replica holds. nil: storage's
	// default.
	LockWaitTimeout func() time.Duration
	// Sink, when set, makes this a relay's receiver: whole transactions go
	// to it instead of the relay log, and no applier runs (sink.go).
	Sink Sink
	// ReportAddr, when set, is the host and port the replica reports to
	// its source at registration (MySQL's report_host and report_port):
	// SHOW REPLICAS there lists them. nil: none ("" and 0).
	ReportAddr func() (host string, port uint16)
	// RelayMaxSize rotates relay files; default 256 MiB.
	RelayMaxSize uint64
	Logger       *slog.Logger
	Clock        base.Clock
}

// Acknowledgement points (rpl_semi_sync_replica_ack_after): what the
// relay log must hold before a semi-sync acknowledgement is sent.
const (
	// AckRelayWrite acknowledges once the transaction is written to the
	// relay log (handed to the operating system), as MySQL and MariaDB
	// do; the relay log is fdatasync'd in the background. Survives the
	// loss of the source and a kill -9 of the replica process, not the
	// replica's host losing power together with the source.
	AckRelayWrite = "RELAY_WRITE"
	// AckRelaySync acknowledges once the relay log is fdatasync'd: also
	// survives both hosts losing power, at the cost of a local fsync per
	// acknowledgement.
	AckRelaySync = "RELAY_SYNC"
)

// Settings are the replica's run-time settings (MySQL's variables):
// given at New, replaced by Configure; each is read at the moment its
// comment says, so a change takes effect then.
type Settings struct {
	// NetTimeout is replica_net_timeout (read at each connect); default
	// 10 s.
	NetTimeout time.Duration
	// SemiSync is rpl_semi_sync_replica_enabled (read at each connect);
	// default OFF.
	SemiSync bool
	// AckAfter is rpl_semi_sync_replica_ack_after (read at each burst):
	// AckRelayWrite (the default) or AckRelaySync.
	AckAfter string
	// SyncRelayLog is sync_relay_log (read at each burst): the background
	// syncer runs once this many events wait, and within 10 ms of a write
	// in any case; 0 means by time only. Default 10000.
	SyncRelayLog int64
	// DurableApply is petrel_replica_durable_apply (read when the
	// applier starts): each applied transaction's commit waits for the
	// binlog's group fsync, as a client's commit does, instead of relying
	// on the relay log for durability. Default OFF.
	DurableApply bool
	// Parallel is replica_parallel_workers, replica_parallel_type and
	// replica_preserve_commit_order (read when the applier starts);
	// default the single applier.
	Parallel Parallel
	// StrictRows is replica_exec_mode=STRICT (read at each transaction):
	// a row event whose row is missing (UPDATE, DELETE) or already there
	// (INSERT) stops the applier with 1032 or 1062 instead of being
	// applied idempotently. Default STRICT, MySQL's.
	StrictRows bool
	// TransactionRetries is replica_transaction_retries (read at each
	// failure): how many times a transaction whose apply failed on a
	// lock wait timeout or a deadlock is rolled back and applied again
	// before the applier stops. Default 10, MySQL's.
	TransactionRetries uint64
	// TCP are the options of the link's socket
	// (replication_tcp_congestion_control, keepalives, TCP_NODELAY), read
	// at each connect; default none (the socket as dialed).
	TCP tcptune.Options
}

// DefaultSettings are the settings' defaults.
func DefaultSettings() Settings {
	return Settings{NetTimeout: 10 * time.Second, AckAfter: AckRelayWrite, SyncRelayLog: 10000, StrictRows: true, TransactionRetries: 10}
}

// Configure replaces the replica's settings: each takes effect when it
// is next read. Safe for concurrent use.
func (r *Replica) Configure(s Settings) { r.set.Store(&s) }

// Settings are the current settings.
func (r *Replica) Settings() Settings {
	if s := r.set.Load(); s != nil {
		return *s
	}
	return DefaultSettings()
}

func (o Options) lockWaitTimeout() time.Duration {
	if o.LockWaitTimeout == nil {
		return 0
	}
	return o.LockWaitTimeout()
}

// Parallel configures the applier (MySQL's names).
type Parallel struct {
	// Workers is replica_parallel_workers (MySQL 8's default 4): 0 or 1
	// is the single applier.
	Workers int
	// Type is replica_parallel_type: ParallelLogicalClock (default) or
	// ParallelDatabase.
	Type string
	// PreserveOrder is replica_preserve_commit_order (default ON).
	PreserveOrder bool
}

// replica_parallel_type values.
const (
	ParallelLogicalClock = "LOGICAL_CLOCK"
	ParallelDatabase     = "DATABASE"
)

// DefaultParallelWorkers is replica_parallel_workers' default (MySQL 8.0.27+).
const DefaultParallelWorkers = 4

// ErrApplierRunning refuses a change the running applier would not see
// (SET GLOBAL replica_parallel_type, replica_preserve_commit_order).
var ErrApplierRunning = errors.New("This operation cannot be performed with running replication threads; run STOP REPLICA FOR CHANNEL '' first")

// ApplierRunning reports whether the applier (SQL thread) runs.
func (r *Replica) ApplierRunning() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sqlT != nil
}

// Error codes shown in SHOW REPLICA STATUS (MySQL's, from the one table
// in internal/mysqlerr).
const (
	// The source sent a fatal error while streaming its binlog.
	ErrSourceFatal = mysqlerr.ErSourceFatalReadingBinlog
	// The source cannot be reached.
	ErrSourceConnect = mysqlerr.CrConnHostError
	// The source refused the replication account.
	ErrSourceAccess = mysqlerr.ErAccessDenied
	// The link to the source was lost or timed out (the receiver
	// reconnects): CR_SERVER_LOST, as MySQL's I/O thread reports it.
	ErrNetRead        = mysqlerr.CrServerLost
	ErrEqualServerIDs = mysqlerr.ErReplicaEqualServerIDs
	ErrEventChecksum  = mysqlerr.ErNetReadEventChecksum
	// An event the replica cannot read: what MySQL's applier reports as a
	// relay log read failure ("could not parse relay log event entry").
	ErrUnknownEvent = mysqlerr.ErRelayLogReadFailure
	// The relay log could not be written or synced: ER_REPLICA_RELAY_LOG_WRITE_FAILURE
	// (the I/O thread "could not queue event from source").
	ErrRelayLogFailure = mysqlerr.ErRelayLogWriteFailure
)

// threadError is a Last_IO_Error / Last_SQL_Error.
type threadError struct {
	Errno int
	Msg   string
	At    time.Time
}

// Replica runs the receiver and the applier. Safe for concurrent use.
type Replica struct {
	opts  Options
	set   atomic.Pointer[Settings] // Configure's
	relay *relayLog

	mu       sync.Mutex
	cfg      *Config
	io       *thread
	sqlT     *thread
	ioState  string
	sqlState string
	ioErr    threadError
	sqlErr   threadError
	// receiver facts
	ioConnected  bool
	sourceID     uint32
	sourceUUID   string
	sourceFile   string
	sourcePos    uint64
	lastHeard    time.Time
	heartbeats   uint64
	clockDiff    time.Duration // local - source, measured at connect
	heartbeat    time.Duration
	lastRecvOrig time.Time
	receivedTxns uint64
	connects     uint64
	semiActive   bool
	acksSent     uint64
	// applier facts
	// relayDurable is the Origin.RelayDurable of applied commits: not
	// DurableApply. Written by the applier before its workers start.
	relayDurable  bool
	applying      bool
	applyingOrig  time.Time
	caughtUp      bool
	appliedTxns   uint64
	skippedTxns   uint64
	retriedTxns   uint64 // replica_transaction_retries' retries made
	execFile      string
	execPos       uint64
	relayReadFile string
	relayReadPos  uint64
	par           *applier    // the running applier
	parWaits      schedWaits  // the scheduler waits of appliers that stopped
	workers       workerStats // performance_schema's worker rows (own lock)

	fo failoverState // source list and running failover policy (failover_shell.go)
}

// thread is a running goroutine with its stop switch.
type thread struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (t *thread) stop() {
	t.cancel()
	<-t.done
}

// New opens the replica's relay log and configuration. It starts nothing.
func New(opts Options) (*Replica, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = base.RealClock{}
	}
	if opts.RelayMaxSize == 0 {
		opts.RelayMaxSize = 256 << 20
	}
	cfg, err := LoadConfig(opts.Datadir)
	if err != nil {
		return nil, err
	}
	rl, err := openRelay(filepath.Join(opts.Datadir, "relay"), opts.RelayMaxSize)
	if err != nil {
		return nil, err
	}
	r := &Replica{opts: opts, relay: rl, cfg: cfg}
	if opts.Settings == (Settings{}) {
		opts.Settings = DefaultSettings()
	}
	r.Configure(opts.Settings)
	p := rl.position()
	r.sourceFile, r.sourcePos = p.File, p.Pos
	return r, nil
}

// SQL-level errors (the node maps them to MySQL codes).
var (
	ErrNotConfigured = errors.New("Replica is not configured or failed to initialize properly. You must at least set --server-id to enable either a source or a replica. Additional error messages can be found in the MySQL error log")
	ErrMustStop      = errors.New("This operation cannot be performed with a running replica; run STOP REPLICA first")
)

// Configured reports whether CHANGE REPLICATION SOURCE was run.
func (r *Replica) Configured() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cfg.Configured()
}

// Change applies CHANGE REPLICATION SOURCE TO options; both threads must
// be stopped.
func (r *Replica) Change(opts []Option) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.io != nil || r.sqlT != nil {
		return ErrMustStop
	}
	var cur Config
	if r.cfg != nil {
		cur = *r.cfg
	}
	ch, err := applyChange(cur, opts)
	if errors.Is(err, ErrAutoPositionConflict) {
		return err
	}
	if err != nil {
		return base.Wrap(base.ClassBadInput, err, "CHANGE REPLICATION SOURCE")
	}
	next := ch.cfg
	if next.Host == "" {
		return base.Errorf(base.ClassBadInput, "CHANGE REPLICATION SOURCE: SOURCE_HOST is required")
	}
	// The relay log first: it holds the position (position.go). A crash
	// before the configuration is saved leaves the new position with the
	// old configuration, never a half-written one.
	switch {
	case ch.start != nil:
		// Replication restarts exactly there, as in MySQL: what the relay
		// log held is discarded.
		p := *ch.start
		if p.File == "" {
			p.File = r.relay.position().File
		}
		if err := r.relay.resetTo(p); err != nil {
			return err
		}
		r.execFile, r.execPos = p.File, p.Pos
	case ch.sourceChanged:
		// Another server: its positions are not the old one's. Relay
		// transactions not yet applied still are (the applier skips what
		// it has); by file and position the new source is read from its
		// first file, as MySQL does.
		if err := r.relay.mark(sourcePos{}); err != nil {
			return err
		}
		r.execFile, r.execPos = "", 0
	}
	if err := SaveConfig(r.opts.Datadir, &next); err != nil {
		return err
	}
	r.cfg = &next
	p := r.relay.position()
	r.sourceFile, r.sourcePos = p.File, p.Pos
	r.ioErr, r.sqlErr = threadError{}, threadError{}
	return nil
}

// Start starts the receiver and/or the applier (START REPLICA
// [IO_THREAD|SQL_THREAD]). Starting a running thread is a no-op.
func (r *Replica) Start(io, sql bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.cfg.Configured() {
		return ErrNotConfigured
	}
	if io && r.io == nil {
		r.ioErr = threadError{}
		r.io = r.spawn(r.runReceiver)
	}
	if sql && r.sqlT == nil && r.opts.Sink == nil {
		r.sqlErr = threadError{}
		r.sqlT = r.spawn(r.runApplier)
	}
	return nil
}

func (r *Replica) spawn(fn func(ctx context.Context, cfg Config)) *thread {
	ctx, cancel := context.WithCancel(context.Background())
	t := &thread{cancel: cancel, done: make(chan struct{})}
	cfg := *r.cfg
	go func() {
		defer close(t.done)
		fn(ctx, cfg)
	}()
	return t
}

// Stop stops the receiver and/or the applier and waits for them (the
// applier finishes the transaction it is applying).
func (r *Replica) Stop(io, sql bool) error {
	r.mu.Lock()
	var ts []*thread
	if io && r.io != nil {
		ts = append(ts, r.io)
	}
	if sql && r.sqlT != nil {
		ts = append(ts, r.sqlT)
	}
	r.mu.Unlock()
	for _, t := range ts {
		t.stop()
	}
	r.mu.Lock()
	if io && r.io != nil && isDone(r.io) {
		r.io = nil
	}
	if sql && r.sqlT != nil && isDone(r.sqlT) {
		r.sqlT = nil
	}
	r.mu.Unlock()
	return nil
}

func isDone(t *thread) bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// threadEnded clears a thread that stopped by itself (fatal error).
func (r *Replica) threadEnded(io bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if io {
		r.io = nil
		r.ioConnected = false
		r.ioState = ""
	} else {
		r.sqlT = nil
		r.sqlState = ""
		r.applying = false
	}
}

// Reset is RESET REPLICA [ALL]: relay logs and errors go; ALL also forgets
// the source.
func (r *Replica) Reset(all bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.io != nil || r.sqlT != nil {
		return ErrMustStop
	}
	if err := r.relay.reset(); err != nil {
		return err
	}
	if r.opts.Sink != nil {
		if err := r.opts.Sink.Reset(); err != nil {
			return err
		}
	}
	r.ioErr, r.sqlErr = threadError{}, threadError{}
	r.sourceFile, r.sourcePos, r.execFile, r.execPos = "", 0, "", 0
	if all {
		if err := SaveConfig(r.opts.Datadir, nil); err != nil {
			return err
		}
		r.cfg = nil
	}
	return nil
}

// Close stops both threads and closes the relay log.
func (r *Replica) Close() error {
	r.Stop(true, true)
	return r.relay.close()
}

func (r *Replica) setIOError(errno int, format string, args ...any) {
	r.mu.Lock()
	r.ioErr = threadError{Errno: errno, Msg: fmt.Sprintf(format, args...), At: r.opts.Clock.Now()}
	r.mu.Unlock()
}

func (r *Replica) setSQLError(errno int, format string, args ...any) {
	r.mu.Lock()
	r.sqlErr = threadError{Errno: errno, Msg: fmt.Sprintf(format, args...), At: r.opts.Clock.Now()}
	r.mu.Unlock()
}

func (r *Replica) setIOState(s string) {
	r.mu.Lock()
	r.ioState = s
	r.mu.Unlock()
}
