package replica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/base"
	"petrel/internal/fsutil"
)

// The failover shell: the channel's source list (persisted in
// DATADIR/failover_sources.json), the receiver loop that follows the
// policy's decisions (failover.go), and the probes that read the other
// sources' progress.
//
// Observing another source: once a second (FailoverProbeInterval) the
// receiver's probe goroutine reads SELECT @@GLOBAL.gtid_executed from
// every other listed source, each on its own kept connection with a
// deadline of one interval (a source that does not answer in time is
// "unobserved" and its connection dropped). The heartbeat could not do
// it: it comes only from the current source.

// FailoverProbeInterval is how often the other sources' progress is read.
const FailoverProbeInterval = time.Second

// Errors of the source-list functions (MySQL's ER_UDF_ERROR, 3200) and of
// SOURCE_CONNECTION_AUTO_FAILOVER (MySQL's 3991 and 3993).
var (
	ErrFailoverSource               = errors.New("asynchronous connection failover")
	ErrFailoverNeedsAutoPosition    = errors.New("Failed to enable Asynchronous Replication Connection Failover feature. The CHANGE REPLICATION SOURCE TO SOURCE_CONNECTION_AUTO_FAILOVER = 1 can only be set when SOURCE_AUTO_POSITION option of CHANGE REPLICATION SOURCE TO is enabled.")
	ErrAutoPositionNeededByFailover = errors.New("The CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 0 cannot be executed because SOURCE_CONNECTION_AUTO_FAILOVER is enabled.")
)

// checkFailover holds CHANGE REPLICATION SOURCE to MySQL's rule: auto
// failover needs GTID auto-positioning. setFailover: the statement named
// SOURCE_CONNECTION_AUTO_FAILOVER (else it turned auto-positioning off).
func checkFailover(cfg Config, setFailover bool) error {
	if !cfg.AutoFailover || cfg.AutoPosition {
		return nil
	}
	if setFailover {
		return ErrFailoverNeedsAutoPosition
	}
	return ErrAutoPositionNeededByFailover
}

const failoverFile = "failover_sources.json"

// failoverState is the Replica's failover part. Safe for concurrent use.
type failoverState struct {
	mu     sync.Mutex
	loaded bool
	list   []FailoverSource
	// shell is the running receiver's policy (nil: none runs).
	shell *failoverShell
	lag   func() (int64, time.Duration)

	switches, lagSwitches atomic.Uint64
}

// SetFailoverLag names where the lag thresholds are read
// (replica_failover_lag_transactions, replica_failover_lag_seconds), at
// every probe.
func (r *Replica) SetFailoverLag(fn func() (int64, time.Duration)) {
	r.fo.mu.Lock()
	r.fo.lag = fn
	r.fo.mu.Unlock()
}

// FailoverSources returns the source list, in the order added.
func (r *Replica) FailoverSources() ([]FailoverSource, error) {
	r.fo.mu.Lock()
	defer r.fo.mu.Unlock()
	if err := r.loadSourcesLocked(); err != nil {
		return nil, err
	}
	return append([]FailoverSource(nil), r.fo.list...), nil
}

func (r *Replica) loadSourcesLocked() error {
	if r.fo.loaded {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(r.opts.Datadir, failoverFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(b, &r.fo.list); err != nil {
			return fmt.Errorf("replica: %s is corrupt: %v", failoverFile, err)
		}
	}
	r.fo.loaded = true
	return nil
}

func badSource(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFailoverSource, fmt.Sprintf(format, args...))
}

// AddSource is asynchronous_connection_failover_add_source(channel, host,
// port, network_namespace, weight). Petrel has the default channel only,
// and no network namespaces.
func (r *Replica) AddSource(channel, host string, port int, netns string, weight int) error {
	switch {
	case channel != "":
		return badSource("Petrel has only the default replication channel ''; %q does not exist", channel)
	case host == "":
		return badSource("the host must not be empty")
	case port < 1 || port > 65535:
		return badSource("invalid port %d", port)
	case netns != "":
		return badSource("network namespaces are not supported")
	case weight < 1 || weight > 100:
		return badSource("Invalid weight, please provide value between 1 and 100.")
	}
	s := FailoverSource{Host: host, Port: port, Weight: weight}
	return r.editSources(func(list []FailoverSource) ([]FailoverSource, error) {
		for _, o := range list {
			if o.Addr() == s.Addr() {
				return nil, badSource("the source %s is already in the source list of channel ''", s.Addr())
			}
		}
		return append(list, s), nil
	})
}

// DeleteSource is asynchronous_connection_failover_delete_source(channel,
// host, port, network_namespace).
func (r *Replica) DeleteSource(channel, host string, port int, netns string) error {
	if channel != "" {
		return badSource("Petrel has only the default replication channel ''; %q does not exist", channel)
	}
	addr := FailoverSource{Host: host, Port: port}.Addr()
	return r.editSources(func(list []FailoverSource) ([]FailoverSource, error) {
		for i, o := range list {
			if o.Addr() == addr && netns == "" {
				return append(list[:i:i], list[i+1:]...), nil
			}
		}
		return nil, badSource("the source %s is not in the source list of channel ''", addr)
	})
}

