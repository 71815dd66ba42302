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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

const (
	// killWait bounds the wait for a process to disappear after SIGKILL.
	killWait = 10 * time.Second
	// pingInterval is the pause between readiness pings.
	pingInterval = 100 * time.Millisecond
	// pingTimeout bounds one readiness ping (dial, handshake, auth).
	pingTimeout = 2 * time.Second
	// waitDelay bounds how long Wait keeps copying output after the
	// process exits, in case something inherited its stdout.
	waitDelay = 5 * time.Second
)

// process is one run of a server binary. Its methods are called by one
// goroutine at a time (the owning server serialises them); done and err are
// written by the reaper goroutine and err is read only after done is closed.
type process struct {
	name   string
	cmd    *exec.Cmd
	done   chan struct{}
	err    error       // result of cmd.Wait; valid once done is closed
	killed atomic.Bool // we sent SIGKILL, so a signal exit is expected
}

// startProcess starts name with args, sending stdout and stderr to out.
// A reaper goroutine waits for the process; it ends when the process exits,
// which Stop or Kill (or, on Linux, our own death) guarantees.
func startProcess(name string, args, env []string, out io.Writer, logger *slog.Logger) (*process, error) {
	cmd := exec.Command(name, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = waitDelay
	logger.Debug("lab: starting process", "cmd", name, "args", args)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("lab: start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError is the process's exit error, or nil if it exited 0 or we
// killed it. Call only after done is closed.
func (p *process) exitError() error {
	if p.err == nil || p.killed.Load() {
		return nil
	}
	return fmt.Errorf("lab: %s (pid %d) exited: %w", p.name, p.pid(), p.err)
}

// stop sends SIGTERM and waits up to grace (or ctx) for a clean exit, then
// SIGKILLs. It returns an error if the process did not exit cleanly.
func (p *process) stop(ctx context.Context, grace time.Duration) error {
	if p.exited() {
		return p.exitError()
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("lab: SIGTERM %s (pid %d): %w", p.name, p.pid(), err)
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	var reason error
	select {
	case <-p.done:
		return p.exitError()
	case <-timer.C:
		reason = fmt.Errorf("lab: %s (pid %d) did not exit within %v of SIGTERM; sent SIGKILL", p.name, p.pid(), grace)
	case <-ctx.Done():
		reason = fmt.Errorf("lab: %s (pid %d) stop interrupted (%w); sent SIGKILL", p.name, p.pid(), ctx.Err())
	}
	return errors.Join(reason, p.kill())
}

// kill sends SIGKILL and waits (bounded by killWait) until the process has
// been reaped.
func (p *process) kill() error {
	if p.exited() {
		return nil
	}
	p.killed.Store(true)
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("lab: SIGKILL %s (pid %d): %w", p.name, p.pid(), err)
	}
	timer := time.NewTimer(killWait)
	defer timer.Stop()
	select {
	case <-p.done:
		return nil
	case <-timer.C:
		return fmt.Errorf("lab: %s (pid %d) still running %v after SIGKILL", p.name, p.pid(), killWait)
	}
}

// waitReady pings through connector until a ping succeeds, the process
// exits, or timeout (or ctx) expires.
func waitReady(ctx context.Context, p *process, cfg *mysql.Config, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return fmt.Errorf("lab: ping config: %w", err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()

	ticker := time.NewTicker(pingInterval)
	defer ticker.Stop()
	for {
		pctx, pcancel := context.WithTimeout(ctx, pingTimeout)
		lastErr := db.PingContext(pctx)
		pcancel()
		if lastErr == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("lab: %s exited before accepting connections (%v); last ping: %v", p.name, p.err, lastErr)
		case <-ctx.Done():
			return fmt.Errorf("lab: %s not accepting connections on %s after %v: %w (last ping: %v)", p.name, cfg.Addr, timeout, ctx.Err(), lastErr)
		case <-ticker.C:
		}
	}
}

// clientConfig is the go-sql-driver config for root on 127.0.0.1:port.
// Timeouts are set so that no client call blocks forever on the socket.
func clientConfig(port int, password, db string, logger *slog.Logger) *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Passwd = password
	cfg.Net = "tcp"
	cfg.Addr = fmt.Sprintf("127.0.0.1:%d", port)
	cfg.DBName = db
	cfg.Timeout = 5 * time.Second
	cfg.ReadTimeout = 60 * time.Second
	cfg.WriteTimeout = 60 * time.Second
	cfg.Logger = driverLogger{logger}
	return cfg
}

// openDB returns a *sql.DB for cfg; it does not connect.
func openDB(cfg *mysql.Config) (*sql.DB, error) {
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("lab: open %s: %w", cfg.Addr, err)
	}
	return sql.OpenDB(connector), nil
}

// driverLogger routes go-sql-driver's messages (e.g. the "unexpected EOF"
// it prints while a server is still starting) to the injected logger
// instead of the driver's global stderr logger.
type driverLogger struct{ l *slog.Logger }

func (d driverLogger) Print(v ...any) { d.l.Debug("lab: mysql driver: " + fmt.Sprint(v...)) }

func defaultLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// contextWithDefaultTimeout bounds ctx by d unless it already has a
// deadline, so that every wait in this package has one.
func contextWithDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
