package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"petrel/lab"
	"petrel/lab/benchkit"
)

const (
	password     = "petrel"
	benchDB      = "sbtest"
	startTimeout = 2 * time.Minute
	stopTimeout  = 30 * time.Second
)

var sqlq = benchkit.Querier{Timeout: 30 * time.Second}

// node is one Petrel server on a WAN side.
type node struct {
	name string
	srv  *lab.Petrel
	db   *sql.DB
}

// site is a WAN and the Petrel servers running on its two sides; close
// stops them, removes their datadirs and tears the WAN down.
type site struct {
	w      *lab.WAN
	bin    string
	logger *slog.Logger
	nodes  []*node
	dirs   []string
}

func newSite(ctx context.Context, bin string, imp lab.Impairment, logger *slog.Logger) (*site, error) {
	w, err := lab.NewWAN(ctx, lab.WANOptions{AtoB: imp, BtoA: imp})
	if err != nil {
		return nil, err
	}
	return &site{w: w, bin: bin, logger: logger}, nil
}

// start runs `petrel <command>` on side with server id id.
func (s *site) start(ctx context.Context, name, command string, side, id int, extra []string) (*node, error) {
	dir, err := os.MkdirTemp("", "bench-fanout-")
	if err != nil {
		return nil, err
	}
	s.dirs = append(s.dirs, dir)
	srv, err := lab.StartPetrel(ctx, lab.PetrelOptions{
		Binary: s.bin, Datadir: dir, ServerID: id, RootPassword: password, Command: command,
		ExtraArgs: extra, StartTimeout: startTimeout, StopTimeout: stopTimeout,
		Logger: s.logger.With("node", name), WAN: s.w, Side: side,
	})
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	db, err := srv.DB("")
	if err != nil {
		return nil, errors.Join(err, srv.Kill())
	}
	n := &node{name: name, srv: srv, db: db}
	s.nodes = append(s.nodes, n)
	return n, nil
}

// replicate points n at src by GTID as root, with the source options
// extra, and starts it.
func replicate(ctx context.Context, n, src *node, extra string) error {
	return sqlq.Exec(ctx, n.db, fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='%s', SOURCE_PORT=%d, "+
		"SOURCE_USER='root', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1%s",
		src.srv.Host(), src.srv.Port(), password, extra), "START REPLICA")
}

// logs returns the tails of every server's output.
func (s *site) logs() string {
	var b strings.Builder
	for _, n := range s.nodes {
		fmt.Fprintf(&b, "--- %s ---\n%s\n", n.name, benchkit.LastLines(n.srv.Log(), 20))
	}
	return b.String()
}

func (s *site) close(ctx context.Context) error {
	var errs []error
	for i := len(s.nodes) - 1; i >= 0; i-- {
		n := s.nodes[i]
		n.db.Close()
		if err := n.srv.Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", n.name, err))
		}
	}
	for _, d := range s.dirs {
		errs = append(errs, os.RemoveAll(d))
	}
	return errors.Join(append(errs, s.w.Close())...)
}

// sysbench runs the workload on the primary from inside side 0.
func sysbench(ctx context.Context, o Options, primary *node, w *lab.WAN, command string, d time.Duration) (lab.SysbenchResult, error) {
	return lab.RunSysbench(ctx, lab.SysbenchOptions{
		Workload: "oltp_write_only", Command: command, Port: primary.srv.Port(), Password: password,
		DB: benchDB, Tables: o.Tables, TableSize: o.TableSize, Threads: o.Threads,
		Duration: d, ExtraArgs: o.SysbenchArgs, WAN: w, Side: 0,
	})
}

// prepare creates and fills the sysbench tables on the primary.
func prepare(ctx context.Context, o Options, primary *node, w *lab.WAN) error {
	if err := sqlq.Exec(ctx, primary.db, "CREATE DATABASE IF NOT EXISTS "+benchDB); err != nil {
		return err
	}
	if _, err := sysbench(ctx, o, primary, w, "prepare", 0); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	return nil
}

func gtidExecuted(ctx context.Context, n *node) (string, error) {
	s, err := sqlq.String(ctx, n.db, "SELECT @@GLOBAL.gtid_executed")
	return strings.ReplaceAll(s, "\n", ""), err
}

// waitEqual waits until every replica's gtid_executed equals the
// primary's, or timeout; the error names the ones behind.
func waitEqual(ctx context.Context, primary *node, replicas []*node, timeout time.Duration) error {
	want, err := gtidExecuted(ctx, primary)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		var behind []string
		for _, r := range replicas {
			got, err := gtidExecuted(ctx, r)
			if err != nil {
				return err
			}
			if got != want {
				behind = append(behind, fmt.Sprintf("%s at %q", r.name, got))
			}
		}
		if len(behind) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v the primary is at %q and %s", timeout, want, strings.Join(behind, ", "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// percentile returns the p-th percentile (0..100) of xs by nearest rank.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	i = max(0, min(i, len(s)-1))
	return s[i]
}

// staleness samples how far replicas are behind the primary in time:
// every interval it reads the primary's transaction count (uuid:1-N of
// gtid_executed) and then each replica's; a replica at count c is as
// stale as the oldest transaction it lacks, i.e. now minus the first
// sample at which the primary's count exceeded c (0 when it has them
// all). The resolution is the interval; a replica behind from before the
// first sample is measured from that sample.
type staleness struct {
	uuid  string
	times []time.Time
	count []int64 // the primary's count at times[i], nondecreasing
}

func (s *staleness) gtids(ctx context.Context, n *node) (int64, error) {
	set, err := gtidExecuted(ctx, n)
	if err != nil {
		return 0, err
	}
	return lab.GTIDCount(set, s.uuid)
}

// sample records the primary's count and returns each replica's
// staleness in seconds.
func (s *staleness) sample(ctx context.Context, primary *node, replicas []*node) ([]float64, error) {
	pc, err := s.gtids(ctx, primary)
	if err != nil {
		return nil, err
	}
	s.times, s.count = append(s.times, time.Now()), append(s.count, pc)
	out := make([]float64, 0, len(replicas))
	for _, r := range replicas {
		rc, err := s.gtids(ctx, r)
		if err != nil {
			return nil, err
		}
		i := s.firstAbove(rc)
		if i == len(s.count) {
			out = append(out, 0)
			continue
		}
		out = append(out, time.Since(s.times[i]).Seconds())
	}
	return out, nil
}

// firstAbove is the first sample whose primary count exceeds c, or
// len(count) if none does.
func (s *staleness) firstAbove(c int64) int {
	return sort.Search(len(s.count), func(i int) bool { return s.count[i] > c })
}

// sampleStaleness samples every interval until ctx ends and returns all
// replicas' samples pooled.
func sampleStaleness(ctx context.Context, primary *node, replicas []*node, every time.Duration) ([]float64, error) {
	uuid, err := sqlq.String(ctx, primary.db, "SELECT @@GLOBAL.server_uuid")
	if err != nil {
		return nil, err
	}
	s := &staleness{uuid: uuid}
	var lags []float64
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return lags, nil
		case <-t.C:
		}
		l, err := s.sample(ctx, primary, replicas)
		if ctx.Err() != nil {
			return lags, nil
		}
		if err != nil {
			return lags, err
		}
		lags = append(lags, l...)
	}
}
