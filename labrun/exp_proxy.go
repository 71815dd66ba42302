package labrun

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"petrel/lab"
)

// Proxy (issue 34; bench/proxy.sh, package proxy): `petrel proxy` in front
// of a primary and two replicas. First point selects straight to one
// replica, then through the proxy (which spreads sessions over both):
// reads/s and p95. Then lag-bounded routing: one writer through the proxy,
// reader sessions through the proxy reading the newest row and the
// server that answered, while one replica's applier is stopped for a
// while: no session's read may go back in time, and no read may be staler
// than the proxy's lag bound (plus its check interval and a slack). The
// proxy is Petrel's for both systems: MariaDB has none of its own
// (MaxScale is not in Debian), and the proxy reads a MariaDB replica's lag
// from Seconds_Behind_Master.

func init() {
	register(&Experiment{
		Name: "proxy",
		Description: "`petrel proxy` in front of a primary and two replicas (the same proxy for both systems, MariaDB having none of its own): " +
			"point selects direct to a replica against through the proxy, then reader sessions through the proxy while one replica's applier " +
			"is stopped: no read goes back in time, none is staler than the proxy's lag bound.",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "reads", Title: "Point selects per second", Kind: Bars, YLabel: "reads/s", Categories: []string{"direct to a replica", "through the proxy"}},
			{ID: "p95", Title: "p95 point select latency", Kind: Bars, YLabel: "ms", Categories: []string{"direct to a replica", "through the proxy"}},
			{ID: "staleness", Title: "Staleness of reads through the proxy (largest per 0.25 s), replica1's applier stopped shaded", Kind: Lines, XLabel: "time (s)", YLabel: "ms"},
		},
		Trial: proxyTrial,
	})
}

const (
	// proxyMaxLag and proxyCheck are the proxy's --max-replication-lag
	// and --check-interval in the experiment.
	proxyMaxLag = 500 * time.Millisecond
	proxyCheck  = 100 * time.Millisecond
	// proxySlack is the staleness allowed beyond the lag bound and two
	// check intervals: a read's own round trip, a check's.
	proxySlack    = 300 * time.Millisecond
	proxyUser     = "px"
	proxyPassword = "px-pw"
	readTable     = LabDB + ".r"
	seqTable      = LabDB + ".seq"
)

func proxyTrial(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	c, err := t.Start(ctx, ClusterSpec{Replicas: 2})
	if err != nil {
		return err
	}
	rows := pick(m, 2000, 10000, 100000)
	if err := fillReadTable(ctx, c.PDB, rows); err != nil {
		return err
	}
	// Row 0: Petrel answers MAX over an empty table's primary key with
	// no row at all (MySQL: one row, NULL).
	if err := qExec(ctx, c.PDB, "CREATE TABLE "+seqTable+" (id BIGINT NOT NULL PRIMARY KEY)", "INSERT INTO "+seqTable+" VALUES (0)"); err != nil {
		return err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return err
	}
	var reps []int
	for _, r := range c.Replicas {
		reps = append(reps, r.Port())
	}
	// The proxy logs its clients in with the primary's accounts, and
	// cannot with a password-less one (MariaDB's root here): an account
	// of its own, the same on both systems.
	if err := qExec(ctx, c.PDB, fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", proxyUser, proxyPassword),
		fmt.Sprintf("GRANT ALL ON *.* TO '%s'@'%%'", proxyUser)); err != nil {
		return err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return err
	}
	args := []string{"--discover", "off", "--max-replication-lag", proxyMaxLag.String(), "--check-interval", proxyCheck.String(), "--log-level", "warn"}
	px, err := lab.StartProxy(ctx, lab.ProxyOptions{Binary: t.Env.PetrelBinary, Primary: c.Primary.Port(), Replicas: reps,
		User: proxyUser, RootPassword: proxyPassword, ExtraArgs: args, Logger: t.Env.Logger})
	if err != nil {
		return fmt.Errorf("petrel proxy: %w", err)
	}
	defer px.Stop(context.WithoutCancel(ctx))
	t.Command("proxy", "petrel proxy --port PORT --admin-port PORT --primary 127.0.0.1:PRIMARY --replicas 127.0.0.1:REPLICA1,127.0.0.1:REPLICA2 --monitor-user px --monitor-password *** "+strings.Join(args, " "))
	pdb, err := px.DB("")
	if err != nil {
		return err
	}
	defer pdb.Close()

	// Throughput: direct to replica1, then through the proxy.
	clients, dur := pick(m, 4, 8, 16), pick(m, time.Second, 3*time.Second, 10*time.Second)
	t.Command("reads", fmt.Sprintf("%d clients, each on its own connection: SELECT c, pad FROM %s WHERE id = RANDOM(1..%d) (text protocol) for %v direct to replica1, then through the proxy", clients, readTable, rows, dur))
	var tput, p95 []Point
	for i, db := range []*sql.DB{c.RDBs[0], pdb} {
		via := []string{"direct to a replica", "through the proxy"}[i]
		done := t.Phase("point selects "+via, dur)
		n, lat, err := pointSelects(ctx, db, clients, dur, rows)
		done()
		if err != nil {
			return fmt.Errorf("%s: %w", via, err)
		}
		rate, p := float64(n)/dur.Seconds(), percentileMs(lat, 95)
		tput, p95 = append(tput, Point{X: float64(i), Y: rate}), append(p95, Point{X: float64(i), Y: p})
		t.Metric(via+": reads/s", "reads/s", rate, false)
		t.Metric(via+": p95", "ms", p, true)
	}
	t.Series("reads", tput)
	t.Series("p95", p95)
	t.Metric("through the proxy / direct: reads/s", "ratio", tput[1].Y/max(tput[0].Y, 1e-9), false)

	// Lag-bounded routing.
	return boundedReads(ctx, t, c, pdb)
}

