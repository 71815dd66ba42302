package source

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/internal/tcptune"
	"petrel/semisync"
)

// Options configures a Source.
type Options struct {
	Log        *binlog.Log
	ServerID   uint32
	ServerUUID base.SID
	Logger     *slog.Logger
	Clock      base.Clock
	// WriteTimeout bounds each network write (net_write_timeout); default 60s.
	WriteTimeout time.Duration
	// TCP are the options of a replica's socket
	// (replication_tcp_congestion_control, keepalives, TCP_NODELAY), read
	// when its dump starts; SetTCP changes them. Zero leaves the socket as
	// accepted.
	TCP tcptune.Options
	// Semi is semi-sync replication; nil when not wired. Its settings
	// (Tracker.Configure) say whether it is on.
	Semi *semisync.Tracker
}

// Replica is one registered replica (SHOW REPLICAS).
type Replica struct {
	ConnID      uint32
	ServerID    uint32
	Host        string
	Port        uint16
	User        string
	ReplicaUUID string
	Dumping     bool
}

// Source serves dumps. Safe for concurrent use.
type Source struct {
	opts Options
	tcp  atomic.Pointer[tcptune.Options] // SetTCP's

	mu       sync.Mutex
	replicas map[uint32]*Replica // by connection id
	reading  map[uint32]string   // connection id -> binlog file being read
}

// New builds a Source and makes the log keep files dumps still read.
func New(opts Options) *Source {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = base.RealClock{}
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = 60 * time.Second
	}
	s := &Source{opts: opts, replicas: map[uint32]*Replica{}, reading: map[uint32]string{}}
	s.SetTCP(opts.TCP)
	opts.Log.SetReaderHorizon(s.oldestRead)
	return s
}

// Register records a replica (COM_REGISTER_SLAVE).
func (s *Source) Register(r Replica) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replicas[r.ConnID] = &r
	s.opts.Logger.Info("replica registered", "server_id", r.ServerID, "host", r.Host, "port", r.Port, "user", r.User)
}

// Disconnected forgets a connection's registration.
func (s *Source) Disconnected(connID uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.replicas, connID)
	delete(s.reading, connID)
}

// Replicas lists registered replicas by server id.
func (s *Source) Replicas() []Replica {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Replica, 0, len(s.replicas))
	for _, r := range s.replicas {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ServerID < out[j].ServerID })
	return out
}

// oldestRead is the log's reader horizon (called under the log's lock).
func (s *Source) oldestRead() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	oldest := ""
	for _, f := range s.reading {
		if oldest == "" || f < oldest {
			oldest = f
		}
	}
	return oldest
}

func (s *Source) setReading(connID uint32, file string) {
	s.mu.Lock()
	if file == "" {
		delete(s.reading, connID)
	} else {
		s.reading[connID] = file
	}
	s.mu.Unlock()
}

// FatalError is a dump error the replica must not retry (MySQL error
// 1236, ER_MASTER_FATAL_ERROR_READING_BINLOG).
type FatalError struct{ Msg string }

func (e *FatalError) Error() string { return e.Msg }

func fatalf(format string, args ...any) error {
	return &FatalError{Msg: fmt.Sprintf(format, args...)}
}

// IsFatal reports whether err is a FatalError.
func IsFatal(err error) bool {
	var f *FatalError
	return errors.As(err, &f)
}

// startPoint is where a dump begins: a file index in the log's list and an
// offset, plus the GTIDs whose transactions are skipped.
type startPoint struct {
	file string
	pos  uint64
	skip *base.GTIDSet
}

// planStart decides where a dump begins. files are the log's files, oldest
// first, with their PREVIOUS_GTIDS; executed and purged are the log's sets.
// Pure: tested without a log.
func planStart(files []fileHeader, executed, purged *base.GTIDSet, req Request, own base.SID) (startPoint, error) {
	if len(files) == 0 {
		return startPoint{}, fatalf("Binary logging is not enabled on the source")
	}
	if !req.AutoPosition {
		if req.File == "" {
			// An empty name means "from the first file" (MySQL and MariaDB).
			return startPoint{file: files[0].name, pos: max(req.Pos, 4)}, nil
		}
		for _, f := range files {
			if f.name == req.File {
				return startPoint{file: f.name, pos: max(req.Pos, 4)}, nil
			}
		}
		return startPoint{}, fatalf("Could not find first log file name in binary log index file (%s)", req.File)
	}
	have := req.GTIDs
	if have == nil {
		have = base.NewGTIDSet()
	}
	if !have.ContainsSet(purged) {
		missing := purged.Subtract(have)
		return startPoint{}, fatalf("Cannot replicate because the source purged required binary logs. Replicate the missing transactions from elsewhere, or provision a new replica from backup. Consider increasing the source's binary log expiration period. The GTID set sent by the replica is '%s', and the missing transactions are '%s'", have, missing)
	}
	if extra := have.Subtract(executed); extra.Last(own) > 0 {
		return startPoint{}, fatalf("Replica has more GTIDs than the source has, using the source's SERVER_UUID. This may indicate that the end of the binary log was truncated or that the last binary log file was lost, e.g., after a power or disk failure when sync_binlog != 1. The source may or may not have rolled back transactions that were already replicated to the replica. Suggest to replicate any transactions that the source has rolled back from the replica to the source, and/or commit empty transactions on the source to account for transactions that have been committed on the source but are not included in GTID_EXECUTED. Replica has '%s'", extra)
	}
	// The newest file whose PREVIOUS_GTIDS the replica already has: every
	// transaction it lacks is in that file or later.
	start := 0
	for i := len(files) - 1; i >= 0; i-- {
		if have.ContainsSet(files[i].prev) {
			start = i
			break
		}
	}
	return startPoint{file: files[start].name, pos: 4, skip: have.Clone()}, nil
}

