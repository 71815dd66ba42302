package lab

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// PetrelOptions configures StartPetrel.
type PetrelOptions struct {
	// Binary is the petrel executable. Default: BuildPetrel's result.
	Binary string
	// Datadir is passed as --datadir. Required: lab never deletes a Petrel
	// datadir, so that Stop/Kill followed by Restart keeps its data; use
	// t.TempDir() in tests.
	Datadir string
	// Port is passed as --port. Default: FreePort().
	Port int
	// ServerID is passed as --server-id. Default: 1.
	ServerID int
	// RootPassword is passed as --root-password when non-empty, and used
	// by DSN and DB. Default: "" (no password flag).
	RootPassword string
	// ExtraArgs are appended after the flags above.
	ExtraArgs []string
	// Command is the petrel subcommand: "server" (default) or "relay".
	Command string
	// Env is added to the server's environment (e.g. PETREL_FAILPOINTS).
	Env []string
	// Stderr, if set, also receives the server's output as it is written
	// (e.g. os.Stderr while debugging). Default: nil (only Log keeps it).
	Stderr io.Writer
	// StartTimeout bounds each start (Start and Restart) until a ping
	// succeeds. Default: 30s.
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits after SIGTERM before SIGKILL.
	// Default: 30s.
	StopTimeout time.Duration
	// Logger receives lab's own messages. Default: discard.
	Logger *slog.Logger
	// WAN, if set, runs the server inside side Side's namespace of WAN
	// (`ip netns exec`, same pid), listening on all of that namespace's
	// addresses (--bind-address 0.0.0.0): other servers reach it at
	// Host():Port(), processes inside the namespace at 127.0.0.1, and
	// DSN and DB connect through WAN.Dial from this process.
	WAN  *WAN
	Side int
}

func (o *PetrelOptions) applyDefaults(ctx context.Context) error {
	if o.Datadir == "" {
		return errors.New("lab: PetrelOptions.Datadir is required")
	}
	if o.ServerID == 0 {
		o.ServerID = 1
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 30 * time.Second
	}
	o.Logger = defaultLogger(o.Logger)
	if o.Port == 0 {
		port, err := FreePort()
		if err != nil {
			return err
		}
		o.Port = port
	}
	if o.Binary == "" {
		bin, err := BuildPetrel(ctx)
		if err != nil {
			return err
		}
		o.Binary = bin
	}
	return nil
}

// Petrel is a petrel server subprocess.
//
// Lifecycle methods (Stop, Kill, Restart) are serialised by a mutex; Log,
// Port, Pid, DSN and DB never block on them, so they are safe to call from
// any goroutine at any time.
type Petrel struct {
	opts PetrelOptions
	args []string
	log  *tailBuffer
	pid  atomic.Int64

	mu struct {
		sync.Mutex
		proc *process // nil before the first start
	}
}

