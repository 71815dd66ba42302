package e2e

import (
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

// Memory of large statements (docs/design/connections.md,
// packet memory): RSS read from /proc of the server process.

// vmRSS is the resident set of process pid in bytes.
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	n, err := readRSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func readRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("rss: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("rss: %q", l)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("rss: no VmRSS in /proc/%d/status", pid)
}

// TestPacketMemory: eight concurrent 60 MB literals (each under
// max_allowed_packet) stay within petrel_packet_memory_limit (the rest
// wait their turn), the server's RSS stays bounded and returns near where
// it was; a packet larger than the limit gets error 1041 and its
// connection stays usable.
func TestPacketMemory(t *testing.T) {
	ctx := testContext(t, 6*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{ExtraArgs: []string{"--config",
		// The queued statements wait for memory up to net_read_timeout;
		// generous for a shared host.
		configFile(t, map[string]string{"net_read_timeout": "300"})}})
	root := rootDB(t, p, "")
	mustExec(t, ctx, root,
		"CREATE DATABASE pm",
		"CREATE TABLE pm.t (id INT PRIMARY KEY, b LONGTEXT)")
	limit := queryInt(t, ctx, root, "SELECT @@GLOBAL.petrel_packet_memory_limit")
	if limit != 256<<20 {
		t.Errorf("petrel_packet_memory_limit = %d, want the documented default %d", limit, 256<<20)
	}
	if v := queryInt(t, ctx, root, "SELECT @@GLOBAL.max_allowed_packet"); v != 64<<20 {
		t.Errorf("max_allowed_packet = %d, want 64 MiB", v)
	}

	const clients = 8
	const size = 60 << 20
	cfg := clientConfig(t, p, "root", rootPassword, "pm")
	cfg.MaxAllowedPacket = 100 << 20
	cfg.Logger = mysqlLogger{t}
	cfg.ReadTimeout, cfg.WriteTimeout = 5*time.Minute, 5*time.Minute
	db := openConfig(t, cfg)
	db.SetMaxOpenConns(clients)
	conns := make([]*sql.Conn, clients)
	for i := range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	waitsBefore := globalStatus(t, ctx, root, "Petrel_packet_memory_waits")
	before := vmRSS(t, p.Pid())

	literal := strings.Repeat("x", size)
	var peak int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if n, err := readRSS(p.Pid()); err == nil {
					peak = max(peak, n)
				}
			}
		}
	}()
	start := time.Now()
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.ExecContext(ctx, "INSERT INTO t VALUES ("+strconv.Itoa(i)+", '"+literal+"')")
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	<-sampled
	literal = ""
	// Memory is returned afterwards: RSS falls back near where it was
	// (Pebble's block cache and compaction buffers may keep some).
	const returned = 768 << 20
	var after int64
	afterDeadline := time.Now().Add(60 * time.Second)
	for {
		after = vmRSS(t, p.Pid())
		if after < before+returned || time.Now().After(afterDeadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	returnedAfter := time.Since(start) - elapsed
	t.Logf("RSS before %d MB, peak %d MB, after %d MB (%v after the statements); %d x %d MB INSERTs took %v",
		before>>20, peak>>20, after>>20, returnedAfter.Round(time.Second), clients, size>>20, elapsed)
	if peak > 6<<30 {
		t.Errorf("peak RSS %d MB for %d concurrent %d MB statements; want under 6 GB (11 GB before the budget)", peak>>20, clients, size>>20)
	}
	if after >= before+returned {
		t.Errorf("RSS %d MB 60 s after the statements, %d MB before: memory not returned", after>>20, before>>20)
	}

	for i, err := range errs {
		if err != nil {
			t.Errorf("client %d: 60 MB INSERT: %v", i, err)
		}
	}
	if n := queryInt(t, ctx, root, "SELECT COUNT(*) FROM pm.t WHERE LENGTH(b) = ?", size); n != clients {
		t.Errorf("%d rows of %d bytes, want %d", n, size, clients)
	}
	if w := globalStatus(t, ctx, root, "Petrel_packet_memory_waits") - waitsBefore; w < clients-int64(limit/size) {
		t.Errorf("Petrel_packet_memory_waits rose by %d; want at least %d statements queued for memory", w, clients-limit/size)
	}

	if v := globalStatus(t, ctx, root, "Petrel_packet_memory"); v != 0 {
		t.Errorf("Petrel_packet_memory = %d after the statements, want 0", v)
	}

	// Larger than the limit: 1041, and the connection stays usable.
	mustExec(t, ctx, root, "SET GLOBAL petrel_packet_memory_limit = 16777216")
	refusedBefore := globalStatus(t, ctx, root, "Petrel_packet_memory_refused")
	c := conns[0]
	_, err := c.ExecContext(ctx, "INSERT INTO t VALUES (100, '"+strings.Repeat("y", 20<<20)+"')")
	if errNo(err) != erOutOfResources {
		t.Errorf("a 20 MB statement with petrel_packet_memory_limit = 16 MB: %v; want error %d", err, erOutOfResources)
	} else if !strings.Contains(err.Error(), "petrel_packet_memory_limit") {
		t.Errorf("error %v does not name petrel_packet_memory_limit", err)
	}
	if v := queryInt(t, ctx, c, "SELECT COUNT(*) FROM t"); v != clients {
		t.Errorf("%d rows after the refused statement (on its connection), want %d", v, clients)
	}
	if v := globalStatus(t, ctx, root, "Petrel_packet_memory_refused"); v-refusedBefore != 1 {
		t.Errorf("Petrel_packet_memory_refused rose by %d, want 1", v-refusedBefore)
	}
}

// mysqlLogger sends the driver's log to the test's.
type mysqlLogger struct{ t *testing.T }

func (l mysqlLogger) Print(v ...any) { l.t.Log(append([]any{"driver:"}, v...)...) }