// editSources changes the list, saves it atomically and hands it to the
// running policy.
func (r *Replica) editSources(fn func([]FailoverSource) ([]FailoverSource, error)) error {
	r.fo.mu.Lock()
	defer r.fo.mu.Unlock()
	if err := r.loadSourcesLocked(); err != nil {
		return err
	}
	next, err := fn(append([]FailoverSource(nil), r.fo.list...))
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(next, "", "  ")
	if err := fsutil.WriteFileAtomic(filepath.Join(r.opts.Datadir, failoverFile), append(b, '\n'), 0o600); err != nil {
		return err
	}
	r.fo.list = next
	if sh := r.fo.shell; sh != nil {
		sh.mu.Lock()
		sh.core.SetSources(next)
		sh.mu.Unlock()
	}
	return nil
}

// FailoverCounters are the source switches since the server started
// (Petrel_replica_source_switches, Petrel_replica_source_lag_switches).
func (r *Replica) FailoverCounters() FailoverCounts {
	return FailoverCounts{Switches: r.fo.switches.Load(), LagSwitches: r.fo.lagSwitches.Load()}
}

// failoverShell is the running receiver's policy and the decision the
// probes made for it. Fields under mu.
type failoverShell struct {
	mu      sync.Mutex
	core    *Failover
	pending *FailoverDecision // a lag switch, taken when the link ends
	cancel  context.CancelFunc
}

// failoverLinkUp tells the running policy the link streams.
func (r *Replica) failoverLinkUp() {
	r.fo.mu.Lock()
	sh := r.fo.shell
	r.fo.mu.Unlock()
	if sh != nil {
		sh.mu.Lock()
		sh.core.Connected()
		sh.mu.Unlock()
	}
}

// sourceFatal reports whether an error means the source cannot serve this
// replica (move on without retrying it) rather than a link fault.
func sourceFatal(ie *ioError) bool {
	switch ie.errno {
	case ErrSourceFatal, ErrEqualServerIDs, ErrUnknownEvent:
		return true
	}
	return false
}

// runFailoverReceiver is the receiver with SOURCE_CONNECTION_AUTO_FAILOVER
// = 1: each link's end goes to the policy, which says whether to retry the
// source, switch, or give up; the probes may end a link to switch.
func (r *Replica) runFailoverReceiver(ctx context.Context, cfg Config) {
	list, err := r.FailoverSources()
	if err != nil {
		r.setIOError(ErrRelayLogFailure, "reading the failover source list: %v", err)
		return
	}
	start := FailoverSource{Host: cfg.Host, Port: cfg.Port}
	sh := &failoverShell{core: NewFailover(FailoverOptions{RetryCount: cfg.RetryCount, ConnectRetry: cfg.ConnectRetry}, start, list)}
	r.fo.mu.Lock()
	r.fo.shell = sh
	r.fo.mu.Unlock()
	defer func() {
		r.fo.mu.Lock()
		r.fo.shell = nil
		r.fo.mu.Unlock()
	}()
	probeCtx, stopProbes := context.WithCancel(ctx)
	probesDone := make(chan struct{})
	go func() {
		defer close(probesDone)
		r.runProbes(probeCtx, sh, cfg)
	}()
	defer func() {
		stopProbes()
		<-probesDone
	}()
	for {
		linkCtx, cancelLink := context.WithCancel(ctx)
		sh.mu.Lock()
		cur := sh.core.Current()
		sh.cancel = cancelLink
		sh.mu.Unlock()
		c := cfg
		c.Host, c.Port = cur.Host, cur.Port
		_, err := r.receiveOnce(linkCtx, c)
		cancelLink()
		if ctx.Err() != nil {
			return
		}
		var ie *ioError
		if !errors.As(err, &ie) {
			ie = ioErrorf(ErrNetRead, false, "%v", err)
		}
		r.mu.Lock()
		r.ioConnected = false
		r.mu.Unlock()
		if ie.fatal && !sourceFatal(ie) {
			r.setIOError(ie.errno, "%s", ie.msg)
			r.opts.Logger.Error("replica: receiver stopped", "errno", ie.errno, "error", ie.msg)
			return
		}
		sh.mu.Lock()
		var d FailoverDecision
		lag := sh.pending != nil
		if lag {
			d, sh.pending = *sh.pending, nil
		} else {
			d = sh.core.Failed(ie.fatal, ie.msg)
		}
		sh.mu.Unlock()
		if !lag {
			r.setIOError(ie.errno, "%s", ie.msg)
		}
		switch d.Action {
		case GiveUp:
			r.opts.Logger.Error("replica: receiver gave up", "source", cur.Addr(), "reason", d.Reason)
			return
		case Retry:
			r.opts.Logger.Warn("replica: link to source failed; reconnecting", "source", cur.Addr(), "retry_in", d.Wait, "reason", d.Reason)
			r.setIOState("Waiting to reconnect after a failed attempt")
		case Switch:
			r.fo.switches.Add(1)
			if lag {
				r.fo.lagSwitches.Add(1)
			}
			r.opts.Logger.Warn("replica: switching source", "from", cur.Addr(), "to", d.Target.Addr(), "weight", d.Target.Weight, "reason", d.Reason)
			if err := r.switchSource(d.Target); err != nil {
				r.setIOError(ErrRelayLogFailure, "recording the switch to %s: %v", d.Target.Addr(), err)
				r.opts.Logger.Error("replica: receiver stopped", "error", err)
				return
			}
		}
		if d.Wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-r.opts.Clock.After(d.Wait):
			}
		}
	}
}

