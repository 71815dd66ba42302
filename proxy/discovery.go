package proxy

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// Topology discovery: replicas the backends list in SHOW REPLICAS
// (Options.Discover) and the cluster's layout file (Options.LayoutFile)
// join the router and the pool while the proxy runs; a layout that names
// another primary is followed at once.

// Layout is Options.LayoutFile's content, e.g.
//
//	{"primary": "127.0.0.1:4000",
//	 "replicas": [{"addr": "127.0.0.1:4001", "site": 0}, {"addr": "127.0.0.1:4003", "site": 1}]}
type Layout struct {
	Primary  string          `json:"primary"`
	Replicas []LayoutReplica `json:"replicas"`
}

// LayoutReplica is one replica of a Layout.
type LayoutReplica struct {
	Addr string `json:"addr"`
	Site int    `json:"site"`
}

// layoutWatch remembers the layout file's last version read.
type layoutWatch struct {
	path    string
	modTime time.Time
	size    int64
	// bad is the last error logged (each once).
	bad string
}

// followLayout reads the layout file if it changed, and applies it.
func (s *Server) followLayout() {
	w := s.layout
	fi, err := os.Stat(w.path)
	if err == nil && fi.ModTime().Equal(w.modTime) && fi.Size() == w.size {
		return
	}
	var l Layout
	if err == nil {
		var b []byte
		if b, err = os.ReadFile(w.path); err == nil {
			err = json.Unmarshal(b, &l)
		}
	}
	if err != nil {
		if msg := err.Error(); msg != w.bad {
			w.bad = msg
			s.opts.Logger.Warn("proxy: layout file", "path", w.path, "err", err)
		}
		return
	}
	w.modTime, w.size, w.bad = fi.ModTime(), fi.Size(), ""
	s.applyLayout(l)
}

// applyLayout adds the layout's replicas (and sets the known ones'
// sites), then follows its primary.
func (s *Server) applyLayout(l Layout) {
	for _, r := range l.Replicas {
		s.mu.Lock()
		i := s.router.Index(r.Addr)
		if i > Primary {
			s.router.SetSite(i, r.Site)
		}
		s.mu.Unlock()
		if i < 0 {
			s.addReplica(r.Addr, r.Site, "layout file")
		}
	}
	if l.Primary == "" {
		return
	}
	s.mu.Lock()
	i := s.router.Index(l.Primary)
	s.mu.Unlock()
	if i == Primary {
		return
	}
	if i < 0 {
		if i = s.addReplica(l.Primary, 0, "layout file's primary"); i < 0 {
			return
		}
	}
	s.mu.Lock()
	if s.router.Index(l.Primary) != i {
		s.mu.Unlock()
		return
	}
	c := s.router.PromoteTo(i, "the layout file names it the primary")
	s.swapSlots(Primary, i)
	s.mu.Unlock()
	s.logChange(c)
	s.pool.swap(Primary, i)
}

// addReplica adds a replica to the router, the pool and the checkers,
// unless it is known already or the proxy is closing or full; it returns
// its index (-1: not added).
func (s *Server) addReplica(addr string, site int, why string) int {
	s.mu.Lock()
	if s.ctx.Err() != nil || s.router.Index(addr) >= 0 || len(s.mon) >= maxBackends {
		s.mu.Unlock()
		return -1
	}
	db, err := s.monitorDB(addr)
	if err != nil {
		s.mu.Unlock()
		s.opts.Logger.Warn("proxy: cannot add a replica", "backend", addr, "err", err)
		return -1
	}
	i := s.router.AddReplica(addr, site)
	if j := s.pool.add(addr); j != i {
		// The router and the pool number backends alike; a mismatch is
		// a bug, and routing by it would send reads astray.
		panic(fmt.Sprintf("proxy: backend %s is %d in the router, %d in the pool", addr, i, j))
	}
	s.mon = append(s.mon, db)
	s.slotGen = append(s.slotGen, 0)
	// The caller is one of the server's goroutines (counted): Add races
	// no Wait.
	s.wg.Add(1)
	s.mu.Unlock()
	s.opts.Logger.Info("proxy: replica added", "backend", addr, "site", site, "slot", i, "from", why)
	go s.checkLoop(i)
	return i
}

// registered reads SHOW REPLICAS on a backend at host: its registered
// replicas' addresses (a replica that reports no host is taken to be on
// the backend's host; one that reports no port is skipped).
func registered(ctx context.Context, db *sql.DB, host string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW REPLICAS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	hostCol, portCol := -1, -1
	for i, c := range cols {
		switch c {
		case "Host":
			hostCol = i
		case "Port":
			portCol = i
		}
	}
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		if hostCol < 0 || portCol < 0 {
			continue
		}
		port, err := strconv.Atoi(vals[portCol].String)
		if err != nil || port <= 0 || port > 65535 {
			continue
		}
		h := vals[hostCol].String
		if h == "" {
			h = host
		}
		out = append(out, net.JoinHostPort(h, strconv.Itoa(port)))
	}
	return out, rows.Err()
}
