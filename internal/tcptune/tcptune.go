// Package tcptune sets the TCP options of one replication socket: the
// congestion control algorithm (per socket, with setsockopt TCP_CONGESTION,
// so nothing kernel-wide changes), keepalives and TCP_NODELAY. Both ends of
// a replication link call Apply: the replica on the socket it dials, the
// source on the socket a dump request arrives on.
//
// The seeds' WAN links lose packets; a loss-based algorithm (CUBIC, Reno)
// halves its window at every loss and cannot fill a long lossy path, BBR
// paces at the measured bottleneck rate and does not. Petrel therefore asks
// for BBR by default where the kernel has it (DefaultCongestionControl).
package tcptune

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// Options are the TCP settings of a replication socket.
type Options struct {
	// CongestionControl names the algorithm ("bbr", "cubic", "reno"); ""
	// keeps the kernel's default.
	CongestionControl string
	// KeepAliveIdle is the idle time before the first keepalive probe; 0
	// leaves keepalives as the socket has them.
	KeepAliveIdle time.Duration
	// KeepAliveInterval and KeepAliveCount bound how long an unanswered
	// probe sequence lasts before the kernel resets the connection (0: the
	// kernel's defaults).
	KeepAliveInterval time.Duration
	KeepAliveCount    int
	// NoDelay sets TCP_NODELAY: small packets (acks, heartbeats, a commit
	// group's tail) are not held back by Nagle's algorithm.
	NoDelay bool
}

// Result says what Apply did.
type Result struct {
	// CongestionControl is the algorithm the socket uses after Apply, read
	// back from the kernel ("" when it cannot be read).
	CongestionControl string
	// Fallback is set when the requested algorithm could not be set (not
	// built into the kernel, or not allowed for this process): the socket
	// keeps the kernel's default, and Reason says why.
	Fallback bool
	Reason   error
}

// ErrNotTCP is returned by Apply for a connection with no TCP socket under
// it (a unix socket, an in-memory pipe in a test).
var ErrNotTCP = errors.New("tcptune: not a TCP connection")

// Apply sets o on the TCP socket under c. c may wrap the socket: Apply
// follows NetConn() (crypto/tls, and Petrel's connection wrappers). A
// congestion control the kernel refuses is not an error: the result says
// Fallback. Other failures are returned.
func Apply(c net.Conn, o Options) (Result, error) {
	tc, ok := unwrap(c)
	if !ok {
		return Result{}, ErrNotTCP
	}
	if o.NoDelay {
		if err := tc.SetNoDelay(true); err != nil {
			return Result{}, fmt.Errorf("tcptune: TCP_NODELAY: %w", err)
		}
	}
	if o.KeepAliveIdle > 0 {
		cfg := net.KeepAliveConfig{Enable: true, Idle: o.KeepAliveIdle, Interval: o.KeepAliveInterval, Count: o.KeepAliveCount}
		if cfg.Interval == 0 {
			cfg.Interval = -1
		}
		if cfg.Count == 0 {
			cfg.Count = -1
		}
		if err := tc.SetKeepAliveConfig(cfg); err != nil {
			return Result{}, fmt.Errorf("tcptune: keepalive: %w", err)
		}
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return Result{}, fmt.Errorf("tcptune: %w", err)
	}
	var res Result
	if o.CongestionControl != "" {
		if err := setCongestion(raw, o.CongestionControl); err != nil {
			res.Fallback, res.Reason = true, err
		}
	}
	res.CongestionControl, _ = congestion(raw)
	return res, nil
}

// Congestion returns the congestion control algorithm of the TCP socket
// under c.
func Congestion(c net.Conn) (string, error) {
	tc, ok := unwrap(c)
	if !ok {
		return "", ErrNotTCP
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return "", err
	}
	return congestion(raw)
}

func unwrap(c net.Conn) (*net.TCPConn, bool) {
	for range 8 { // wrappers nest a few deep at most
		switch v := c.(type) {
		case *net.TCPConn:
			return v, true
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil, false
		}
	}
	return nil, false
}

// Procfs files describing the kernel's algorithms (Linux).
const (
	availableFile = "/proc/sys/net/ipv4/tcp_available_congestion_control"
	allowedFile   = "/proc/sys/net/ipv4/tcp_allowed_congestion_control"
	defaultFile   = "/proc/sys/net/ipv4/tcp_congestion_control"
)

// Kernel describes what the kernel offers. Read it with ReadKernel; tests
// build one by hand.
type Kernel struct {
	Available []string // algorithms built in or loaded
	Allowed   []string // algorithms an unprivileged process may choose
	Default   string   // the default for new sockets
	// Privileged: this process may choose any available algorithm
	// (CAP_NET_ADMIN; root here).
	Privileged bool
}

// ReadKernel reads the kernel's algorithms from procfs.
func ReadKernel() (Kernel, error) {
	var k Kernel
	var err error
	if k.Available, err = readList(availableFile); err != nil {
		return k, err
	}
	k.Allowed, _ = readList(allowedFile)
	def, err := readList(defaultFile)
	if err != nil {
		return k, err
	}
	if len(def) > 0 {
		k.Default = def[0]
	}
	k.Privileged = os.Geteuid() == 0
	return k, nil
}

func readList(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tcptune: %w", err)
	}
	return strings.Fields(string(b)), nil
}

// Usable says whether a socket of this process can use algorithm name.
func (k Kernel) Usable(name string) bool {
	if !contains(k.Available, name) {
		return false
	}
	return k.Privileged || name == k.Default || contains(k.Allowed, name)
}

// Preferred is the algorithm Petrel asks for on replication sockets.
const Preferred = "bbr"

// DefaultCongestionControl picks the default of
// replication_tcp_congestion_control: BBR when this process can use it,
// else the kernel's default, with the reason for the fallback (nil when
// BBR is used) for the one log line that reports it.
func (k Kernel) DefaultCongestionControl() (string, error) {
	if k.Usable(Preferred) {
		return Preferred, nil
	}
	why := "not available in this kernel (tcp_available_congestion_control: " + strings.Join(k.Available, " ") + ")"
	if contains(k.Available, Preferred) {
		why = "not allowed for this process (tcp_allowed_congestion_control: " + strings.Join(k.Allowed, " ") + ")"
	}
	return k.Default, fmt.Errorf("TCP congestion control %s %s; replication sockets use the kernel default %s", Preferred, why, k.Default)
}

// Check validates a value for replication_tcp_congestion_control: an
// algorithm this process can use on its sockets.
func (k Kernel) Check(name string) error {
	if k.Usable(name) {
		return nil
	}
	if !contains(k.Available, name) {
		return fmt.Errorf("TCP congestion control %q is not available in this kernel (available: %s)", name, strings.Join(k.Available, " "))
	}
	return fmt.Errorf("TCP congestion control %q is not allowed for this process (allowed: %s)", name, strings.Join(k.Allowed, " "))
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// errNoSockopt is returned where the platform has no TCP_CONGESTION.
var errNoSockopt = errors.New("tcptune: TCP_CONGESTION is not supported on this platform")

func control(raw syscall.RawConn, f func(fd uintptr) error) error {
	var ferr error
	if err := raw.Control(func(fd uintptr) { ferr = f(fd) }); err != nil {
		return err
	}
	return ferr
}
