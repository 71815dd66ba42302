package labrun

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"petrel/lab"
)

// The lab's write load: clients each on their own connection, inserting
// rows with ids of their own (client*1e9 + n), one autocommit transaction
// per row, optionally paced to a total rate. Acknowledged ids are kept so
// that the durability experiment can look for every one of them.

// loadTable is the table the load writes.
const loadTable = LabDB + ".t"

// CreateLoadTable creates the load's table.
func CreateLoadTable(ctx context.Context, db *sql.DB) error {
	return qExec(ctx, db, "CREATE TABLE IF NOT EXISTS "+loadTable+" (id BIGINT NOT NULL PRIMARY KEY, c INT NOT NULL, pad VARCHAR(120) NOT NULL)")
}

// LoadOptions configures Load.
type LoadOptions struct {
	// Clients is the number of concurrent connections. Default 1.
	Clients int
	// Duration bounds the load; it also ends with ctx or Stop.
	Duration time.Duration
	// Rate paces the clients to this many commits per second in total
	// (0: as fast as they go).
	Rate float64
	// KeepAcked keeps every acknowledged id (durability).
	KeepAcked bool
	// IDBase offsets the ids, so that successive loads on one table do
	// not collide.
	IDBase int64
	// Failover are further servers a client tries in turn, after db,
	// when a statement fails (the failover experiment: the clients find
	// the new primary as an application with a list of hosts would; a
	// replica refuses writes).
	Failover []*sql.DB
}

// Commit is one acknowledged transaction.
type Commit struct {
	At      time.Duration // since the load's start, at the acknowledgement
	Latency time.Duration
}

// LoadResult is what a load did.
type LoadResult struct {
	Elapsed time.Duration
	Commits []Commit // in acknowledgement order per client, merged by At
	Errors  int64
	// FirstErr is the first statement error, for the report.
	FirstErr string
	Acked    []int64
}

// TPS is commits per second over the load.
func (r LoadResult) TPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(len(r.Commits)) / r.Elapsed.Seconds()
}

// Percentile is the p-th percentile (0-100) of the commit latencies, in ms.
func (r LoadResult) Percentile(p float64) float64 {
	if len(r.Commits) == 0 {
		return 0
	}
	l := make([]time.Duration, len(r.Commits))
	for i, c := range r.Commits {
		l[i] = c.Latency
	}
	slices.Sort(l)
	i := min(int(p/100*float64(len(l))), len(l)-1)
	return float64(l[i]) / float64(time.Millisecond)
}

// Load runs a load against db (the primary) until Duration or ctx ends
// it. Connections are opened before the clock starts. Statement errors (a
// killed primary) are counted, and the failing client pauses 50 ms and
// takes a new connection before its next attempt.
func Load(ctx context.Context, db *sql.DB, o LoadOptions) (LoadResult, error) {
	if o.Clients <= 0 {
		o.Clients = 1
	}
	pools := append([]*sql.DB{db}, o.Failover...)
	for _, p := range pools {
		p.SetMaxOpenConns(o.Clients + 4)
		p.SetMaxIdleConns(o.Clients + 4)
	}
	conns := make([]*sql.Conn, 0, o.Clients)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range o.Clients {
		cctx, cancel := context.WithTimeout(ctx, queryTimeout)
		c, err := db.Conn(cctx)
		cancel()
		if err != nil {
			return LoadResult{}, fmt.Errorf("open client %d of %d: %w", len(conns)+1, o.Clients, err)
		}
		conns = append(conns, c)
	}
	lctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	var interval time.Duration
	if o.Rate > 0 {
		interval = time.Duration(float64(time.Second) * float64(o.Clients) / o.Rate)
	}
	start := time.Now()
	var (
		mu       sync.Mutex
		res      LoadResult
		errCount atomic.Int64
		wg       sync.WaitGroup
	)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []Commit
			var acked []int64
			next := start
			at := 0 // the pool c came from
			for n := int64(1); lctx.Err() == nil; n++ {
				if interval > 0 {
					next = next.Add(interval)
					if d := time.Until(next); d > 0 && lab.Sleep(lctx, d) != nil {
						break
					}
				}
				id := o.IDBase + int64(i)*1_000_000_000 + n
				t := time.Now()
				// The statement's context is not the load's deadline: a
				// statement cut off at the deadline would leave a commit
				// in flight after the load, which the end-state check
				// would race.
				qctx, qcancel := context.WithTimeout(ctx, 30*time.Second)
				_, err := c.ExecContext(qctx, "INSERT INTO "+loadTable+" (id, c, pad) VALUES (?, ?, ?)", id, n%1000, padding)
				qcancel()
				if err != nil {
					if lctx.Err() != nil {
						break
					}
					if errCount.Add(1) == 1 {
						mu.Lock()
						res.FirstErr = err.Error()
						mu.Unlock()
					}
					if lab.Sleep(lctx, 50*time.Millisecond) != nil {
						break
					}
					// A connection to a server that died is dead for
					// good: take a new one (the pool dials again), from
					// the next server when there are several.
					c.Close()
					at = (at + 1) % len(pools)
					cctx, ccancel := context.WithTimeout(lctx, 5*time.Second)
					if nc, err := pools[at].Conn(cctx); err == nil {
						c = nc
						conns[i] = nc
					}
					ccancel()
					continue
				}
				now := time.Now()
				mine = append(mine, Commit{At: now.Sub(start), Latency: now.Sub(t)})
				if o.KeepAcked {
					acked = append(acked, id)
				}
			}
			mu.Lock()
			res.Commits = append(res.Commits, mine...)
			res.Acked = append(res.Acked, acked...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.Errors = errCount.Load()
	slices.SortFunc(res.Commits, func(a, b Commit) int { return int(a.At - b.At) })
	if len(res.Commits) == 0 && res.Errors > 0 {
		return res, errors.New("no commit succeeded: " + res.FirstErr)
	}
	return res, ctx.Err()
}

// padding is each row's filler, the size of sysbench's pad.
var padding = "lab-0123456789-0123456789-0123456789-0123456789-0123456789"
