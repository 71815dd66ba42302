package proxy

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Prometheus metrics (text exposition), from the same figures as SHOW
// SERVERS. An unknown lag is NaN, never 0.

func (s *Server) writeMetrics(w io.Writer) {
	rows := s.Servers()
	fmt.Fprintln(w, "# HELP petrel_proxy_clients Client connections open.")
	fmt.Fprintln(w, "# TYPE petrel_proxy_clients gauge")
	fmt.Fprintf(w, "petrel_proxy_clients %d\n", s.clients.Load())
	type metric struct {
		name, help, typ string
		val             func(ServerRow) float64
	}
	lag := func(r ServerRow) float64 {
		if r.Lag == "" {
			return math.NaN()
		}
		v, err := strconv.ParseFloat(r.Lag, 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	for _, m := range []metric{
		{"petrel_proxy_backend_online", "1 when the backend takes its share of statements (online), else 0.", "gauge",
			func(r ServerRow) float64 { return b2f(r.State == StateOnline.String()) }},
		{"petrel_proxy_backend_lag_seconds", "A replica's measured replication lag; NaN when unknown.", "gauge", lag},
		{"petrel_proxy_backend_queries_total", "Statements sent to the backend.", "counter", func(r ServerRow) float64 { return float64(r.Queries) }},
		{"petrel_proxy_backend_errors_total", "Backend connection failures.", "counter", func(r ServerRow) float64 { return float64(r.Errors) }},
		{"petrel_proxy_backend_in_flight", "Statements running on the backend.", "gauge", func(r ServerRow) float64 { return float64(r.InFlight) }},
		{"petrel_proxy_backend_connections", "Connections open to the backend.", "gauge", func(r ServerRow) float64 { return float64(r.Connections) }},
	} {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", m.name, m.help, m.name, m.typ)
		for _, r := range rows {
			fmt.Fprintf(w, "%s{backend=%q,role=%q,state=%q} %s\n", m.name, r.Server, r.Role, r.State,
				strconv.FormatFloat(m.val(r), 'g', -1, 64))
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// serveMetrics serves /metrics on ln until Close.
func (s *Server) serveMetrics(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		s.writeMetrics(w)
	})
	s.metrics = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.metrics.Serve(ln); err != nil && err != http.ErrServerClosed {
			s.opts.Logger.Error("proxy: metrics server", "err", err)
		}
	}()
}
