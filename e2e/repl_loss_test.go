package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

// lossyPath carries TCP connections from a loopback port through a real
// kernel TCP hop between two network namespaces (joined by a veth pair
// where nftables drops packets) to an upstream loopback address:
//
//	client -> 127.0.0.1:Port -> [ns1] ==veth, lossy==> [ns0] 10.213.x.1 -> upstream
//
// The servers stay in the root namespace; only the middle hop is lossy,
// and it is a real TCP connection the kernel retransmits on.
type lossyPath struct {
	front, back net.Listener
	wg          sync.WaitGroup
	mu          sync.Mutex
	conns       []net.Conn
}

func startLossyPath(t *testing.T, ctx context.Context, pair *lab.NetnsPair, upstream string) *lossyPath {
	t.Helper()
	back, err := pair.Listen(0, "tcp", net.JoinHostPort(pair.IP(0), "0"))
	if err != nil {
		t.Fatal(err)
	}
	front, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lp := &lossyPath{front: front, back: back}
	backAddr := back.Addr().String()
	serve := func(ln net.Listener, dial func() (net.Conn, error)) {
		defer lp.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := dial()
			if err != nil {
				c.Close()
				continue
			}
			lp.track(c, up)
			lp.wg.Add(2)
			go lp.pipe(c, up)
			go lp.pipe(up, c)
		}
	}
	lp.wg.Add(2)
	go serve(back, func() (net.Conn, error) { return net.DialTimeout("tcp", upstream, 5*time.Second) })
	go serve(front, func() (net.Conn, error) {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return pair.Dial(dctx, 1, "tcp", backAddr)
	})
	t.Cleanup(lp.close)
	return lp
}

func (lp *lossyPath) track(cs ...net.Conn) {
	lp.mu.Lock()
	lp.conns = append(lp.conns, cs...)
	lp.mu.Unlock()
}

func (lp *lossyPath) pipe(dst, src net.Conn) {
	defer lp.wg.Done()
	io.Copy(dst, src)
	dst.Close()
	src.Close()
}

func (lp *lossyPath) port() int { return lp.front.Addr().(*net.TCPAddr).Port }

func (lp *lossyPath) close() {
	lp.front.Close()
	lp.back.Close()
	lp.mu.Lock()
	for _, c := range lp.conns {
		c.Close()
	}
	lp.mu.Unlock()
	lp.wg.Wait()
}

var retransRE = regexp.MustCompile(`(?m)^Tcp: .*$`)

// tcpRetransmits reads RetransSegs of a namespace's TCP stack.
func tcpRetransmits(t *testing.T, ctx context.Context, pair *lab.NetnsPair, side int) int64 {
	t.Helper()
	out, err := pair.Run(ctx, side, "cat", "/proc/net/snmp")
	if err != nil {
		t.Fatal(err)
	}
	rows := retransRE.FindAllString(out, 2)
	if len(rows) != 2 {
		t.Fatalf("no Tcp rows in /proc/net/snmp:\n%s", out)
	}
	names, vals := strings.Fields(rows[0]), strings.Fields(rows[1])
	for i, n := range names {
		if n == "RetransSegs" && i < len(vals) {
			v, _ := strconv.ParseInt(vals[i], 10, 64)
			return v
		}
	}
	t.Fatal("no RetransSegs")
	return 0
}

// TestReplicationUnderPacketLoss: the seeds' first lesson. The link
// between replica and source drops 2% of packets (nftables in network
// namespaces, both directions) while the source takes a sustained insert
// load; the replica keeps up and ends identical, with no intervention.
func TestReplicationUnderPacketLoss(t *testing.T) {
	if err := lab.NetnsAvailable(); err != nil {
		if os.Getenv(strictEnv) == "1" {
			t.Fatalf("network namespaces: %v and %s=1", err, strictEnv)
		}
		t.Skipf("network namespaces: %v", err)
	}
	ctx := testContext(t, 3*time.Minute)
	pair, err := lab.NewNetnsPair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pair.Close()
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	rep := startReplicaServer(t, ctx, 2, nil)
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUser(t, ctx, sdb)
	mustExec(t, ctx, sdb, "CREATE DATABASE loss", "CREATE TABLE loss.t (id BIGINT PRIMARY KEY, w INT NOT NULL, n INT NOT NULL, pad VARCHAR(200) NOT NULL DEFAULT '')")
	path := startLossyPath(t, ctx, pair, fmt.Sprintf("127.0.0.1:%d", src.Port()))
	pointAt(t, ctx, rdb, path.port(), "")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)

	if err := pair.SetLoss(ctx, 2); err != nil {
		t.Fatal(err)
	}
	before := tcpRetransmits(t, ctx, pair, 0) + tcpRetransmits(t, ctx, pair, 1)
	load := startInsertLoad(ctx, sdb, "loss.t", 4, 0)
	var maxLag int64
	end := time.Now().Add(15 * time.Second)
	for time.Now().Before(end) {
		st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
		if lag, err := strconv.ParseInt(st["Seconds_Behind_Source"], 10, 64); err == nil && lag > maxLag {
			maxLag = lag
		}
		time.Sleep(250 * time.Millisecond)
	}
	acked := load.finish()
	waitCaughtUp(t, ctx, sdb, rdb, 60*time.Second)
	retrans := tcpRetransmits(t, ctx, pair, 0) + tcpRetransmits(t, ctx, pair, 1) - before
	n := sameTable(t, ctx, sdb, rdb, "loss.t", "id")
	if n < len(acked) || len(acked) == 0 {
		t.Fatalf("source has %d rows, %d acknowledged", n, len(acked))
	}
	if retrans == 0 {
		t.Error("no TCP retransmissions on the lossy hop: the loss was not applied")
	}
	if maxLag > 5 {
		t.Errorf("Seconds_Behind_Source reached %d s under 2%% loss", maxLag)
	}
	st := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")
	t.Logf("2%% loss: %d rows replicated identically, %d TCP retransmissions, max lag %d s, %d replica connections, IO=%s",
		n, retrans, maxLag, globalStatus(t, ctx, rdb, "Replica_connects"), st["Replica_IO_Running"])
}
