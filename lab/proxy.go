package lab

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
)

// ProxyOptions configures StartProxy (`petrel proxy`).
type ProxyOptions struct {
	// Binary is the petrel executable. Default: BuildPetrel's result.
	Binary string
	// Port and AdminPort are passed as --port and --admin-port.
	// Default: FreePort() each.
	Port, AdminPort int
	// Primary and Replicas are the backends' ports on 127.0.0.1.
	Primary  int
	Replicas []int
	// RootPassword is the backends' root password: the proxy's monitor
	// account, and the account DB logs in with.
	RootPassword string
	// User, when set, replaces root as that account (with RootPassword
	// its password): e.g. an account with a password on MariaDB, whose
	// lab root has none, which the proxy cannot log in with.
	User string
	// ExtraArgs are appended after the flags above.
	ExtraArgs []string
	// Stderr, if set, also receives the proxy's output.
	Stderr io.Writer
	// StartTimeout bounds the start until root can ping through the
	// proxy. Default 30s.
	StartTimeout time.Duration
	// Logger receives lab's own messages. Default: discard.
	Logger *slog.Logger
}

// Proxy is a `petrel proxy` subprocess.
type Proxy struct {
	opts ProxyOptions
	log  *tailBuffer
	mu   sync.Mutex
	proc *process
}

// StartProxy runs `petrel proxy` and waits until root can ping through it.
func StartProxy(ctx context.Context, opts ProxyOptions) (*Proxy, error) {
	if opts.Primary == 0 {
		return nil, errors.New("lab: ProxyOptions.Primary is required")
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 30 * time.Second
	}
	opts.Logger = defaultLogger(opts.Logger)
	for _, p := range []*int{&opts.Port, &opts.AdminPort} {
		if *p == 0 {
			port, err := FreePort()
			if err != nil {
				return nil, err
			}
			*p = port
		}
	}
	if opts.Binary == "" {
		bin, err := BuildPetrel(ctx)
		if err != nil {
			return nil, err
		}
		opts.Binary = bin
	}
	var reps []string
	for _, r := range opts.Replicas {
		reps = append(reps, "127.0.0.1:"+strconv.Itoa(r))
	}
	args := []string{"proxy", "--port", strconv.Itoa(opts.Port), "--admin-port", strconv.Itoa(opts.AdminPort),
		"--primary", "127.0.0.1:" + strconv.Itoa(opts.Primary), "--replicas", strings.Join(reps, ","),
		"--monitor-user", opts.user(), "--monitor-password", opts.RootPassword}
	args = append(args, opts.ExtraArgs...)
	p := &Proxy{opts: opts, log: newTailBuffer(logTailSize)}
	var out io.Writer = p.log
	if opts.Stderr != nil {
		out = io.MultiWriter(p.log, opts.Stderr)
	}
	proc, err := startProcess(opts.Binary, args, nil, out, opts.Logger)
	if err != nil {
		return nil, err
	}
	p.proc = proc
	if err := waitReady(ctx, proc, p.config(""), opts.StartTimeout); err != nil {
		killErr := proc.kill()
		return nil, errors.Join(fmt.Errorf("%w\n--- proxy output (tail) ---\n%s", err, tail(p.log.String(), 8<<10)), killErr)
	}
	return p, nil
}

// Port is the clients' port; AdminPort the admin port.
func (p *Proxy) Port() int      { return p.opts.Port }
func (p *Proxy) AdminPort() int { return p.opts.AdminPort }

// Log returns the tail of the proxy's output.
func (p *Proxy) Log() string { return p.log.String() }

func (o ProxyOptions) user() string {
	if o.User == "" {
		return "root"
	}
	return o.User
}

// config is the client config for the proxy's account through it.
func (p *Proxy) config(db string) *mysql.Config {
	cfg := clientConfig(p.opts.Port, p.opts.RootPassword, db, p.opts.Logger)
	cfg.User = p.opts.user()
	return cfg
}

// DB opens a *sql.DB for root (User) through the proxy on db ("" for none).
func (p *Proxy) DB(db string) (*sql.DB, error) {
	return openDB(p.config(db))
}

// AdminDB opens a *sql.DB for root (User) on the admin port.
func (p *Proxy) AdminDB() (*sql.DB, error) {
	cfg := clientConfig(p.opts.AdminPort, p.opts.RootPassword, "", p.opts.Logger)
	cfg.User = p.opts.user()
	return openDB(cfg)
}

// Stop sends SIGTERM and waits (up to 10s or ctx) for the proxy to exit.
func (p *Proxy) Stop(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.proc.stop(ctx, 10*time.Second)
}
