package node_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gms "github.com/dolthub/go-mysql-server/sql"
	"github.com/go-sql-driver/mysql"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/node"
	"petrel/repl/relay"
	"petrel/repl/replica"
	"petrel/sqlengine"
	"petrel/storage"
)

// The in-process replication test: a primary (a whole node) and a
// replica (storage, its binary log and the replica's receiver and
// applier, the same packages `petrel server` wires) in one test process,
// the link between them through a proxy that injects faults at exact
// byte offsets, so every run replays the same failures. The replica is
// the replica package's components wired by hand (so each link's bytes
// can be cut at exact offsets and the relay's sink inspected) with a SQL
// engine of its own, which runs the replicated DDL as a replica node's
// does (TestTwoServersInProcess runs two whole nodes). Rows are applied
// by the real applier.

// linkFault is what the proxy does to one connection's source-to-replica
// bytes.
type linkFault struct {
	name string
	// cutAfter closes both sides once this many bytes went through (0: never).
	cutAfter int64
	// flipAt inverts the byte at this offset (0: none).
	flipAt int64
	// delay holds each chunk this long before forwarding it.
	delay time.Duration
}

// faultProxy forwards connections to target, applying faults[i] to the
// i-th connection (later ones are clean).
type faultProxy struct {
	ln     net.Listener
	target string
	faults []linkFault
	conns  atomic.Int32
	fired  sync.Map // fault name -> true once it acted
	wg     sync.WaitGroup
}

func newFaultProxy(t *testing.T, target string, faults []linkFault) *faultProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, target: target, faults: faults}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