// fillReadTable creates the point-select table with n rows.
func fillReadTable(ctx context.Context, db *sql.DB, n int) error {
	if err := qExec(ctx, db, "CREATE TABLE "+readTable+" (id INT NOT NULL PRIMARY KEY, c INT NOT NULL, pad VARCHAR(120) NOT NULL)"); err != nil {
		return err
	}
	for lo := 1; lo <= n; lo += 500 {
		var b strings.Builder
		b.WriteString("INSERT INTO " + readTable + " (id, c, pad) VALUES ")
		for id := lo; id < lo+500 && id <= n; id++ {
			if id > lo {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "(%d, %d, '%s')", id, id%1000, padding)
		}
		if err := qExec(ctx, db, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// pointSelects runs clients, each on its own connection, selecting rows
// by random id for dur; it returns the reads done and their latencies.
func pointSelects(ctx context.Context, db *sql.DB, clients int, dur time.Duration, rows int) (int, []time.Duration, error) {
	db.SetMaxOpenConns(clients + 2)
	db.SetMaxIdleConns(clients + 2)
	conns := make([]*sql.Conn, 0, clients)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range clients {
		cctx, cancel := context.WithTimeout(ctx, queryTimeout)
		c, err := db.Conn(cctx)
		cancel()
		if err != nil {
			return 0, nil, err
		}
		conns = append(conns, c)
	}
	lctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var (
		mu   sync.Mutex
		lat  []time.Duration
		errs []error
		wg   sync.WaitGroup
	)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for lctx.Err() == nil {
				start := time.Now()
				qctx, qcancel := context.WithTimeout(ctx, queryTimeout)
				var v int
				var pad string
				err := c.QueryRowContext(qctx, "SELECT c, pad FROM "+readTable+" WHERE id = "+strconv.Itoa(1+rand.IntN(rows))).Scan(&v, &pad)
				qcancel()
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					break
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return len(lat), lat, fmt.Errorf("point select: %w", errs[0])
	}
	return len(lat), lat, ctx.Err()
}

func percentileMs(l []time.Duration, p float64) float64 {
	if len(l) == 0 {
		return 0
	}
	l = slices.Clone(l)
	slices.Sort(l)
	return float64(l[min(int(p/100*float64(len(l))), len(l)-1)]) / float64(time.Millisecond)
}

// seqRead is one read of the newest row through the proxy.
type seqRead struct {
	start    time.Duration // since the phase's start
	value    int64
	serverID int
}

// boundedReads is the lag-bounded routing phase.
func boundedReads(ctx context.Context, t *Trial, c *Cluster, pdb *sql.DB) error {
	m := t.Env.Mode
	readers, rate := 4, 200.0
	before, stall, after := pick(m, time.Second, 2*time.Second, 5*time.Second), pick(m, 3*time.Second, 5*time.Second, 10*time.Second), pick(m, 2*time.Second, 3*time.Second, 5*time.Second)
	total := before + stall + after
	t.Command("bounded reads", fmt.Sprintf("one writer through the proxy: INSERT INTO %s VALUES (n), n = 1, 2, ... at %.0f/s; %d reader sessions through the proxy: SELECT MAX(id), @@server_id FROM %s, 5 ms apart; "+
		"replica1: %s after %v, %s %v later; %v in all", seqTable, rate, readers, seqTable, c.f.stopApplier, before, c.f.startApplier, stall, total))
	done := t.Phase("reads through the proxy, replica1's applier stopped", total)
	defer done()
	pdb.SetMaxOpenConns(readers + 4)
	pdb.SetMaxIdleConns(readers + 4)
	lctx, cancel := context.WithTimeout(ctx, total)
	defer cancel()
	start := time.Now()
	var (
		acks   []time.Duration // acks[i]: id i+1 acknowledged
		werr   error
		wg     sync.WaitGroup
		mu     sync.Mutex
		reads  = make([][]seqRead, readers)
		rerrs  []error
		stallE error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		conn, err := pdb.Conn(lctx)
		if err != nil {
			werr = err
			return
		}
		defer conn.Close()
		interval := time.Duration(float64(time.Second) / rate)
		next := start
		for id := int64(1); lctx.Err() == nil; id++ {
			next = next.Add(interval)
			if d := time.Until(next); d > 0 && lab.Sleep(lctx, d) != nil {
				return
			}
			qctx, qcancel := context.WithTimeout(ctx, queryTimeout)
			_, err := conn.ExecContext(qctx, "INSERT INTO "+seqTable+" (id) VALUES ("+strconv.FormatInt(id, 10)+")")
			qcancel()
			if err != nil {
				werr = fmt.Errorf("writer: id %d: %w", id, err)
				return
			}
			at := time.Since(start)
			mu.Lock()
			acks = append(acks, at)
			mu.Unlock()
		}
	}()
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pdb.Conn(lctx)
			if err != nil {
				mu.Lock()
				rerrs = append(rerrs, err)
				mu.Unlock()
				return
			}
			defer conn.Close()
			for lctx.Err() == nil {
				at := time.Since(start)
				qctx, qcancel := context.WithTimeout(ctx, queryTimeout)
				var rd seqRead
				err := conn.QueryRowContext(qctx, "SELECT MAX(id), @@server_id FROM "+seqTable).Scan(&rd.value, &rd.serverID)
				qcancel()
				if err != nil {
					mu.Lock()
					rerrs = append(rerrs, fmt.Errorf("reader %d: %w", r+1, err))
					mu.Unlock()
					return
				}
				rd.start = at
				reads[r] = append(reads[r], rd)
				if lab.Sleep(lctx, 5*time.Millisecond) != nil {
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if lab.Sleep(lctx, before) != nil {
			return
		}
		if stallE = c.StopApplier(ctx, 0); stallE != nil {
			return
		}
		lab.Sleep(ctx, stall)
		stallE = c.StartApplier(ctx, 0)
	}()
	wg.Wait()
	if err := firstErr(stallE, werr); err != nil {
		return err
	}
	if len(rerrs) > 0 {
		return rerrs[0]
	}
	if len(acks) == 0 {
		return fmt.Errorf("the writer had no insert acknowledged")
	}

	// Judge every read.
	bound := proxyMaxLag + 2*proxyCheck + proxySlack
	stallFrom, stallTo := before+proxyMaxLag+2*proxyCheck+proxySlack, before+stall
	var (
		back, stale, nreads, fromStalled int
		maxStale                         time.Duration
		pts                              []Commit
		byServer                         = map[int]int{}
	)
	for _, rs := range reads {
		var prev int64
		for _, rd := range rs {
			nreads++
			byServer[rd.serverID]++
			if rd.value < prev {
				back++
			}
			prev = max(prev, rd.value)
			// Acknowledged before the read began: ids 1..n.
			n := int64(sort.Search(len(acks), func(i int) bool { return acks[i] > rd.start }))
			var st time.Duration
			if rd.value < n {
				st = rd.start - acks[rd.value] // the first id it missed
			}
			maxStale = max(maxStale, st)
			if st > bound {
				stale++
			}
			if rd.serverID == 2 && rd.start > stallFrom && rd.start < stallTo {
				fromStalled++
			}
			pts = append(pts, Commit{At: rd.start, Latency: st})
		}
	}
	if nreads == 0 {
		return fmt.Errorf("no read through the proxy")
	}
	t.Shade("staleness", Span{From: before.Seconds(), To: (before + stall).Seconds(), Label: "replica1 applier stopped"})
	t.Series("staleness", bucket(pts, 0.25, total.Seconds(), false))
	t.Metric("bounded: reads", "reads", float64(nreads), false)
	t.Metric("bounded: reads back in time", "reads", float64(back), true)
	t.Metric("bounded: largest staleness", "ms", float64(maxStale)/float64(time.Millisecond), true)
	t.Metric("bounded: reads staler than the bound", "reads", float64(stale), true)
	t.Metric("bounded: staleness bound (max lag + 2 checks + slack)", "ms", float64(bound)/float64(time.Millisecond), false)
	t.Metric("bounded: replica1 reads while stopped past the bound", "reads", float64(fromStalled), true)
	for i, role := range []string{"primary", "replica1", "replica2"} {
		t.Metric("bounded: reads served by "+role, "reads", float64(byServer[i+1]), false)
	}
	if back > 0 {
		return fmt.Errorf("%d reads through the proxy went back in time (a session saw an older newest row than before)", back)
	}
	return nil
}