// switchSource makes target the configured source (as MySQL rewrites the
// channel's host and port: SHOW REPLICA STATUS shows it, a restart
// reconnects to it) and marks the relay log's source position unknown,
// as CHANGE REPLICATION SOURCE does for another server: auto-positioning
// resumes by GTID.
func (r *Replica) switchSource(target FailoverSource) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg == nil {
		return nil
	}
	next := *r.cfg
	next.Host, next.Port = target.Host, target.Port
	if err := SaveConfig(r.opts.Datadir, &next); err != nil {
		return err
	}
	r.cfg = &next
	r.sourceFile, r.sourcePos = "", 0
	return r.relay.mark(sourcePos{})
}

// runProbes reads every other listed source's gtid_executed once per
// FailoverProbeInterval and asks the policy whether the current source
// lags; a switch ends the current link (the receiver loop takes it).
func (r *Replica) runProbes(ctx context.Context, sh *failoverShell, cfg Config) {
	conns := map[string]*mysql.Conn{}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.opts.Clock.After(FailoverProbeInterval):
		}
		r.fo.mu.Lock()
		lagFn := r.fo.lag
		r.fo.mu.Unlock()
		var lagTxns int64
		var lagFor time.Duration
		if lagFn != nil {
			lagTxns, lagFor = lagFn()
		}
		sh.mu.Lock()
		sh.core.SetThresholds(lagTxns, lagFor)
		cur := sh.core.Current().Addr()
		list := sh.core.Sources()
		sh.mu.Unlock()
		if lagTxns <= 0 {
			continue
		}
		for _, s := range list {
			if s.Addr() == cur {
				continue
			}
			set, err := r.probe(ctx, conns, s, cfg)
			sh.mu.Lock()
			if err != nil {
				sh.core.Unobserved(s.Addr())
			} else {
				sh.core.Observe(s.Addr(), set, r.opts.Clock.Now())
			}
			sh.mu.Unlock()
		}
		have := r.opts.Log.Executed()
		have.AddSet(r.relay.retrievedSet())
		sh.mu.Lock()
		if d := sh.core.Tick(r.opts.Clock.Now(), have); d.Action == Switch {
			sh.pending = &d
			if sh.cancel != nil {
				sh.cancel()
			}
		}
		sh.mu.Unlock()
	}
}

// probe reads one source's gtid_executed on its kept connection, bounded
// by FailoverProbeInterval; a failed connection is dropped.
func (r *Replica) probe(ctx context.Context, conns map[string]*mysql.Conn, s FailoverSource, cfg Config) (*base.GTIDSet, error) {
	c := conns[s.Addr()]
	if c == nil {
		cctx, cancel := context.WithTimeout(ctx, FailoverProbeInterval)
		var err error
		c, err = mysql.Connect(cctx, &mysql.ConnParams{
			Host: s.Host, Port: s.Port, Uname: cfg.User, Pass: cfg.Password,
			ConnectTimeoutMs: uint64(FailoverProbeInterval / time.Millisecond),
			SslMode:          cfg.SslMode(), SslCa: cfg.SSLCA, SslCert: cfg.SSLCert, SslKey: cfg.SSLKey,
			ServerName: s.Host,
		})
		cancel()
		if err != nil {
			return nil, err
		}
		conns[s.Addr()] = c
	}
	c.Conn.SetDeadline(time.Now().Add(FailoverProbeInterval)) // socket Deadline (wall-clock)
	res, err := c.ExecuteFetch("SELECT @@GLOBAL.gtid_executed", 1, false)
	if err == nil && len(res.Rows) != 1 {
		err = fmt.Errorf("no row")
	}
	if err != nil {
		c.Close()
		delete(conns, s.Addr())
		return nil, err
	}
	return base.ParseGTIDSet(strings.TrimSpace(res.Rows[0][0].ToString()))
}
