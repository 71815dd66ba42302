package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"petrel/lab"
	"petrel/lab/benchkit"
	"petrel/labrun"
)

const (
	// password is root's on every node: labrun's Petrel nodes'.
	password = "petrel"
	benchDB  = "sbtest"
)

var sqlq = benchkit.Querier{Timeout: 30 * time.Second}

// startSite starts Petrel nodes across the lab's WAN through the lab's
// harness (labrun.StartCluster): a primary on side 0, replicas on side 1
// fed from the primary or, with relay, from one relay on side 1, the
// emulator impairing both directions with imp. The cluster is returned
// even on error so that the caller can read its logs and Close it.
func startSite(ctx context.Context, o Options, bin string, imp lab.Impairment, replicas int, relay bool, logger *slog.Logger) (*labrun.Cluster, error) {
	env := &labrun.Env{Logger: logger, PetrelBinary: bin}
	return labrun.StartCluster(ctx, env, labrun.ClusterSpec{
		System: "petrel", Replicas: replicas, Net: labrun.NetWAN, WAN: lab.WANOptions{AtoB: imp, BtoA: imp},
		Relay: relay, PetrelArgs: o.PetrelArgs, SourceOptions: o.SourceOptions,
	})
}

// closeSite stops every node and tears the WAN down, bounded.
func closeSite(c *labrun.Cluster) error {
	if c == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return c.Close(ctx)
}

// sysbench runs the workload on the primary from inside side 0.
func sysbench(ctx context.Context, o Options, c *labrun.Cluster, command string, d time.Duration) (lab.SysbenchResult, error) {
	return lab.RunSysbench(ctx, lab.SysbenchOptions{
		Workload: "oltp_write_only", Command: command, Port: c.Primary.Port(), Password: password,
		DB: benchDB, Tables: o.Tables, TableSize: o.TableSize, Threads: o.Threads,
		Duration: d, ExtraArgs: o.SysbenchArgs, WAN: c.WAN, Side: 0,
	})
}

// prepare creates and fills the sysbench tables on the primary.
func prepare(ctx context.Context, o Options, c *labrun.Cluster) error {
	if err := sqlq.Exec(ctx, c.PDB, "CREATE DATABASE IF NOT EXISTS "+benchDB); err != nil {
		return err
	}
	if _, err := sysbench(ctx, o, c, "prepare", 0); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	return nil
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

func (s *staleness) gtids(ctx context.Context, db *sql.DB) (int64, error) {
	set, err := sqlq.String(ctx, db, "SELECT @@GLOBAL.gtid_executed")
	if err != nil {
		return 0, err
	}
	return lab.GTIDCount(strings.ReplaceAll(set, "\n", ""), s.uuid)
}

// sample records the primary's count and returns each replica's
// staleness in seconds.
func (s *staleness) sample(ctx context.Context, primary *sql.DB, replicas []*sql.DB) ([]float64, error) {
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
func sampleStaleness(ctx context.Context, primary *sql.DB, replicas []*sql.DB, every time.Duration) ([]float64, error) {
	uuid, err := sqlq.String(ctx, primary, "SELECT @@GLOBAL.server_uuid")
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
