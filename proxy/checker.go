package proxy

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"petrel/internal/base"
)

// checkLoop checks backend i every CheckInterval, each check bounded by
// CheckTimeout, and feeds the router. Checks never overlap: a slow one
// delays the next (and its age makes the router count the lag unknown).
func (s *Server) checkLoop(i int) {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.CheckInterval)
	defer t.Stop()
	for {
		smp := s.check(i)
		s.mu.Lock()
		c, changed := s.router.Observe(i, smp)
		s.mu.Unlock()
		if changed {
			s.logChange(c)
			if c.To == StateDown && i != Primary {
				// Reads waiting on a replica that stopped answering are
				// cut (and retried on the primary) rather than left to
				// their deadline. The primary's are not: a write's
				// outcome would become unknown.
				if n := s.pool.cutBackend(i); n > 0 {
					s.opts.Logger.Info("proxy: cut connections to a down replica", "backend", c.Name, "connections", n)
				}
			}
		}
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// tickLoop ages the router's samples.
func (s *Server) tickLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.CheckInterval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		cs := s.router.Tick(s.opts.Clock.Now())
		s.mu.Unlock()
		for _, c := range cs {
			s.logChange(c)
		}
		s.pool.closeIdle(false)
	}
}

// check measures backend i once.
func (s *Server) check(i int) Sample {
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.CheckTimeout)
	defer cancel()
	db := s.mon[i]
	smp := Sample{}
	if i == Primary {
		var one int
		smp.Err = db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
		smp.At = s.opts.Clock.Now()
		return smp
	}
	lag, known, err := replicaLag(ctx, db)
	if err == nil {
		var executed sql.NullString
		if db.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_executed").Scan(&executed) == nil && executed.Valid {
			if set, perr := base.ParseGTIDSet(executed.String); perr == nil {
				smp.Executed = set
			}
		}
	}
	if err == nil && ctx.Err() != nil {
		// An answer after the deadline is no measurement.
		err = ctx.Err()
	}
	smp.Lag, smp.LagKnown, smp.Err = lag, known, err
	smp.At = s.opts.Clock.Now()
	return smp
}

// replicaLag reads a replica's lag: Petrel's Replica_receive_lag and
// Replica_apply_lag (the larger; unknown when either is NULL), or, for a
// MySQL or MariaDB backend, SHOW REPLICA STATUS's Seconds_Behind_Source
// (unknown when NULL or when it is no replica).
func replicaLag(ctx context.Context, db *sql.DB) (time.Duration, bool, error) {
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS LIKE 'Replica\\_%\\_lag'")
	if err != nil {
		return 0, false, err
	}
	vals := map[string]sql.NullString{}
	for rows.Next() {
		var name string
		var v sql.NullString
		if err := rows.Scan(&name, &v); err != nil {
			rows.Close()
			return 0, false, err
		}
		vals[strings.ToLower(name)] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, err
	}
	recv, okR := vals["replica_receive_lag"]
	apply, okA := vals["replica_apply_lag"]
	if okR && okA {
		if !recv.Valid || !apply.Valid || recv.String == "" || apply.String == "" {
			return 0, false, nil
		}
		r, err1 := strconv.ParseFloat(recv.String, 64)
		a, err2 := strconv.ParseFloat(apply.String, 64)
		if err := errors.Join(err1, err2); err != nil {
			return 0, false, err
		}
		return time.Duration(max(r, a) * float64(time.Second)), true, nil
	}
	return secondsBehind(ctx, db)
}

func secondsBehind(ctx context.Context, db *sql.DB) (time.Duration, bool, error) {
	rows, err := db.QueryContext(ctx, "SHOW REPLICA STATUS")
	if err != nil {
		rows, err = db.QueryContext(ctx, "SHOW SLAVE STATUS")
		if err != nil {
			return 0, false, err
		}
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, false, err
	}
	if !rows.Next() {
		return 0, false, rows.Err()
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return 0, false, err
	}
	for i, c := range cols {
		if c == "Seconds_Behind_Source" || c == "Seconds_Behind_Master" {
			if !vals[i].Valid {
				return 0, false, nil
			}
			n, err := strconv.ParseFloat(vals[i].String, 64)
			if err != nil {
				return 0, false, err
			}
			return time.Duration(n * float64(time.Second)), true, nil
		}
	}
	return 0, false, nil
}
