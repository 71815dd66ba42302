package proxy

import (
	"context"
	"database/sql"
	"errors"
	"net"
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
		s.mu.Lock()
		db, gen, name, site := s.mon[i], s.slotGen[i], s.router.backends[i].Name, s.router.backends[i].Site
		s.mu.Unlock()
		smp := s.check(i, db)
		if s.opts.Discover && smp.Err == nil {
			s.discover(i, db, name, site)
		}
		s.mu.Lock()
		if s.slotGen[i] != gen {
			// A promotion moved another backend into this slot while
			// this one was checked.
			s.mu.Unlock()
			continue
		}
		c, changed := s.router.Observe(i, smp)
		promo, promoted := s.router.Promotion()
		if promoted {
			s.swapSlots(Primary, promo.Promoted)
		}
		s.mu.Unlock()
		if promoted {
			s.logChange(promo)
			s.pool.swap(Primary, promo.Promoted)
		}
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
		s.pool.releaseHeld(s.opts.HoldIdle)
		s.pool.closeIdle(false)
		if s.layout != nil {
			s.followLayout()
		}
	}
}

// discover adds the replicas registered on backend i (named name, at
// site): the primary's are the primary site's, a relay's its own.
func (s *Server) discover(i int, db *sql.DB, name string, site int) {
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.CheckTimeout)
	defer cancel()
	host, _, err := net.SplitHostPort(name)
	if err != nil {
		return
	}
	addrs, err := registered(ctx, db, host)
	if err != nil {
		s.opts.Logger.Debug("proxy: SHOW REPLICAS", "backend", name, "err", err)
		return
	}
	if i == Primary {
		site = 0
	}
	for _, a := range addrs {
		s.mu.Lock()
		known := s.router.Index(a) >= 0
		s.mu.Unlock()
		if !known {
			s.addReplica(a, site, "SHOW REPLICAS on "+name)
		}
	}
}

// swapSlots exchanges the server's per-slot state (a promotion).
// REQUIRES: s.mu.
func (s *Server) swapSlots(i, j int) {
	s.mon[i], s.mon[j] = s.mon[j], s.mon[i]
	s.slotGen[i]++
	s.slotGen[j]++
	s.accts.setDB(s.mon[Primary])
}

// check measures the backend behind db once (slot i).
func (s *Server) check(i int, db *sql.DB) Sample {
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.CheckTimeout)
	defer cancel()
	smp := Sample{}
	if i == Primary {
		// Its read_only settings: a primary a switchover demoted answers
		// read-only (Router.Promotion follows the replica promoted).
		var ro sql.NullInt64
		smp.Err = db.QueryRowContext(ctx, "SELECT @@GLOBAL.read_only").Scan(&ro)
		smp.Writable = ro.Valid && ro.Int64 == 0
		if smp.Err == nil && smp.Writable {
			var sro sql.NullInt64
			// MariaDB has no super_read_only: an error leaves it writable.
			if db.QueryRowContext(ctx, "SELECT @@GLOBAL.super_read_only").Scan(&sro) == nil && sro.Valid && sro.Int64 != 0 {
				smp.Writable = false
			}
		}
		if smp.Err == nil && ctx.Err() != nil {
			smp.Err = ctx.Err()
		}
		smp.At = s.opts.Clock.Now()
		return smp
	}
	lag, known, running, err := replicaLag(ctx, db)
	if err == nil {
		var executed sql.NullString
		var ro, sro sql.NullInt64
		if db.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_executed, @@GLOBAL.read_only, @@GLOBAL.super_read_only").Scan(&executed, &ro, &sro) == nil {
			if set, perr := base.ParseGTIDSet(executed.String); perr == nil && executed.Valid {
				smp.Executed = set
			}
			smp.Writable = ro.Valid && ro.Int64 == 0 && sro.Valid && sro.Int64 == 0
		}
		smp.Replicating = running
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
// (unknown when NULL or when it is no replica). running reports whether
// its replication runs (Replica_running, or the IO thread).
func replicaLag(ctx context.Context, db *sql.DB) (lag time.Duration, known, running bool, err error) {
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS LIKE 'Replica\\_%'")
	if err != nil {
		return 0, false, false, err
	}
	vals := map[string]sql.NullString{}
	for rows.Next() {
		var name string
		var v sql.NullString
		if err := rows.Scan(&name, &v); err != nil {
			rows.Close()
			return 0, false, false, err
		}
		vals[strings.ToLower(name)] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, false, err
	}
	recv, okR := vals["replica_receive_lag"]
	apply, okA := vals["replica_apply_lag"]
	if okR && okA {
		running = strings.EqualFold(vals["replica_running"].String, "ON")
		if !recv.Valid || !apply.Valid || recv.String == "" || apply.String == "" {
			return 0, false, running, nil
		}
		r, err1 := strconv.ParseFloat(recv.String, 64)
		a, err2 := strconv.ParseFloat(apply.String, 64)
		if err := errors.Join(err1, err2); err != nil {
			return 0, false, running, err
		}
		return time.Duration(max(r, a) * float64(time.Second)), true, running, nil
	}
	return secondsBehind(ctx, db)
}

func secondsBehind(ctx context.Context, db *sql.DB) (lag time.Duration, known, running bool, err error) {
	rows, err := db.QueryContext(ctx, "SHOW REPLICA STATUS")
	if err != nil {
		rows, err = db.QueryContext(ctx, "SHOW SLAVE STATUS")
		if err != nil {
			return 0, false, false, err
		}
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, false, false, err
	}
	if !rows.Next() {
		return 0, false, false, rows.Err()
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return 0, false, false, err
	}
	for i, c := range cols {
		if (c == "Replica_IO_Running" || c == "Slave_IO_Running") && vals[i].String == "Yes" {
			running = true
		}
	}
	for i, c := range cols {
		if c == "Seconds_Behind_Source" || c == "Seconds_Behind_Master" {
			if !vals[i].Valid {
				return 0, false, running, nil
			}
			n, err := strconv.ParseFloat(vals[i].String, 64)
			if err != nil {
				return 0, false, running, err
			}
			return time.Duration(n * float64(time.Second)), true, running, nil
		}
	}
	return 0, false, running, nil
}