// StartPetrel runs `petrel server ...` (or opts.Command) and waits until root can ping it.
// ctx bounds the start only; the server runs until Stop or Kill. On error
// the process has been killed, and the error includes its output.
func StartPetrel(ctx context.Context, opts PetrelOptions) (*Petrel, error) {
	if err := opts.applyDefaults(ctx); err != nil {
		return nil, err
	}
	cmd := opts.Command
	if cmd == "" {
		cmd = "server"
	}
	args := []string{cmd,
		"--datadir", opts.Datadir,
		"--port", strconv.Itoa(opts.Port),
		"--server-id", strconv.Itoa(opts.ServerID),
	}
	if opts.RootPassword != "" {
		args = append(args, "--root-password", opts.RootPassword)
	}
	if opts.WAN != nil {
		args = append(args, "--bind-address", "0.0.0.0")
	}
	args = append(args, opts.ExtraArgs...)
	p := &Petrel{opts: opts, args: args, log: newTailBuffer(logTailSize)}

	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.startLocked(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// startLocked starts the process and waits for it to accept connections.
// REQUIRES: p.mu.
func (p *Petrel) startLocked(ctx context.Context) error {
	var out io.Writer = p.log
	if p.opts.Stderr != nil {
		out = io.MultiWriter(p.log, p.opts.Stderr)
	}
	name, args := p.opts.Binary, p.args
	if w := p.opts.WAN; w != nil {
		name, args = w.ns.ipc, append([]string{"netns", "exec", w.Name(p.opts.Side), name}, args...)
	}
	proc, err := startProcess(name, args, p.opts.Env, out, p.opts.Logger)
	if err != nil {
		return err
	}
	p.mu.proc = proc
	p.pid.Store(int64(proc.pid()))
	cfg := p.config("")
	if err := waitReady(ctx, proc, cfg, p.opts.StartTimeout); err != nil {
		killErr := proc.kill()
		return errors.Join(fmt.Errorf("%w\n--- petrel output (tail) ---\n%s", err, tail(p.log.String(), 8<<10)), killErr)
	}
	p.opts.Logger.Info("lab: petrel ready", "port", p.opts.Port, "pid", proc.pid(), "datadir", p.opts.Datadir)
	return nil
}

// Stop sends SIGTERM and waits for the server to exit, up to StopTimeout or
// ctx's deadline, then SIGKILLs it. It returns an error if the server had
// to be killed or exited non-zero (including a crash before Stop). Calling
// Stop on a stopped or killed server returns nil.
func (p *Petrel) Stop(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.proc == nil {
		return nil
	}
	return p.mu.proc.stop(ctx, p.opts.StopTimeout)
}

// Kill sends SIGKILL and waits until the process is gone, simulating a
// crash. The datadir is left as the crash left it.
func (p *Petrel) Kill() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.proc == nil {
		return nil
	}
	return p.mu.proc.kill()
}

// Signal sends sig to the running server without waiting (Stop sends
// SIGTERM and waits); see Wait.
func (p *Petrel) Signal(sig os.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.proc == nil || p.mu.proc.exited() {
		return fmt.Errorf("lab: petrel is not running")
	}
	return p.mu.proc.cmd.Process.Signal(sig)
}

// Wait waits until the server process exits (or ctx ends) and returns its
// exit code (-1 if a signal ended it).
func (p *Petrel) Wait(ctx context.Context) (int, error) {
	p.mu.Lock()
	proc := p.mu.proc
	p.mu.Unlock()
	if proc == nil {
		return 0, fmt.Errorf("lab: petrel was never started")
	}
	select {
	case <-proc.done:
		return proc.cmd.ProcessState.ExitCode(), nil
	case <-ctx.Done():
		return 0, fmt.Errorf("lab: waiting for petrel (pid %d) to exit: %w", proc.pid(), ctx.Err())
	}
}

// SetEnv replaces Options.Env for the next Restart.
func (p *Petrel) SetEnv(env []string) {
	p.mu.Lock()
	p.opts.Env = env
	p.mu.Unlock()
}

// Restart starts the server again on the same datadir, port and flags and
// waits until it accepts connections. A running server is stopped first
// (cleanly, as Stop does).
func (p *Petrel) Restart(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.proc != nil && !p.mu.proc.exited() {
		if err := p.mu.proc.stop(ctx, p.opts.StopTimeout); err != nil {
			return fmt.Errorf("lab: restart petrel: %w", err)
		}
	}
	return p.startLocked(ctx)
}

// Port is the server's MySQL port.
func (p *Petrel) Port() int { return p.opts.Port }

// Pid is the process id of the latest start.
func (p *Petrel) Pid() int { return int(p.pid.Load()) }

// Datadir is the server's data directory.
func (p *Petrel) Datadir() string { return p.opts.Datadir }

// Log returns the last 64 KiB of the server's output, across restarts.
func (p *Petrel) Log() string { return p.log.String() }

// DSN is a go-sql-driver/mysql DSN for root on db ("" for none), with
// connect, read and write timeouts set.
func (p *Petrel) DSN(db string) string {
	return p.config(db).FormatDSN()
}

// Host is the address other servers use to reach this one: its WAN
// side's IP, or 127.0.0.1.
func (p *Petrel) Host() string {
	if p.opts.WAN != nil {
		return p.opts.WAN.IP(p.opts.Side)
	}
	return "127.0.0.1"
}

// config is the client config for root on db, dialing through the WAN
// side's namespace when the server runs in one.
func (p *Petrel) config(db string) *mysql.Config {
	cfg := clientConfig(p.opts.Port, p.opts.RootPassword, db, p.opts.Logger)
	if p.opts.WAN != nil {
		cfg.Net = p.opts.WAN.dialNetwork(p.opts.Side)
		cfg.Addr = net.JoinHostPort(p.Host(), strconv.Itoa(p.opts.Port))
	}
	return cfg
}

// DB opens a *sql.DB for root on db ("" for none). It does not connect;
// the caller closes it.
func (p *Petrel) DB(db string) (*sql.DB, error) {
	return openDB(p.config(db))
}
