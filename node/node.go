package node

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"petrel/internal/base"
	"petrel/internal/fsutil"

	"github.com/google/uuid"

	"petrel/binlog"
	"petrel/clone"
	"petrel/repl/replica"
	"petrel/repl/source"
	"petrel/semisync"
	"petrel/sqlengine"
	"petrel/sqlengine/fastpath"
	"petrel/sqlengine/wire"
	"petrel/storage"
	"petrel/surface/binlogsql"
	"petrel/surface/clonesql"
	"petrel/surface/replsql"
	"petrel/surface/semisyncsql"
	"petrel/surface/sysvar"
)

// Options configures a Node. Zero values take the defaults noted.
type Options struct {
	// Datadir holds everything the server persists. Required.
	Datadir string
	// BindAddress; default 127.0.0.1.
	BindAddress string
	// Port; default 3306. 0 picks a free port.
	Port int
	// ServerID is server_id; default 1.
	ServerID uint32
	// RootPassword is used when the datadir is initialised. Empty means
	// generate one and print it once to Out.
	RootPassword string
	// Variables are global variables from the config file.
	Variables map[string]string
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Clock is the one time source of every stage; default the wall clock.
	Clock base.Clock
	// Out receives the one-time generated root password; default os.Stdout.
	Out io.Writer
	// MetricsAddress serves Prometheus metrics at /metrics ("" = off).
	MetricsAddress string
	// MetricsPprof also serves Go's profiles (net/http/pprof) at
	// /debug/pprof/ on MetricsAddress; default off.
	MetricsPprof bool
	// MemoryLimit is petrel_memory_limit's default in bytes (the option
	// file's value wins); 0: DefaultMemoryLimit of the machine's RAM.
	MemoryLimit int64
	// Relay makes the server a relay (`petrel relay`, relay.go): it keeps
	// its source's binlog in its own and serves it, applying nothing.
	Relay bool
}

// Node is a running Petrel server.
type Node struct {
	opts  Options
	meta  datadirMeta
	store *storage.Engine
	sql   *sqlengine.Engine
	// globals are the server's system variables, defined before sql
	// opens (the surfaces' and node's own) and then sql's.
	globals *sqlengine.Globals
	srv     *sqlengine.Server
	binlog  *binlog.Log
	// binlogVars are the binary log's settings (surface/binlogsql)
	binlogVars *binlogsql.Vars
	// replication
	source  *source.Source
	replica *replica.Replica
	repl    replsql.Vars
	tcp     *replsql.TCP // replication sockets' settings
	semi    semisyncsql.Vars
	tracker *semisync.Tracker
	// set is node's own settings (settings.go)
	set *sysvar.Set[settings]
	// metrics
	metrics     *http.Server
	metricsAddr string
	// memory (memory.go)
	memReturns atomic.Uint64
	memDone    chan struct{}

	stopWatch context.CancelFunc
	watchDone chan struct{}

	donor     *clone.Donor // nil without a binary log
	cloneVars *clonesql.Vars
	restart   restartSignal
}

// datadirMeta is the datadir's identity file, like MySQL's auto.cnf.
type datadirMeta struct {
	Format     int    `json:"format"`
	ServerUUID string `json:"server_uuid"`
	Created    string `json:"created"`
}

const (
	metaFile      = "petrel.json"
	formatVersion = 1
)

