package lab

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PetrelClusterOptions configures StartPetrelCluster (`petrel cluster`:
// a supervisor running a primary and replicas as its children, with
// automatic failover when asked).
type PetrelClusterOptions struct {
	// Binary is the petrel executable. Default: BuildPetrel's result.
	Binary string
	// Dir is passed as --datadir (node1, node2, ... and cluster.json).
	// Required.
	Dir string
	// BasePort is the primary's port; node i+1 listens on BasePort+i.
	// Default: FreePortRun(Replicas+1).
	BasePort int
	// Replicas is passed as --replicas. Default 2.
	Replicas int
	// RootPassword is every node's root password. Default "petrel".
	RootPassword string
	// ExtraArgs are appended (e.g. "--auto-failover").
	ExtraArgs []string
	// StartTimeout bounds the start until every node answers. Default 2m.
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits after SIGTERM (the supervisor
	// stops its nodes) before SIGKILL. Default 90s.
	StopTimeout time.Duration
	// Logger receives lab's own messages. Default: discard.
	Logger *slog.Logger
}

// PetrelCluster is a running `petrel cluster`.
type PetrelCluster struct {
	opts PetrelClusterOptions
	log  *tailBuffer
	pids *pidScanner
	proc *process
}

// StartPetrelCluster runs `petrel cluster` and waits until it has printed
// its connection details (every node started and wired) and every node
// answers a ping. On error the supervisor has been stopped.
func StartPetrelCluster(ctx context.Context, opts PetrelClusterOptions) (*PetrelCluster, error) {
	if opts.Dir == "" {
		return nil, errors.New("lab: PetrelClusterOptions.Dir is required")
	}
	if opts.Replicas <= 0 {
		opts.Replicas = 2
	}
	if opts.RootPassword == "" {
		opts.RootPassword = "petrel"
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = 90 * time.Second
	}
	opts.Logger = defaultLogger(opts.Logger)
	if opts.BasePort == 0 {
		base, err := FreePortRun(opts.Replicas + 1)
		if err != nil {
			return nil, err
		}
		opts.BasePort = base
	}
	if opts.Binary == "" {
		bin, err := BuildPetrel(ctx)
		if err != nil {
			return nil, err
		}
		opts.Binary = bin
	}
	args := append([]string{"cluster", "--datadir", opts.Dir, "--base-port", strconv.Itoa(opts.BasePort),
		"--replicas", strconv.Itoa(opts.Replicas), "--root-password", opts.RootPassword, "--log-level", "info"}, opts.ExtraArgs...)
	c := &PetrelCluster{opts: opts, log: newTailBuffer(logTailSize), pids: &pidScanner{pids: map[string]int{}}}
	proc, err := startProcess(opts.Binary, args, nil, io.MultiWriter(c.log, c.pids), opts.Logger)
	if err != nil {
		return nil, err
	}
	c.proc = proc
	if err := c.waitReady(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("%w\n--- petrel cluster output (tail) ---\n%s", err, tail(c.log.String(), 8<<10)), proc.kill())
	}
	return c, nil
}

// waitReady waits for the banner `petrel cluster` prints once every node
// is wired, then pings every node.
func (c *PetrelCluster) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	tick := time.NewTicker(pingInterval)
	defer tick.Stop()
	for !strings.Contains(c.log.String(), "(Ctrl-C stops them)") {
		select {
		case <-c.proc.done:
			return fmt.Errorf("lab: petrel cluster exited before it was ready: %v", c.proc.err)
		case <-ctx.Done():
			return fmt.Errorf("lab: petrel cluster not ready after %v: %w", c.opts.StartTimeout, ctx.Err())
		case <-tick.C:
		}
	}
	for i := range c.opts.Replicas + 1 {
		if err := waitReady(ctx, c.proc, clientConfig(c.Port(i), c.opts.RootPassword, "", c.opts.Logger), c.opts.StartTimeout); err != nil {
			return fmt.Errorf("node%d: %w", i+1, err)
		}
	}
	return nil
}

// Nodes is the number of nodes (the primary and the replicas).
func (c *PetrelCluster) Nodes() int { return c.opts.Replicas + 1 }

// Name is node i's name (0-based: node1 is the first primary).
func (c *PetrelCluster) Name(i int) string { return "node" + strconv.Itoa(i+1) }

// Port is node i's port.
func (c *PetrelCluster) Port(i int) int { return c.opts.BasePort + i }

// Datadir is node i's datadir.
func (c *PetrelCluster) Datadir(i int) string { return filepath.Join(c.opts.Dir, c.Name(i)) }

// Pid is node i's newest process id, as the supervisor logged it (0 if
// none yet).
func (c *PetrelCluster) Pid(i int) int { return c.pids.pid(c.Name(i)) }

// DB opens a *sql.DB for root on node i's db ("" for none).
func (c *PetrelCluster) DB(i int, db string) (*sql.DB, error) {
	return openDB(clientConfig(c.Port(i), c.opts.RootPassword, db, c.opts.Logger))
}

// Log returns the tail of the supervisor's output (its nodes write their
// own logs under Dir).
func (c *PetrelCluster) Log() string { return c.log.String() }

// ClusterChange is one role change cluster.json records.
type ClusterChange struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"`
	From string    `json:"from"`
	To   string    `json:"to"`
	Why  string    `json:"why"`
}

// State reads cluster.json: the primary's node index and the role
// changes so far, oldest first.
func (c *PetrelCluster) State() (primary int, changes []ClusterChange, err error) {
	b, err := os.ReadFile(filepath.Join(c.opts.Dir, "cluster.json"))
	if err != nil {
		return 0, nil, fmt.Errorf("lab: petrel cluster state: %w", err)
	}
	var st struct {
		Primary string          `json:"primary"`
		Changes []ClusterChange `json:"changes"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return 0, nil, fmt.Errorf("lab: petrel cluster state: %w", err)
	}
	if st.Primary == "" {
		return 0, st.Changes, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(st.Primary, "node"))
	if err != nil || n < 1 || n > c.Nodes() {
		return 0, nil, fmt.Errorf("lab: petrel cluster state names primary %q", st.Primary)
	}
	return n - 1, st.Changes, nil
}

// Kill sends SIGKILL to node i (the supervisor sees it die).
func (c *PetrelCluster) Kill(i int) error {
	pid := c.Pid(i)
	if pid <= 0 {
		return fmt.Errorf("lab: no pid logged for %s", c.Name(i))
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// Stop sends SIGTERM (the supervisor stops its nodes) and waits up to
// StopTimeout or ctx, then SIGKILLs it (its nodes die with it).
func (c *PetrelCluster) Stop(ctx context.Context) error {
	return c.proc.stop(ctx, c.opts.StopTimeout)
}

// startedLine is the supervisor's log line for a node it started.
var startedLine = regexp.MustCompile(`msg="cluster: started" node=(\S+) port=\d+ pid=(\d+)`)

// pidScanner keeps the newest pid logged for each node, from whole lines
// of the supervisor's output.
type pidScanner struct {
	mu      sync.Mutex
	partial []byte
	pids    map[string]int
}

func (s *pidScanner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		if m := startedLine.FindSubmatch(s.partial[:i]); m != nil {
			if pid, err := strconv.Atoi(string(m[2])); err == nil {
				s.pids[string(m[1])] = pid
			}
		}
		s.partial = s.partial[i+1:]
	}
	if len(s.partial) > 64<<10 {
		s.partial = s.partial[:0]
	}
	return len(p), nil
}

func (s *pidScanner) pid(node string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pids[node]
}