type fileHeader struct {
	name string
	prev *base.GTIDSet
}

// Request is a dump request (see sqlengine.DumpRequest).
type Request struct {
	ConnID          uint32
	ServerID        uint32
	File            string
	Pos             uint64
	AutoPosition    bool
	GTIDs           *base.GTIDSet
	HeartbeatPeriod time.Duration
	ChecksumAware   bool
	SemiSync        bool
	// MariaDB: the replica is MariaDB (it set @mariadb_slave_capability),
	// which cannot read TRANSACTION_PAYLOAD events.
	MariaDB bool
}

func (s *Source) headers() ([]fileHeader, error) {
	var out []fileHeader
	for _, f := range s.opts.Log.Files() {
		p, ok := s.opts.Log.Path(f.Name)
		if !ok {
			continue
		}
		h, err := binlog.ReadFileHeader(p)
		if err != nil {
			return nil, err
		}
		out = append(out, fileHeader{name: f.Name, prev: h.PreviousGTIDs})
	}
	return out, nil
}

// checkRequest refuses what the stream cannot serve.
func checkRequest(req Request) error {
	if !req.ChecksumAware {
		return fatalf("Replica can not handle replication events with the checksum that source is configured to log; the replica must SET @source_binlog_checksum (or @master_binlog_checksum) to 'CRC32' before the dump")
	}
	return nil
}

// Dumping marks a connection's registration as streaming.
func (s *Source) dumping(connID uint32, on bool) {
	s.mu.Lock()
	if r := s.replicas[connID]; r != nil {
		r.Dumping = on
	}
	s.mu.Unlock()
}

// Dump streams until the context ends, the connection fails, or the log
// cannot be read. ctx should end when the replica disconnects.
func (s *Source) Dump(ctx context.Context, w EventWriter, req Request) error {
	if err := checkRequest(req); err != nil {
		return err
	}
	files, err := s.headers()
	if err != nil {
		return err
	}
	// Logged, not Executed: under AFTER_SYNC a replica may hold
	// transactions still waiting for their acknowledgement here.
	sp, err := planStart(files, s.opts.Log.Logged(), s.opts.Log.Purged(), req, s.opts.ServerUUID)
	if err != nil {
		return err
	}
	s.dumping(req.ConnID, true)
	defer s.dumping(req.ConnID, false)
	if s.semi(req) {
		s.opts.Semi.AddReplica(req.ConnID, req.ServerID)
		defer s.opts.Semi.RemoveReplica(req.ConnID)
	}
	defer s.setReading(req.ConnID, "")
	s.opts.Logger.Info("dump started", "replica_server_id", req.ServerID, "file", sp.file, "pos", sp.pos, "auto_position", req.AutoPosition)
	d := &dumper{s: s, w: w, req: req, sp: sp, semi: s.semi(req)}
	err = d.run(ctx)
	s.opts.Logger.Info("dump ended", "replica_server_id", req.ServerID, "err", err)
	return err
}

// semi reports whether a dump speaks semi-sync: the replica asked for it
// (the source has the plugin built in). Whether transaction ends ask for
// acknowledgements follows rpl_semi_sync_source_enabled as it changes.
func (s *Source) semi(req Request) bool {
	return req.SemiSync && s.opts.Semi != nil
}

func (s *Source) semiEnabled() bool { return s.opts.Semi != nil && s.opts.Semi.Settings().Enabled }

// SetTCP replaces the options of the sockets of dumps that start from now
// on. Safe for concurrent use.
func (s *Source) SetTCP(o tcptune.Options) { s.tcp.Store(&o) }

// TCP are the options the next dump's socket gets.
func (s *Source) TCP() tcptune.Options { return *s.tcp.Load() }

// IsSemi reports whether a request will get a semi-sync stream.
func (s *Source) IsSemi(req Request) bool { return s.semi(req) }