// Open initialises the datadir if new, opens storage and the SQL engine and
// starts listening.
func Open(opts Options) (*Node, error) {
	if opts.Datadir == "" {
		return nil, errors.New("node: --datadir is required")
	}
	if opts.BindAddress == "" {
		opts.BindAddress = "127.0.0.1"
	}
	if opts.ServerID == 0 {
		opts.ServerID = 1
	}
	opts.Clock = base.ClockOr(opts.Clock)
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	// The config is checked before anything touches the datadir.
	vars, logBin, err := splitLogBin(opts.Variables)
	if err != nil {
		return nil, err
	}
	if opts.Relay {
		if !logBin {
			return nil, errors.New("node: a relay keeps what it receives in its binary log: log_bin cannot be OFF")
		}
		relayVariables(vars)
	}
	// The server's variables: every surface defines its own on them, so
	// their hooks reach this node's components (two nodes in one
	// process keep theirs apart: docs/design/one-server.md).
	g := sqlengine.NewGlobals()
	n := &Node{opts: opts, globals: g, binlogVars: binlogsql.Variables(g, logBin, opts.Datadir), repl: replsql.Variables(g), semi: semisyncsql.Variables(g), set: sysvar.New(settings{})}
	n.restart.ch = make(chan struct{})
	n.tcp = replsql.TCPVariables(g, opts.Logger)
	n.cloneVars = clonesql.Variables(g)
	n.shutdownVariables()
	n.diskDelayVariables()
	if opts.MemoryLimit <= 0 {
		opts.MemoryLimit = DefaultMemoryLimit(storage.PhysicalMemory())
	}
	n.memoryVariables(opts.MemoryLimit)
	if err := sqlengine.CheckVariables(g, vars); err != nil {
		return nil, fmt.Errorf("node: config: %w", err)
	}
	if err := n.installClone(); err != nil {
		return nil, err
	}
	fresh, err := n.prepareDatadir()
	if err != nil {
		return nil, err
	}
	n.store, err = storage.Open(storage.Options{Dir: filepath.Join(opts.Datadir, "data"), Logger: opts.Logger, Clock: opts.Clock, LogIsWAL: logBin && !opts.Relay,
		CacheSize: g.BufferPoolSize(), MemTableSize: g.MemtableSize(), SyncDelay: n.set.Get().SyncDelay})
	if err != nil {
		return nil, fmt.Errorf("node: datadir %s: %w", opts.Datadir, err)
	}
	fail := func(err error) (*Node, error) {
		if n.donor != nil {
			n.donor.Close()
		}
		if n.replica != nil {
			n.replica.Close()
		}
		if n.binlog != nil {
			n.binlog.Close()
		}
		n.store.Close()
		return nil, err
	}
	// The datadir as opened, which the storage watcher compares against.
	id, err := identifyDatadir(opts.Datadir)
	if err != nil {
		return fail(err)
	}
	tlsCfg, rsaKeys, err := serverTLS(opts.Datadir, vars)
	if err != nil {
		return fail(fmt.Errorf("node: %w", err))
	}
	n.sql, err = sqlengine.New(sqlengine.Options{
		Store: n.store, ServerID: opts.ServerID, ServerUUID: n.meta.ServerUUID,
		Logger: opts.Logger, Variables: vars, TLS: tlsCfg, RSAKeys: rsaKeys, Globals: g,
	})
	if err != nil {
		return fail(fmt.Errorf("node: %w", err))
	}
	fastpath.Install(n.sql)                // the executor the handler asks first
	binlogsql.RegisterGTIDFunctions(n.sql) // with or without the log, as MySQL
	n.registerMemoryStatus()
	n.registerDiskDelayStatus()
	if err := n.applyTxnSizeLimit(vars); err != nil {
		return fail(fmt.Errorf("node: %w", err))
	}
	if logBin {
		if err := n.openBinlog(); err != nil {
			return fail(err)
		}
	} else {
		binlogsql.RegisterLogFlushesWithoutLog(n.sql)
	}
	switch {
	case fresh:
		pw := opts.RootPassword
		if pw == "" {
			pw = generatePassword()
			fmt.Fprintf(opts.Out, "petrel: a temporary password is generated for root@localhost: %s\n", pw)
		}
		if err := n.sql.CreateRoot(pw); err != nil {
			return fail(fmt.Errorf("node: create root account: %w", err))
		}
		// The identity file is written last: its presence means the
		// datadir is complete.
		if err := n.writeMeta(); err != nil {
			return fail(err)
		}
		opts.Logger.Info("petrel: initialised datadir", "datadir", opts.Datadir, "server_uuid", n.meta.ServerUUID)
	case !n.sql.HasUsers():
		return fail(fmt.Errorf("node: datadir %s has no user accounts: its storage is damaged or was replaced; refusing to start", opts.Datadir))
	}
	if opts.Relay {
		n.store.SetSink(refuseWrites{})
	}
	if err := n.openReplication(); err != nil {
		return fail(err)
	}
	if err := n.openClone(tlsCfg); err != nil {
		return fail(err)
	}
	addr := net.JoinHostPort(opts.BindAddress, strconv.Itoa(opts.Port))
	n.srv, err = n.sql.Listen(addr)
	if err != nil {
		return fail(err)
	}
	if opts.MetricsAddress != "" {
		if err := n.serveMetrics(opts.MetricsAddress); err != nil {
			n.srv.Close()
			return fail(err)
		}
	}
	n.startReplica()
	wctx, cancel := context.WithCancel(context.Background())
	n.stopWatch, n.watchDone = cancel, make(chan struct{})
	go n.watchStorage(wctx, id, watchInterval)
	n.memDone = make(chan struct{})
	go n.returnMemory(wctx, newMemReturner(n.MemoryLimit()), readMemSample, debug.FreeOSMemory)
	opts.Logger.Info("petrel: ready for connections", "addr", n.srv.Addr(), "server_id", opts.ServerID, "server_uuid", n.meta.ServerUUID, "version", sqlengine.Version)
	return n, nil
}

