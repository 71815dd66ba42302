package node_test

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"petrel/node"
	"petrel/storage"
)

// TestMemoryLimitVariable: petrel_memory_limit from the option file (with
// MySQL's size suffixes) is the server's memory budget and what it
// reports; the default is half the machine's RAM; it is read-only while
// running (1238), and a malformed value is refused at start-up.
func TestMemoryLimitVariable(t *testing.T) {
	checkStartupVariable(t, "petrel_memory_limit", []startupCase{
		{map[string]string{"petrel_memory_limit": "2G"}, 2 << 30},
		{map[string]string{"petrel-memory-limit": "536870912"}, 512 << 20},
		{nil, node.DefaultMemoryLimit(storage.PhysicalMemory())},
	}, func(n *node.Node) int64 { return n.MemoryLimit() }, []string{"1X", "-5"})
}

// startMetricsNode runs a node serving /metrics, with pprof or not.
func startMetricsNode(t *testing.T, pprof bool, vars map[string]string) (*node.Node, *sql.DB) {
	t.Helper()
	return openNodeOpts(t, node.Options{Datadir: t.TempDir() + "/d", Variables: vars, MetricsAddress: "127.0.0.1:0", MetricsPprof: pprof})
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// globalStatus reads SHOW GLOBAL STATUS LIKE pattern into a map.
func globalStatus(t *testing.T, db *sql.DB, pattern string) map[string]int64 {
	t.Helper()
	rows, err := db.Query("SHOW GLOBAL STATUS LIKE '" + pattern + "'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name, v string
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("%s = %q: %v", name, v, err)
		}
		out[name] = n
	}
	return out
}

// TestBlockCacheAndRuntimeMetrics: the block cache's status variables
// (size, bytes, blocks, hits, misses, and InnoDB's buffer pool names for
// them) agree with Pebble's own metrics after reads that go through the
// cache; /metrics has them and Go's runtime metrics (goroutines, heap in
// use and released, collections) and the process's RSS; pprof is not
// served unless asked for.
func TestBlockCacheAndRuntimeMetrics(t *testing.T) {
	n, db := startMetricsNode(t, false, map[string]string{"innodb_buffer_pool_size": "64M"})
	mustExec(t, db, "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, pad VARCHAR(1000))")
	// 8 MB of rows: several memtables' worth (2 MiB each), so the scan
	// below reads table files, through the block cache.
	pad := strings.Repeat("x", 1000)
	for i := 0; i < 80; i++ {
		var b strings.Builder
		b.WriteString("INSERT INTO d.t VALUES ")
		for j := 0; j < 100; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "(%d,'%s')", i*100+j, pad)
		}
		mustExec(t, db, b.String())
	}
	var count int
	if err := db.QueryRow("SELECT COUNT(*) FROM d.t WHERE pad LIKE 'x%'").Scan(&count); err != nil || count != 8000 {
		t.Fatalf("count = %d (%v), want 8000", count, err)
	}
	before := n.Store().CacheStats()
	st := globalStatus(t, db, "%block_cache%")
	ib := globalStatus(t, db, "Innodb_buffer_pool_read%")
	after := n.Store().CacheStats()

	if st["Petrel_block_cache_size"] != 64<<20 || before.Capacity != 64<<20 {
		t.Errorf("Petrel_block_cache_size = %d, Pebble's capacity %d, want %d", st["Petrel_block_cache_size"], before.Capacity, 64<<20)
	}
	if before.Misses == 0 || before.Bytes == 0 || before.Blocks == 0 {
		t.Fatalf("the scan did not go through the block cache: %+v", before)
	}
	for _, c := range []struct {
		name   string
		lo, hi int64
	}{
		{"Petrel_block_cache_bytes", min(before.Bytes, after.Bytes), max(before.Bytes, after.Bytes)},
		{"Petrel_block_cache_blocks", min(before.Blocks, after.Blocks), max(before.Blocks, after.Blocks)},
		{"Petrel_block_cache_hits", before.Hits, after.Hits},
		{"Petrel_block_cache_misses", before.Misses, after.Misses},
	} {
		if v, ok := st[c.name]; !ok || v < c.lo || v > c.hi {
			t.Errorf("%s = %d (present %v), Pebble says %d..%d", c.name, v, ok, c.lo, c.hi)
		}
	}
	if st["Petrel_block_cache_bytes"] > 64<<20 {
		t.Errorf("Petrel_block_cache_bytes = %d, past the capacity", st["Petrel_block_cache_bytes"])
	}
	if v := ib["Innodb_buffer_pool_reads"]; v < before.Misses || v > after.Misses {
		t.Errorf("Innodb_buffer_pool_reads = %d, Pebble's misses %d..%d", v, before.Misses, after.Misses)
	}
	if v := ib["Innodb_buffer_pool_read_requests"]; v < before.Hits+before.Misses || v > after.Hits+after.Misses {
		t.Errorf("Innodb_buffer_pool_read_requests = %d, Pebble's lookups %d..%d", v, before.Hits+before.Misses, after.Hits+after.Misses)
	}
	mem := globalStatus(t, db, "Petrel_memory_limit")
	if mem["Petrel_memory_limit"] != n.MemoryLimit() || n.MemoryLimit() <= 0 {
		t.Errorf("Petrel_memory_limit = %d, the node's %d", mem["Petrel_memory_limit"], n.MemoryLimit())
	}

	code, body := httpGet(t, "http://"+n.MetricsAddr()+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	lines := map[string]float64{}
	for _, l := range strings.Split(body, "\n") {
		if f := strings.Fields(l); len(f) == 2 && !strings.HasPrefix(l, "#") {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				lines[f[0]] = v
			}
		}
	}
	if v := lines["mysql_global_status_petrel_block_cache_size"]; v != 64<<20 {
		t.Errorf("mysql_global_status_petrel_block_cache_size = %v, want %d", v, 64<<20)
	}
	for _, name := range []string{"mysql_global_status_petrel_block_cache_misses", "go_goroutines",
		"go_memstats_heap_inuse_bytes", "process_resident_memory_bytes", "go_gc_duration_seconds_count"} {
		if lines[name] <= 0 {
			t.Errorf("/metrics: %s = %v, want > 0", name, lines[name])
		}
	}
	for _, name := range []string{"go_memstats_heap_released_bytes", "mysql_global_status_petrel_block_cache_hits"} {
		if _, ok := lines[name]; !ok {
			t.Errorf("/metrics: no %s", name)
		}
	}
	if code, _ := httpGet(t, "http://"+n.MetricsAddr()+"/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("pprof off: /debug/pprof/ answered %d, want 404", code)
	}
}

// TestMetricsPprof: with MetricsPprof the profiles are served beside
// /metrics.
func TestMetricsPprof(t *testing.T) {
	n, _ := startMetricsNode(t, true, nil)
	code, body := httpGet(t, "http://"+n.MetricsAddr()+"/debug/pprof/")
	if code != 200 || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/: %d, %.200q", code, body)
	}
	code, body = httpGet(t, "http://"+n.MetricsAddr()+"/debug/pprof/goroutine?debug=1")
	if code != 200 || !strings.Contains(body, "goroutine profile:") {
		t.Errorf("/debug/pprof/goroutine: %d, %.200q", code, body)
	}
}
