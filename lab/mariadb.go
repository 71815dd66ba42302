package lab

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

const (
	// installDBTimeout bounds mariadb-install-db (about 1 s normally).
	installDBTimeout = 2 * time.Minute
	// maxSocketPath keeps the socket path under the 108-byte sun_path limit.
	maxSocketPath = 100
)

// MariaDBOptions configures StartMariaDB.
type MariaDBOptions struct {
	// Datadir is the data directory. If it has no mysql/ system schema it
	// is initialised with mariadb-install-db. Default: a new temporary
	// directory that Stop removes.
	Datadir string
	// Port is the TCP port (bound to 127.0.0.1). Default: FreePort().
	Port int
	// ServerID is passed as --server-id. Default: 1.
	ServerID int
	// ExtraArgs are appended to mariadbd's arguments, e.g. "--log-bin",
	// "--sync-binlog=1", "--innodb-buffer-pool-size=512M".
	ExtraArgs []string
	// StartTimeout bounds each start until a ping succeeds (install-db has
	// its own 2 minute bound). Default: 60s.
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits after SIGTERM (InnoDB shutdown)
	// before SIGKILL. Default: 120s.
	StopTimeout time.Duration
	// Binary is the server executable. Default: mariadbd on PATH, else
	// /usr/sbin/mariadbd (not on a non-root user's PATH on Debian).
	Binary string
	// InstallDB is the initialisation script. Default: mariadb-install-db
	// on PATH, else /usr/bin/mariadb-install-db.
	InstallDB string
	// Stderr, if set, also receives the server's output. Default: nil.
	Stderr io.Writer
	// Logger receives lab's own messages. Default: discard.
	Logger *slog.Logger
	// WAN, if set, runs the server inside side Side's namespace of WAN
	// (`ip netns exec`), listening on all of that namespace's addresses,
	// as PetrelOptions.WAN does: other servers reach it at Host():Port(),
	// and DSN and DB connect through WAN.Dial from this process.
	WAN  *WAN
	Side int
	// Env is added to the server's environment (FsyncDelayEnv).
	Env []string
}

func (o *MariaDBOptions) applyDefaults() error {
	if o.ServerID == 0 {
		o.ServerID = 1
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 120 * time.Second
	}
	o.Logger = defaultLogger(o.Logger)
	if o.Binary == "" {
		o.Binary = findTool("mariadbd", "/usr/sbin/mariadbd")
	}
	if o.InstallDB == "" {
		o.InstallDB = findTool("mariadb-install-db", "/usr/bin/mariadb-install-db")
	}
	if o.Port == 0 {
		port, err := FreePort()
		if err != nil {
			return err
		}
		o.Port = port
	}
	return nil
}

// MariaDB is a mariadbd subprocess with root@127.0.0.1 and an empty
// password (mariadb-install-db's "normal" root authentication).
//
// Lifecycle methods (Stop, Kill, Restart) are serialised by a mutex; Log,
// Port, Pid, DSN and DB never block on them.
type MariaDB struct {
	opts    MariaDBOptions
	args    []string
	log     *tailBuffer
	pid     atomic.Int64
	removes []string // lab-created directories that Stop deletes
	tmpDir  string   // mariadbd's private --tmpdir (lab-created)

	mu struct {
		sync.Mutex
		proc    *process
		removed bool // Stop deleted the lab-created datadir
	}
}

