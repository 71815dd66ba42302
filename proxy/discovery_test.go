package proxy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLayoutFile: the replicas a layout file names join a running proxy
// with their sites, and a primary it names later is followed at once
// (slot 0), without a restart; a malformed rewrite changes nothing.
func TestLayoutFile(t *testing.T) {
	a, b, c := startCanned(t), startCanned(t), startCanned(t)
	path := filepath.Join(t.TempDir(), "layout.json")
	write := func(l Layout) {
		body, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, body, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(Layout{Primary: a.addr(), Replicas: []LayoutReplica{{Addr: b.addr(), Site: 1}}})
	s, err := Start(Options{Listen: "127.0.0.1:0", AdminListen: "-", NoTLS: true, Primary: a.addr(), LayoutFile: path,
		CheckInterval: 20 * time.Millisecond, CheckTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows := s.Servers()
	if len(rows) != 2 || rows[1].Server != b.addr() || rows[1].Site != 1 {
		t.Fatalf("after the start: %+v", rows)
	}
	waitRows := func(what string, ok func([]ServerRow) bool) time.Duration {
		t.Helper()
		start := time.Now()
		for time.Since(start) < 5*time.Second {
			if rows := s.Servers(); ok(rows) {
				return time.Since(start)
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("%s: not within 5s: %+v", what, s.Servers())
		return 0
	}
	// A replica added, b moved to site 2 (mtime or size changes).
	time.Sleep(20 * time.Millisecond)
	write(Layout{Primary: a.addr(), Replicas: []LayoutReplica{{Addr: b.addr(), Site: 2}, {Addr: c.addr(), Site: 1}}})
	waitRows("the new replica", func(r []ServerRow) bool {
		return len(r) == 3 && r[1].Site == 2 && r[2].Server == c.addr() && r[2].Site == 1
	})
	// A malformed file is logged and ignored.
	if err := os.WriteFile(path, []byte(`{"primary": `), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if r := s.Servers(); len(r) != 3 || r[0].Server != a.addr() {
		t.Fatalf("after a malformed layout: %+v", r)
	}
	// The layout names c the primary: slots 0 and 2 swap.
	write(Layout{Primary: c.addr(), Replicas: []LayoutReplica{{Addr: a.addr()}, {Addr: b.addr(), Site: 2}}})
	d := waitRows("the new primary", func(r []ServerRow) bool {
		return len(r) == 3 && r[0].Server == c.addr() && r[0].Role == "primary" && r[2].Server == a.addr()
	})
	if d > 2*time.Second {
		t.Errorf("the layout's new primary followed after %v", d)
	}
	s.pool.mu.Lock()
	n := s.pool.addrs[Primary]
	s.pool.mu.Unlock()
	if n != c.addr() {
		t.Fatalf("the pool's slot 0 is %s, want %s", n, c.addr())
	}
}