// prepareDatadir creates a new datadir or checks an existing one is
// Petrel's. It reports whether the datadir was new.
func (n *Node) prepareDatadir() (bool, error) {
	dir := n.opts.Datadir
	p := filepath.Join(dir, metaFile)
	b, err := os.ReadFile(p)
	if err == nil {
		if err := json.Unmarshal(b, &n.meta); err != nil || n.meta.ServerUUID == "" {
			return false, fmt.Errorf("node: %s is corrupt (%v); refusing to start", p, err)
		}
		if n.meta.Format != formatVersion {
			return false, fmt.Errorf("node: %s has format %d, this petrel reads %d; refusing to start", p, n.meta.Format, formatVersion)
		}
		if !storage.DirHasData(filepath.Join(dir, "data")) {
			return false, fmt.Errorf("node: datadir %s has %s but no data directory; refusing to start", dir, metaFile)
		}
		return false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("node: read %s: %w", p, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("node: datadir %s: %w", dir, err)
	}
	if clonedWithoutIdentity(dir) {
		n.meta = datadirMeta{Format: formatVersion, ServerUUID: uuid.NewString(), Created: n.opts.Clock.Now().UTC().Format(time.RFC3339)}
		if err := n.writeMeta(); err != nil {
			return false, err
		}
		n.opts.Logger.Info("petrel: a cloned datadir gets its own identity", "datadir", dir, "server_uuid", n.meta.ServerUUID)
		return false, nil
	}
	if len(entries) > 0 {
		return false, fmt.Errorf("node: datadir %s is not empty and is not a Petrel datadir (no %s; an interrupted first start leaves this too: remove the directory and start again); refusing to start", dir, metaFile)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return false, fmt.Errorf("node: create datadir: %w", err)
	}
	n.meta = datadirMeta{Format: formatVersion, ServerUUID: uuid.NewString(), Created: n.opts.Clock.Now().UTC().Format(time.RFC3339)}
	return true, nil
}

// writeMeta atomically writes the datadir's identity file.
func (n *Node) writeMeta() error {
	p := filepath.Join(n.opts.Datadir, metaFile)
	b, _ := json.MarshalIndent(n.meta, "", "  ")
	return fsutil.WriteFileAtomic(p, append(b, '\n'), 0o640)
}

func generatePassword() string {
	const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 16)
	for i := range b {
		v, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b[i] = alphabet[v.Int64()]
	}
	return string(b)
}

// splitLogBin takes the binary-log switches out of the config variables:
// log_bin (ON by default, as in MySQL 8.0), skip_log_bin, disable_log_bin.
func splitLogBin(in map[string]string) (map[string]string, bool, error) {
	out := map[string]string{}
	on := true
	for k, v := range in {
		switch k {
		case "log_bin":
			switch strings.ToUpper(v) {
			case "OFF", "0", "FALSE":
				on = false
			}
		case "skip_log_bin", "disable_log_bin":
			on = false
		default:
			out[k] = v
		}
	}
	return out, on, nil
}

// Addr is the MySQL listening address.
func (n *Node) Addr() string { return n.srv.Addr() }

// ServerUUID is the datadir's server_uuid.
func (n *Node) ServerUUID() string { return n.meta.ServerUUID }

// SQL returns the SQL engine.
func (n *Node) SQL() *sqlengine.Engine { return n.sql }

// Store returns the storage engine.
func (n *Node) Store() *storage.Engine { return n.store }

// serverTLS loads the server's certificate (ssl_cert, ssl_key, ssl_ca) or
// the datadir's generated one, and caching_sha2_password's RSA key pair;
// vars gets the paths used, which SHOW VARIABLES then shows.
func serverTLS(datadir string, vars map[string]string) (*tls.Config, *wire.RSAKeys, error) {
	o := wire.TLSOptions{Datadir: datadir, Cert: vars["ssl_cert"], Key: vars["ssl_key"], CA: vars["ssl_ca"]}
	cfg, used, err := wire.ServerTLS(o)
	if err != nil {
		return nil, nil, err
	}
	vars["ssl_cert"], vars["ssl_key"], vars["ssl_ca"] = used.Cert, used.Key, used.CA
	keys, err := wire.LoadRSAKeys(datadir)
	if err != nil {
		return nil, nil, err
	}
	return cfg, keys, nil
}