// StartMariaDB initialises the datadir if needed, starts mariadbd and waits
// until root can ping it over TCP. ctx bounds the start only. On error the
// process has been killed, lab-created directories removed, and the error
// includes the server's output.
func StartMariaDB(ctx context.Context, opts MariaDBOptions) (_ *MariaDB, err error) {
	if err := opts.applyDefaults(); err != nil {
		return nil, err
	}
	m := &MariaDB{opts: opts, log: newTailBuffer(logTailSize)}
	defer func() {
		if err != nil {
			m.removeDirs()
		}
	}()
	if m.opts.Datadir == "" {
		dir, err := os.MkdirTemp("", "lab-mariadb-")
		if err != nil {
			return nil, fmt.Errorf("lab: mariadb datadir: %w", err)
		}
		m.opts.Datadir = dir
		m.removes = append(m.removes, dir)
	}
	// A private tmpdir: mariadb-install-db and mariadbd create and remove
	// internal temporary tables there, and a shared /tmp (other servers,
	// other tests, tmp cleaners) once made an install fail with "Could not
	// remove temporary table ... error: 2" in a full CI run.
	tmpDir, err := os.MkdirTemp("", "lab-mdbtmp-")
	if err != nil {
		return nil, fmt.Errorf("lab: mariadb tmpdir: %w", err)
	}
	m.removes = append(m.removes, tmpDir)
	m.tmpDir = tmpDir
	if err := m.installDB(ctx); err != nil {
		return nil, err
	}
	socketDir := m.opts.Datadir
	if len(filepath.Join(socketDir, "mysqld.sock")) > maxSocketPath {
		dir, err := os.MkdirTemp("", "lab-mdb-")
		if err != nil {
			return nil, fmt.Errorf("lab: mariadb socket dir: %w", err)
		}
		socketDir = dir
		m.removes = append(m.removes, dir)
	}
	m.args = []string{
		"--no-defaults", // must be first: ignore /etc/mysql/my.cnf and ~/.my.cnf
		"--datadir=" + m.opts.Datadir,
		"--port=" + strconv.Itoa(m.opts.Port),
		"--bind-address=" + bindAddress(m.opts.WAN),
		"--socket=" + filepath.Join(socketDir, "mysqld.sock"),
		"--tmpdir=" + tmpDir,
		"--pid-file=" + filepath.Join(m.opts.Datadir, "mysqld.pid"),
		"--server-id=" + strconv.Itoa(m.opts.ServerID),
		// root@127.0.0.1 exists, and skipping reverse DNS keeps connects
		// fast and independent of /etc/hosts.
		"--skip-name-resolve",
	}
	if os.Geteuid() == 0 {
		// mariadbd refuses to run as root unless told to.
		m.args = append(m.args, "--user=root")
	}
	m.args = append(m.args, m.opts.ExtraArgs...)

	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.startLocked(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// installDB runs mariadb-install-db unless the datadir already holds the
// system schema.
func (m *MariaDB) installDB(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(m.opts.Datadir, "mysql")); err == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, installDBTimeout)
	defer cancel()
	args := []string{
		"--no-defaults",
		"--datadir=" + m.opts.Datadir,
		"--tmpdir=" + m.tmpDir,
		"--auth-root-authentication-method=normal",
		"--skip-test-db",
		"--skip-name-resolve",
	}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.CommandContext(ctx, m.opts.InstallDB, args...)
	cmd.Stdout = m.log
	cmd.Stderr = m.log
	cmd.WaitDelay = waitDelay
	m.opts.Logger.Debug("lab: mariadb-install-db", "datadir", m.opts.Datadir)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("lab: %s: %w\n%s", m.opts.InstallDB, err, tail(m.log.String(), 8<<10))
	}
	return nil
}

// startLocked starts mariadbd and waits for it to accept connections.
// REQUIRES: m.mu.
func (m *MariaDB) startLocked(ctx context.Context) error {
	var out io.Writer = m.log
	if m.opts.Stderr != nil {
		out = io.MultiWriter(m.log, m.opts.Stderr)
	}
	name, args := m.opts.Binary, m.args
	if w := m.opts.WAN; w != nil {
		name, args = w.ns.ipc, append([]string{"netns", "exec", w.Name(m.opts.Side), name}, args...)
	}
	proc, err := startProcess(name, args, m.opts.Env, out, m.opts.Logger)
	if err != nil {
		return err
	}
	m.mu.proc = proc
	m.pid.Store(int64(proc.pid()))
	if err := waitReady(ctx, proc, m.config(""), m.opts.StartTimeout); err != nil {
		killErr := proc.kill()
		return errors.Join(fmt.Errorf("%w\n--- mariadbd output (tail) ---\n%s", err, tail(m.log.String(), 8<<10)), killErr)
	}
	m.opts.Logger.Info("lab: mariadb ready", "port", m.opts.Port, "pid", proc.pid(), "datadir", m.opts.Datadir)
	return nil
}