func (p *faultProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		i := int(p.conns.Add(1)) - 1
		var f linkFault
		if i < len(p.faults) {
			f = p.faults[i]
		}
		up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		p.wg.Add(2)
		go func() { // replica -> source: untouched
			defer p.wg.Done()
			io.Copy(up, c)
			up.Close()
			c.Close()
		}()
		go func() { // source -> replica: the fault
			defer p.wg.Done()
			defer c.Close()
			defer up.Close()
			buf := make([]byte, 32<<10)
			var off int64
			for {
				up.SetReadDeadline(time.Now().Add(30 * time.Second))
				n, err := up.Read(buf)
				if n > 0 {
					chunk := buf[:n]
					if f.flipAt > 0 && off <= f.flipAt && f.flipAt < off+int64(n) {
						chunk[f.flipAt-off] ^= 0xff
						p.fired.Store(f.name, true)
					}
					if f.cutAfter > 0 && off+int64(n) >= f.cutAfter {
						c.Write(chunk[:f.cutAfter-off])
						p.fired.Store(f.name, true)
						return
					}
					if f.delay > 0 {
						time.Sleep(f.delay)
						p.fired.Store(f.name, true)
					}
					if _, werr := c.Write(chunk); werr != nil {
						return
					}
					off += int64(n)
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

// syncBuffer is a log sink the replica's goroutines write concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestInProcessReplicationFaults: a primary, a replica and a relay in one
// process; each link is cut mid-stream, one byte of the stream is corrupted, and a
// connection is slowed, each at a fixed offset, while writers commit. The
// replica reconnects after each fault, resumes by GTID, and ends with the
// primary's rows and GTID set exactly: no gap, no duplicate, nothing
// applied from the corrupted bytes; the relay's log ends with the
// primary's transactions, event for event.
func TestInProcessReplicationFaults(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	primDir := t.TempDir() + "/p"
	prim, err := node.Open(node.Options{Datadir: primDir, Port: 0, RootPassword: "pw", ServerID: 1, Logger: quiet, Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer prim.Close()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", prim.Addr()
	cfg.MultiStatements = true
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE DATABASE d1")
	exec("CREATE TABLE d1.t (id BIGINT NOT NULL PRIMARY KEY, k BIGINT NOT NULL, v VARCHAR(200), KEY k_1 (k))")
	// A first batch, so the stream the faults hit holds whole transactions.
	for i := 0; i < 200; i++ {
		exec("INSERT INTO d1.t VALUES (?, ?, ?)", i, i%17, strings.Repeat("x", 150))
	}

	// The replica's side: storage, its binary log as storage's commit
	// sink, and the replica.
	rdir := t.TempDir()
	var rlog syncBuffer
	logger := slog.New(slog.NewTextHandler(&rlog, nil))
	st, err := storage.Open(storage.Options{Dir: rdir + "/data", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const ruuid = "aaaaaaaa-bbbb-cccc-dddd-000000000002"
	sid, _ := base.ParseSID(ruuid)
	blog, err := binlog.Open(binlog.Options{Dir: rdir + "/binlog", ServerID: 2, ServerUUID: sid, Logger: logger, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer blog.Close()
	st.SetSink(blog)
	// The replica's own SQL engine runs the replicated DDL, as a replica
	// node's does.
	reng, err := sqlengine.New(sqlengine.Options{Store: st, ServerID: 2, ServerUUID: ruuid, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer reng.Close()
	var ddl []string
	execDDL := func(ctx context.Context, qi binlog.QueryInfo, o storage.Origin) error {
		ddl = append(ddl, qi.Query)
		return reng.ExecReplicated(ctx, qi.Database, qi.Query, qi.NoForeignKeyChecks, o)
	}

	// Faults at fixed offsets of the source-to-replica bytes of the first
	// three connections; the fourth and later are clean.
	proxy := newFaultProxy(t, prim.Addr(), []linkFault{
		{name: "cut", cutAfter: 20000},
		{name: "flip", flipAt: 9000},
		{name: "slow", cutAfter: 60000, delay: 3 * time.Millisecond},
	})
	r, err := replica.New(replica.Options{
		Datadir: rdir, ServerID: 2, ServerUUID: ruuid, Store: st, Log: blog, Logger: logger,
		Clock: base.RealClock{}, ExecDDL: execDDL, Settings: testReplicaSettings(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	host, port, _ := net.SplitHostPort(proxy.ln.Addr().String())
	opts, err := replica.ParseOptions(fmt.Sprintf("SOURCE_HOST='%s', SOURCE_PORT=%s, SOURCE_USER='root', SOURCE_PASSWORD='pw', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=100", host, port))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Change(opts); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(true, true); err != nil {
		t.Fatal(err)
	}

	// The relay-to-be: a receiver whose sink is a relay's binary log
	// (no applier), on a link with faults of its own.
	ldir := t.TempDir()
	llog, err := binlog.Open(binlog.Options{Dir: ldir + "/binlog", ServerID: 3, ServerUUID: base.SID{0xcc, 3}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer llog.Close()
	sink, err := relay.New(relay.Options{Log: llog, Dir: ldir, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	lproxy := newFaultProxy(t, prim.Addr(), []linkFault{
		{name: "relay-flip", flipAt: 15000},
		{name: "relay-cut", cutAfter: 7000},
	})
	lr, err := replica.New(replica.Options{
		Datadir: ldir, ServerID: 3, ServerUUID: base.SID{0xcc, 3}.String(), Log: llog, Sink: sink, Logger: logger,
		Clock: base.RealClock{}, Settings: testReplicaSettings(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	lhost, lport, _ := net.SplitHostPort(lproxy.ln.Addr().String())
	lopts, err := replica.ParseOptions(fmt.Sprintf("SOURCE_HOST='%s', SOURCE_PORT=%s, SOURCE_USER='root', SOURCE_PASSWORD='pw', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=100", lhost, lport))
	if err != nil {
		t.Fatal(err)
	}
	if err := lr.Change(lopts); err != nil {
		t.Fatal(err)
	}
	if err := lr.Start(true, false); err != nil {
		t.Fatal(err)
	}

	// Writers keep committing while the faults play out: single-row
	// inserts, multi-row transactions, updates and deletes.
	var wg sync.WaitGroup
	var werr atomic.Value
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 150; i++ {
				id := 1000 + w*1000 + i
				q := fmt.Sprintf("START TRANSACTION; INSERT INTO d1.t VALUES (%d, %d, '%s'); UPDATE d1.t SET k = k + 1 WHERE id = %d; DELETE FROM d1.t WHERE id = %d; COMMIT",
					id, id%13, strings.Repeat("y", 100+i%50), (id*7)%200, id-1)
				if _, err := db.ExecContext(ctx, q); err != nil {
					werr.Store(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if e, ok := werr.Load().(error); ok {
		t.Fatal(e)
	}

	// The replica catches up to the primary's GTID set.
	var want string
	if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_executed").Scan(&want); err != nil {
		t.Fatal(err)
	}
	wantSet, err := base.ParseGTIDSet(want)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for !blog.Executed().Equal(wantSet) {
		if time.Now().After(deadline) {
			t.Fatalf("replica's GTID set %s, primary's %s; replica log:\n%s", blog.Executed(), wantSet, rlog.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	for !llog.Executed().Equal(wantSet) {
		if time.Now().After(deadline) {
			t.Fatalf("relay's GTID set %s, primary's %s; log:\n%s", llog.Executed(), wantSet, rlog.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The relay holds each transaction's events as the primary logged
	// them (bodies compared; the GTID event's logical clock is the
	// relay's own, and headers carry each file's positions).
	primTxns, relayTxns := txnBodies(t, primDir+"/binlog"), txnBodies(t, ldir+"/binlog")
	if len(primTxns) != int(wantSet.Count()) || len(relayTxns) != len(primTxns) {
		t.Fatalf("transactions: primary's log %d, relay's %d, GTID set %d", len(primTxns), len(relayTxns), wantSet.Count())
	}
	for g, body := range primTxns {
		if !bytes.Equal(relayTxns[g], body) {
			t.Fatalf("transaction %s differs in the relay's log", g)
		}
	}

	// Rows equal, read from both storages' points of view: the primary
	// through SQL, the replica from its storage.
	rows, err := db.QueryContext(ctx, "SELECT id, k, v FROM d1.t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var primRows []string
	for rows.Next() {
		var id, k int64
		var v sql.NullString
		if err := rows.Scan(&id, &k, &v); err != nil {
			t.Fatal(err)
		}
		primRows = append(primRows, fmt.Sprintf("%d|%d|%s", id, k, v.String))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	tb := st.Catalog().Table("d1", "t")
	if tb == nil {
		t.Fatal("the replica has no d1.t")
	}
	txn := st.Begin()
	it, err := txn.Scan(ctx, tb, 0, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var repRows []string
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			break
		}
		v := ""
		if row[2] != nil {
			v = fmt.Sprint(row[2])
		}
		repRows = append(repRows, fmt.Sprintf("%v|%v|%s", row[0], row[1], v))
	}
	it.Close()
	txn.Rollback()
	// 200 first rows; each writer's transaction deletes the row its
	// previous one inserted, so each writer leaves its last row.
	if len(primRows) != 203 {
		t.Fatalf("primary holds %d rows, want 203", len(primRows))
	}
	if strings.Join(primRows, "\n") != strings.Join(repRows, "\n") {
		t.Fatalf("rows differ: primary %d rows, replica %d", len(primRows), len(repRows))
	}

	// Every fault acted, and each cost the replica a connection.
	for p, names := range map[*faultProxy][]string{proxy: {"cut", "flip", "slow"}, lproxy: {"relay-flip", "relay-cut"}} {
		for _, f := range names {
			if _, ok := p.fired.Load(f); !ok {
				t.Errorf("fault %q never acted (the stream was shorter than its offset)", f)
			}
		}
	}
	c := r.CountersSnapshot()
	if c.Connects < 4 || proxy.conns.Load() < 4 {
		t.Errorf("replica connected %d times through %d proxied connections, want >= 4 (three faults, then a clean link)", c.Connects, proxy.conns.Load())
	}
	if lc := lr.CountersSnapshot(); lc.Connects < 3 {
		t.Errorf("relay connected %d times, want >= 3 (two faults, then a clean link)", lc.Connects)
	}
	if !strings.Contains(rlog.String(), "checksum") {
		t.Errorf("the corrupted byte was not reported as a checksum failure; replica log:\n%s", rlog.String())
	}
	if len(ddl) != 2 {
		t.Errorf("replicated statements %q, want the CREATE DATABASE and CREATE TABLE once each", ddl)
	}
	// The replica's engine made the primary's table, and answers for
	// its own server.
	var primCreate string
	if err := db.QueryRowContext(ctx, "SHOW CREATE TABLE d1.t").Scan(new(string), &primCreate); err != nil {
		t.Fatal(err)
	}
	repAnswer := func(q string) []gms.Row {
		t.Helper()
		sctx := reng.NewContext(ctx, reng.NewInternalSession())
		_, it, _, err := reng.GMS().Query(sctx, q)
		if err != nil {
			t.Fatalf("the replica's engine: %s: %v", q, err)
		}
		rows, err := gms.RowIterToRows(sctx, it)
		if err != nil {
			t.Fatalf("the replica's engine: %s: %v", q, err)
		}
		return rows
	}
	if rows := repAnswer("SHOW CREATE TABLE d1.t"); len(rows) != 1 || fmt.Sprint(rows[0][1]) != primCreate {
		t.Errorf("the replica's SHOW CREATE TABLE d1.t: %v; the primary's %q", rows, primCreate)
	}
	var primID string
	if err := db.QueryRowContext(ctx, "SELECT @@global.server_id").Scan(&primID); err != nil {
		t.Fatal(err)
	}
	if rows := repAnswer("SELECT @@global.server_id"); primID != "1" || len(rows) != 1 || fmt.Sprint(rows[0][0]) != "2" {
		t.Errorf("@@global.server_id: the primary's %s, the replica engine's %v; want 1 and 2", primID, rows)
	}
	t.Logf("%d rows, GTIDs %s, %d connections, %d transactions applied", len(repRows), wantSet, c.Connects, c.AppliedTxns)
	if t.Failed() {
		t.Log(rlog.String())
	}
}

// txnBodies reads every binlog file in dir: each transaction's events
// after its GTID event, without headers and checksums, by GTID.
func txnBodies(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(dir + "/binlog.[0-9]*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no binlog files in %s: %v", dir, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		r, err := binlog.OpenReader(f)
		if err != nil {
			t.Fatal(err)
		}
		cur := ""
		for {
			ev, _, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			switch ev[4] {
			case binlog.GTIDEvent:
				info, err := binlog.ParseGTID(binlog.Body(ev))
				if err != nil {
					t.Fatal(err)
				}
				cur = info.GTID.String()
				out[cur] = nil
			case binlog.FormatDescriptionEvent, binlog.PreviousGTIDsEvent, binlog.RotateEvent:
			default:
				if cur != "" {
					out[cur] = append(out[cur], ev[binlog.HeaderLen:len(ev)-binlog.ChecksumLen]...)
				}
			}
		}
		r.Close()
	}
	return out
}

// testReplicaSettings are the replica's defaults with a 5 s
// replica_net_timeout.
func testReplicaSettings() replica.Settings {
	s := replica.DefaultSettings()
	s.NetTimeout = 5 * time.Second
	return s
}
