package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Prometheus metrics: every computed status variable (binlog, semi-sync,
// replica, locks) under mysqld_exporter's names, mysql_global_status_<name
// in lower case>, so dashboards made for MySQL read Petrel unchanged.
// ON/OFF read as 1/0; NULL (unknown lag) is left out, never reported as 0.

type statusCollector struct{ n *Node }

func (statusCollector) Describe(chan<- *prometheus.Desc) {} // unchecked: the set varies

func (c statusCollector) Collect(ch chan<- prometheus.Metric) {
	for name, v := range c.n.sql.StatusSnapshot() {
		f, ok := metricValue(v)
		if !ok {
			continue
		}
		desc := prometheus.NewDesc("mysql_global_status_"+strings.ToLower(name), "MySQL status variable "+name+".", nil, nil)
		if m, err := prometheus.NewConstMetric(desc, prometheus.UntypedValue, f); err == nil {
			ch <- m
		}
	}
	if r := c.n.replica; r != nil {
		if row := r.Status(); row != nil {
			for i, col := range replicaStatusColumns() {
				if col != "Seconds_Behind_Source" || row[i] == nil {
					continue
				}
				if f, err := strconv.ParseFloat(*row[i], 64); err == nil {
					desc := prometheus.NewDesc("mysql_slave_status_seconds_behind_master", "Seconds_Behind_Source of SHOW REPLICA STATUS (absent when unknown).", nil, nil)
					if m, err := prometheus.NewConstMetric(desc, prometheus.GaugeValue, f); err == nil {
						ch <- m
					}
				}
			}
		}
	}
}

func metricValue(v any) (float64, bool) {
	switch x := v.(type) {
	case nil:
		return 0, false
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string:
		switch strings.ToUpper(x) {
		case "ON", "YES":
			return 1, true
		case "OFF", "NO":
			return 0, true
		}
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	return f, err == nil
}

// serveMetrics serves /metrics on addr until the node closes: the status
// variables, Go's runtime (go_goroutines, go_memstats_heap_inuse_bytes,
// go_memstats_heap_released_bytes, go_gc_duration_seconds: the count and
// pauses of collections) and the process (process_resident_memory_bytes).
// With Options.MetricsPprof, Go's profiles too at /debug/pprof/ (off by
// default: a CPU profile costs the server while it runs, and the
// profiles show query text in stacks).
func (n *Node) serveMetrics(addr string) error {
	reg := prometheus.NewRegistry()
	for _, c := range []prometheus.Collector{
		statusCollector{n},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("node: metrics address %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if n.opts.MetricsPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	n.metrics = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	n.metricsAddr = ln.Addr().String()
	go func() {
		if err := n.metrics.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.opts.Logger.Error("petrel: metrics server", "error", err)
		}
	}()
	return nil
}

func (n *Node) closeMetrics() {
	if n.metrics != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n.metrics.Shutdown(ctx)
	}
}

// MetricsAddr is where /metrics is served ("" when off).
func (n *Node) MetricsAddr() string { return n.metricsAddr }