// Stop shuts mariadbd down with SIGTERM (a clean InnoDB shutdown), waiting
// up to StopTimeout or ctx's deadline before SIGKILL, then removes the
// datadir if lab created it. It returns an error if the server had to be
// killed or exited non-zero. Stop after Kill just removes the directories;
// a second Stop returns nil.
func (m *MariaDB) Stop(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var err error
	if m.mu.proc != nil {
		err = m.mu.proc.stop(ctx, m.opts.StopTimeout)
	}
	if m.mu.proc == nil || m.mu.proc.exited() {
		m.removeDirs()
		m.mu.removed = true
	}
	return err
}

// Kill sends SIGKILL and waits until the process is gone, simulating a
// crash. The datadir is kept so Restart can run crash recovery; call Stop
// afterwards to remove a lab-created datadir.
func (m *MariaDB) Kill() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.proc == nil {
		return nil
	}
	return m.mu.proc.kill()
}

// Restart starts mariadbd again on the same datadir and port, stopping it
// cleanly first if it is running. It fails after Stop removed a
// lab-created datadir.
func (m *MariaDB) Restart(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.removed {
		return errors.New("lab: restart mariadb: datadir was removed by Stop")
	}
	if m.mu.proc != nil && !m.mu.proc.exited() {
		if err := m.mu.proc.stop(ctx, m.opts.StopTimeout); err != nil {
			return fmt.Errorf("lab: restart mariadb: %w", err)
		}
	}
	return m.startLocked(ctx)
}

func (m *MariaDB) removeDirs() {
	for _, dir := range m.removes {
		if err := os.RemoveAll(dir); err != nil {
			m.opts.Logger.Warn("lab: remove mariadb dir", "dir", dir, "err", err)
		}
	}
	m.removes = nil
}

// Port is the server's TCP port on 127.0.0.1.
func (m *MariaDB) Port() int { return m.opts.Port }

// Pid is the process id of the latest start.
func (m *MariaDB) Pid() int { return int(m.pid.Load()) }

// Datadir is the server's data directory.
func (m *MariaDB) Datadir() string { return m.opts.Datadir }

// Log returns the last 64 KiB of install-db's and the server's output.
func (m *MariaDB) Log() string { return m.log.String() }

// DSN is a go-sql-driver/mysql DSN for root (empty password) on db ("" for
// none), with connect, read and write timeouts set.
func (m *MariaDB) DSN(db string) string {
	return m.config(db).FormatDSN()
}

// Host is the address other servers use to reach this one: its WAN
// side's IP, or 127.0.0.1.
func (m *MariaDB) Host() string {
	if m.opts.WAN != nil {
		return m.opts.WAN.IP(m.opts.Side)
	}
	return "127.0.0.1"
}

// config is the client config for root on db, dialing through the WAN
// side's namespace when the server runs in one. The address stays the
// namespace's own 127.0.0.1: root exists only as root@127.0.0.1, and the
// clients of a benchmark should not cross the emulated line.
func (m *MariaDB) config(db string) *mysql.Config {
	cfg := clientConfig(m.opts.Port, "", db, m.opts.Logger)
	if m.opts.WAN != nil {
		cfg.Net = m.opts.WAN.dialNetwork(m.opts.Side)
	}
	return cfg
}

// bindAddress is 127.0.0.1, or every address of a WAN side's namespace.
func bindAddress(w *WAN) string {
	if w != nil {
		return "0.0.0.0"
	}
	return "127.0.0.1"
}

// DB opens a *sql.DB for root on db ("" for none). It does not connect;
// the caller closes it.
func (m *MariaDB) DB(db string) (*sql.DB, error) {
	return openDB(m.config(db))
}

// findTool returns name's path on PATH, else fallback (Debian puts server
// binaries in /usr/sbin, which is not on a normal user's PATH).
func findTool(name, fallback string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return fallback
}
