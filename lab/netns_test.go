package lab

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// requireNetns skips when network namespaces cannot be built here, or
// fails with PETREL_LAB_STRICT=1 (CI runs as root with the tools).
func requireNetns(t *testing.T) {
	t.Helper()
	if err := NetnsAvailable(); err != nil {
		if os.Getenv(strictEnv) == "1" {
			t.Fatalf("%v and %s=1", err, strictEnv)
		}
		t.Skipf("%v; run as root after scripts/deps.sh", err)
	}
}

func netnsList(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, findTool("ip", "/usr/sbin/ip"), "netns", "list").CombinedOutput()
	if err != nil {
		t.Fatalf("ip netns list: %v: %s", err, out)
	}
	return string(out)
}

func TestNetnsPair(t *testing.T) {
	requireNetns(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := NewNetnsPair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for side := 0; side < 2; side++ {
		if !strings.Contains(netnsList(t), p.Name(side)) {
			t.Fatalf("namespace %s not in ip netns list", p.Name(side))
		}
		out, err := p.Run(ctx, side, "ip", "-brief", "addr", "show", "dev", p.Interface(side))
		if err != nil || !strings.Contains(out, p.IP(side)+"/24") || !strings.Contains(out, "UP") {
			t.Fatalf("side %d: %q, %v; want %s/24 and UP", side, out, err, p.IP(side))
		}
	}

	// TCP from side 1 to an echo server on side 0, across the veth.
	ln, err := p.Listen(0, "tcp", net.JoinHostPort(p.IP(0), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	c, err := p.Dial(ctx, 1, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.LocalAddr().(*net.TCPAddr).IP.String(); got != p.IP(1) {
		t.Fatalf("client address %s, want side 1's %s", got, p.IP(1))
	}
	msg := bytes.Repeat([]byte("petrel "), 10000)
	if err := echo(c, msg, 5*time.Second); err != nil {
		t.Fatalf("TCP echo across the pair: %v", err)
	}
	// The root namespace cannot reach it.
	if rc, err := net.DialTimeout("tcp", ln.Addr().String(), 200*time.Millisecond); err == nil {
		rc.Close()
		t.Fatal("the root namespace reached side 0's listener")
	}

	const n = 400
	for _, tc := range []struct {
		loss     int
		min, max int // packets received of n, per direction
	}{
		{0, n, n},
		{50, n / 4, 3 * n / 4}, // mean n/2, sd 10 packets
		{0, n, n},
	} {
		if err := p.SetLoss(ctx, tc.loss); err != nil {
			t.Fatal(err)
		}
		for from := 0; from < 2; from++ {
			got := countUDP(t, p, from, n)
			t.Logf("loss %d%%: side %d -> side %d: %d of %d packets", tc.loss, from, 1-from, got, n)
			if got < tc.min || got > tc.max {
				t.Fatalf("loss %d%%: side %d -> %d received %d of %d, want %d..%d", tc.loss, from, 1-from, got, n, tc.min, tc.max)
			}
		}
	}
	out, err := p.Run(ctx, 1, "nft", "list", "tables")
	if err != nil || strings.Contains(out, netnsLossTable) {
		t.Fatalf("after SetLoss(0): %q, %v; want no %s table", out, err, netnsLossTable)
	}

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if list := netnsList(t); strings.Contains(list, p.Name(0)) || strings.Contains(list, p.Name(1)) {
		t.Fatalf("namespaces left after Close:\n%s", list)
	}
}

// countUDP sends n numbered datagrams from side from to the other side and
// returns how many distinct ones arrived.
func countUDP(t *testing.T, p *NetnsPair, from, n int) int {
	t.Helper()
	to := 1 - from
	rc, err := p.ListenPacket(to, "udp", net.JoinHostPort(p.IP(to), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	sc, err := p.Dial(ctx, from, "udp", rc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()

	got := make(chan int, 1)
	go func() {
		seen := make(map[uint32]bool)
		buf := make([]byte, 64)
		for {
			// Loss never delays a datagram, so a quiet spell means done.
			rc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			k, _, err := rc.ReadFrom(buf)
			if err != nil {
				got <- len(seen)
				return
			}
			if k == 8 && string(buf[4:8]) == "ptl!" {
				seen[binary.BigEndian.Uint32(buf)] = true
			}
		}
	}()
	pkt := make([]byte, 8)
	copy(pkt[4:], "ptl!")
	for i := 0; i < n; i++ {
		binary.BigEndian.PutUint32(pkt, uint32(i))
		sc.Write(pkt) // loss is on arrival, so sends succeed
		if i%20 == 19 {
			time.Sleep(time.Millisecond) // stay well inside the receive buffer
		}
	}
	return <-got
}

// TestNetnsPairCleanupOnFailure makes the last setup step fail and checks
// that nothing created before it is left.
func TestNetnsPairCleanupOnFailure(t *testing.T) {
	requireNetns(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := strconv.FormatInt(time.Now().UnixNano()&0xffffff, 16)
	for len(id) < 6 {
		id = "0" + id
	}
	p, err := newNetnsPair(ctx, id, []string{"link", "set", "ptl-no-such-if", "up"})
	if err == nil {
		p.Close()
		t.Fatal("setup with a failing step succeeded")
	}
	if !strings.Contains(err.Error(), "ptl-no-such-if") {
		t.Fatalf("error does not name the failing step: %v", err)
	}
	if list := netnsList(t); strings.Contains(list, id) {
		t.Fatalf("namespaces left after a failed setup:\n%s", list)
	}
}
