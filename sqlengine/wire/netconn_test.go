package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"petrel/internal/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/variables"
	"github.com/dolthub/vitess/go/mysql"
)

// The connection wrapper over real loopback sockets: the test plays both
// the client (raw bytes) and vitess (Conn.Read).

func testGate(t *testing.T) *Gate { return testGateWith(t, settingsMap{}) }

// testGateWith is testGate with some variables set.
func testGateWith(t *testing.T, vars settingsMap) *Gate {
	t.Helper()
	if sql.StatusVariables == nil {
		// The server's engine does this (GMS's status counters).
		variables.InitStatusVariables()
	}
	return NewGate(GateOptions{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Settings: vars,
		Account: func(u, h string) (string, bool) { return u + "@" + h, u == "admin" },
	})
}

// settingsMap is Settings with the variables it holds set, every other at
// its default.
type settingsMap map[string]int64

func (m settingsMap) Int(name string, def int64) int64 {
	if v, ok := m[name]; ok {
		return v
	}
	return def
}

func (m settingsMap) Bool(name string) bool { return m[name] != 0 }

func (m settingsMap) String(_, def string) string { return def }

// connPair is a loopback TCP connection: srv is wrapped in Conn.
func connPair(t *testing.T, g *Gate) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cli, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	cc := g.accepted(srv)
	t.Cleanup(func() { cli.Close(); cc.Close() })
	return cc.(*Conn), cli
}

// frame is a packet frame: 3-byte length, sequence id, payload.
func frame(seq byte, payload []byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

// readFrame reads one frame from r (vitess's side: Conn.Read) within d.
func readFrame(r io.Reader) (seq byte, payload []byte, err error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	p := make([]byte, n)
	_, err = io.ReadFull(r, p)
	return hdr[3], p, err
}

// clientErr reads the ERR packet the server sent the client.
func clientErr(t *testing.T, c net.Conn) (byte, uint16, string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	seq, p, err := readFrame(c)
	if err != nil {
		t.Fatalf("client: reading the ERR packet: %v", err)
	}
	if len(p) < 9 || p[0] != mysql.ErrPacket {
		t.Fatalf("client: got %x, want an ERR packet", p[:min(len(p), 16)])
	}
	return seq, binary.LittleEndian.Uint16(p[1:3]), string(p[9:])
}

func write(t *testing.T, c net.Conn, b []byte) {
	t.Helper()
	_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
}

// command puts cc in the command phase with small limits.
func command(cc *Conn, maxPacket int64) {
	cc.startCommands(nil)
	cc.maxPacket.Store(maxPacket)
}

func TestCmdConnHandshakeFrameLimit(t *testing.T) {
	g := testGate(t)
	cc, cli := connPair(t, g)
	if g.handshaking() != 1 {
		t.Fatalf("handshaking = %d, want 1", g.handshaking())
	}
	write(t, cli, []byte{0, 0, 16, 1}) // 1 MiB handshake response
	_, _, err := readFrame(cc)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("vitess read: %v, want io.EOF", err)
	}
	seq, code, msg := clientErr(t, cli)
	if seq != 2 || code != mysqlerr.ErHandshake || msg != "Bad handshake" {
		t.Errorf("ERR seq %d code %d %q; want seq 2, %d Bad handshake", seq, code, msg, mysqlerr.ErHandshake)
	}
	if g.handshaking() != 0 {
		t.Errorf("handshaking = %d after the refusal, want 0", g.handshaking())
	}
}

func TestCmdConnPacketTooLarge(t *testing.T) {
	g := testGate(t)
	cc, cli := connPair(t, g)
	command(cc, 100<<10)
	// A small command passes through unchanged.
	q := append([]byte{0x03}, "SELECT 1"...)
	write(t, cli, frame(0, q))
	if _, p, err := readFrame(cc); err != nil || !bytes.Equal(p, q) {
		t.Fatalf("small command: %q %v", p, err)
	}
	write(t, cli, []byte{0, 0, 2, 0}) // 128 KiB, over 100 KiB
	if _, _, err := readFrame(cc); !errors.Is(err, io.EOF) {
		t.Fatalf("vitess read: %v, want io.EOF", err)
	}
	seq, code, _ := clientErr(t, cli)
	if seq != 1 || code != mysql.ERNetPacketTooLarge {
		t.Errorf("ERR seq %d code %d; want seq 1, %d", seq, code, mysql.ERNetPacketTooLarge)
	}
	_ = cli.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := cli.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("client after the refusal: %v, want the connection closed", err)
	}
}

// TestCmdConnMultiFramePacket: a packet of several frames reaches vitess
// byte for byte, holds max_allowed_packet of the budget while its size is
// unknown, its size once it ended, and nothing once the next command is
// awaited.
func TestCmdConnMultiFramePacket(t *testing.T) {
	g := testGate(t)
	cc, cli := connPair(t, g)
	command(cc, 20<<20)
	body := bytes.Repeat([]byte("0123456789abcdef"), (maxFrame+1000)/16)
	body[0] = 0x03
	var wire []byte
	wire = append(wire, frame(0, body[:maxFrame])...)
	wire = append(wire, frame(1, body[maxFrame:])...)
	go func() { _ = cli.SetWriteDeadline(time.Now().Add(20 * time.Second)); _, _ = cli.Write(wire) }()

	var got []byte
	for {
		_, p, err := readFrame(cc)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			if h := g.budget.inUse(); h != 20<<20 {
				t.Errorf("after the first full frame: %d bytes held, want max_allowed_packet %d", h, 20<<20)
			}
		}
		got = append(got, p...)
		if len(p) < maxFrame {
			break
		}
	}
	if !bytes.Equal(got, body) {
		t.Fatalf("packet of %d bytes arrived as %d bytes (equal: false)", len(body), len(got))
	}
	if h := g.budget.inUse(); h != int64(len(body)) {
		t.Errorf("after the packet: %d bytes held, want its size %d", h, len(body))
	}
	// vitess asks for the next command: the memory is free.
	write(t, cli, frame(0, []byte{0x0e})) // COM_PING
	if _, p, err := readFrame(cc); err != nil || !bytes.Equal(p, []byte{0x0e}) {
		t.Fatalf("next command: %x %v", p, err)
	}
	if h := g.budget.inUse(); h != 0 {
		t.Errorf("at the next command: %d bytes held, want 0", h)
	}
}

// TestCmdConnBudget: a packet waits while the budget is held, first come
// first served; one larger than the budget, or one that waited
// net_read_timeout, gets ER_OUT_OF_RESOURCES and the connection goes on.
func TestCmdConnBudget(t *testing.T) {
	g := testGateWith(t, settingsMap{PacketMemoryVar: 1 << 20})
	a, acli := connPair(t, g)
	b, bcli := connPair(t, g)
	command(a, 4<<20)
	command(b, 4<<20)
	big := append([]byte{0x03}, bytes.Repeat([]byte("x"), 700<<10)...)

	write(t, acli, frame(0, big))
	if _, p, err := readFrame(a); err != nil || len(p) != len(big) {
		t.Fatalf("a: %d bytes, %v", len(p), err)
	}
	if h := g.budget.inUse(); h != int64(len(big)) {
		t.Fatalf("held %d, want %d", h, len(big))
	}
	// b's packet does not fit beside a's: it waits.
	write(t, bcli, frame(0, big))
	type res struct {
		p   []byte
		err error
	}
	bDone := make(chan res, 1)
	go func() {
		_, p, err := readFrame(b)
		bDone <- res{p, err}
	}()
	select {
	case r := <-bDone:
		t.Fatalf("b read %d bytes (%v) while a holds the budget", len(r.p), r.err)
	case <-time.After(300 * time.Millisecond):
	}
	if w := g.budget.waits.Load(); w != 1 {
		t.Errorf("waits = %d, want 1", w)
	}
	// a's command ends (vitess reads a's next command): b goes on.
	write(t, acli, frame(0, []byte{0x0e}))
	if _, _, err := readFrame(a); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-bDone:
		if r.err != nil || len(r.p) != len(big) {
			t.Fatalf("b: %d bytes, %v", len(r.p), r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("b still waiting 10 s after a released the budget")
	}

	// Larger than the whole budget: refused at once, connection usable.
	huge := append([]byte{0x03}, bytes.Repeat([]byte("y"), 2<<20)...)
	write(t, acli, frame(0, huge))
	write(t, acli, frame(0, []byte{0x0e}))
	if _, p, err := readFrame(a); err != nil || !bytes.Equal(p, []byte{0x0e}) {
		t.Fatalf("a after the refused packet: %x %v; want the next command", p[:min(len(p), 8)], err)
	}
	seq, code, msg := clientErr(t, acli)
	if seq != 1 || code != mysql.EROutOfResources || !strings.Contains(msg, PacketMemoryVar) {
		t.Errorf("ERR seq %d code %d %q; want seq 1, %d naming %s", seq, code, msg, mysql.EROutOfResources, PacketMemoryVar)
	}

	// b still holds 700 KiB; a waits net_read_timeout, then is refused.
	a.netReadTimeout.Store(int64(300 * time.Millisecond))
	write(t, acli, frame(0, big))
	write(t, acli, frame(0, []byte{0x0e}))
	start := time.Now()
	if _, p, err := readFrame(a); err != nil || !bytes.Equal(p, []byte{0x0e}) {
		t.Fatalf("a after the timed-out wait: %x %v", p[:min(len(p), 8)], err)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 10*time.Second {
		t.Errorf("refused after %v; want about net_read_timeout (300ms)", d)
	}
	_, code, msg = clientErr(t, acli)
	if code != mysql.EROutOfResources || !strings.Contains(msg, "waited") {
		t.Errorf("ERR %d %q; want %d after waiting", code, msg, mysql.EROutOfResources)
	}
	if r := g.budget.refused.Load(); r != 2 {
		t.Errorf("refused = %d, want 2", r)
	}
	if h := g.budget.inUse(); h != int64(len(big)) {
		t.Errorf("held %d, want b's %d", h, len(big))
	}
	b.Close()
	if h := g.budget.inUse(); h != 0 {
		t.Errorf("held %d after b closed, want 0", h)
	}
}

func TestCmdConnTimeouts(t *testing.T) {
	g := testGate(t)
	t.Run("mid-packet", func(t *testing.T) {
		cc, cli := connPair(t, g)
		command(cc, 64<<20)
		cc.netReadTimeout.Store(int64(300 * time.Millisecond))
		write(t, cli, append([]byte{0xe8, 0x03, 0, 0}, "\x03SELECT"...)) // 1000 bytes promised, 7 sent
		start := time.Now()
		_, _, err := readFrame(cc)
		d := time.Since(start)
		if err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "net_read_timeout") {
			t.Errorf("stalled packet: %v; want a net_read_timeout error", err)
		}
		if d < 250*time.Millisecond || d > 10*time.Second {
			t.Errorf("stalled packet ended after %v; want about 300ms", d)
		}
	})
	t.Run("idle", func(t *testing.T) {
		cc, cli := connPair(t, g)
		command(cc, 64<<20)
		cc.waitTimeout.Store(int64(300 * time.Millisecond))
		start := time.Now()
		if _, _, err := readFrame(cc); !errors.Is(err, io.EOF) {
			t.Errorf("idle: %v, want io.EOF", err)
		}
		if d := time.Since(start); d < 250*time.Millisecond || d > 10*time.Second {
			t.Errorf("idle connection ended after %v; want about 300ms", d)
		}
		if _, code, _ := clientErr(t, cli); code != mysqlerr.ErClientInteractionTimeout {
			t.Errorf("ERR %d, want %d", code, mysqlerr.ErClientInteractionTimeout)
		}
	})
	t.Run("connect_timeout", func(t *testing.T) {
		cc, _ := connPair(t, g)
		_ = cc.Conn.SetDeadline(time.Now().Add(300 * time.Millisecond))
		if _, _, err := readFrame(cc); !errors.Is(err, io.EOF) {
			t.Errorf("handshake never sent: %v, want io.EOF", err)
		}
	})
}

func TestConnCounts(t *testing.T) {
	var n connCounts
	for i := 0; i < 3; i++ {
		if err := n.admit("u@%", "u", false, 3, 0); err != nil {
			t.Fatalf("connection %d of 3: %v", i+1, err)
		}
	}
	var se *mysql.SQLError
	if err := n.admit("v@%", "v", false, 3, 0); !errors.As(err, &se) || se.Num != mysql.ERConCount {
		t.Fatalf("4th of max 3: %v; want %d", err, mysql.ERConCount)
	}
	if err := n.admit("root@%", "root", true, 3, 0); err != nil {
		t.Fatalf("admin's reserved connection: %v", err)
	}
	if err := n.admit("root@%", "root", true, 3, 0); !errors.As(err, &se) || se.Num != mysql.ERConCount {
		t.Fatalf("admin's second over the limit: %v; want %d", err, mysql.ERConCount)
	}
	if err := n.admit("u@%", "u", false, 10, 3); !errors.As(err, &se) || se.Num != mysql.ERTooManyUserConnections {
		t.Fatalf("u's 4th with max_user_connections 3: %v; want %d", err, mysql.ERTooManyUserConnections)
	}
	if err := n.admit("v@%", "v", false, 10, 3); err != nil {
		t.Fatalf("another account: %v", err)
	}
	n.release("u@%")
	if err := n.admit("u@%", "u", false, 10, 3); err != nil {
		t.Fatalf("u after one of its connections closed: %v", err)
	}
	for _, a := range []string{"u@%", "u@%", "u@%", "root@%", "v@%"} {
		n.release(a)
	}
	if n.total != 0 || len(n.perAccount) != 0 {
		t.Errorf("after releasing all: total %d, accounts %v", n.total, n.perAccount)
	}
}

func TestPacketBudgetGC(t *testing.T) {
	var mu sync.Mutex
	percent := 400
	var calls []int
	freed := make(chan struct{}, 4)
	b := &packetBudget{
		gcPercent: func(p int) int {
			mu.Lock()
			defer mu.Unlock()
			old := percent
			percent = p
			calls = append(calls, p)
			return old
		},
		returnMemory: func() { freed <- struct{}{} },
	}
	const limit = 64 << 20
	far := time.Now().Add(time.Minute)
	if err := b.acquire(10<<20, limit, far, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.acquire(10<<20, limit, far, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if percent != busyGCPercent {
		t.Errorf("GC percent %d while packets are held, want %d", percent, busyGCPercent)
	}
	mu.Unlock()
	b.release(10<<20, limit)
	select {
	case <-freed:
		t.Error("memory returned while a packet is still held")
	case <-time.After(100 * time.Millisecond):
	}
	b.release(10<<20, limit)
	select {
	case <-freed:
	case <-time.After(10 * time.Second):
		t.Error("memory not returned 10 s after the budget emptied")
	}
	mu.Lock()
	defer mu.Unlock()
	if percent != 400 || len(calls) != 2 {
		t.Errorf("GC percent %d after the budget emptied (calls %v); want 400 restored, 2 calls", percent, calls)
	}
}

func TestRateLog(t *testing.T) {
	type line struct{ n int }
	lines := make(chan line, 10)
	r := newRateLog(func(n int, _ string) { lines <- line{n} })
	for i := 0; i < 100; i++ {
		r.note("x")
	}
	first := <-lines
	if first.n != 1 {
		t.Errorf("first line reports %d events, want 1 (logged at once)", first.n)
	}
	start := time.Now()
	select {
	case l := <-lines:
		if l.n != 99 {
			t.Errorf("second line reports %d events, want 99", l.n)
		}
		if d := time.Since(start); d < 500*time.Millisecond {
			t.Errorf("second line after %v, want about a second", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other 99 events were not reported within 10 s")
	}
	select {
	case l := <-lines:
		t.Errorf("a third line (%d events) for one burst", l.n)
	case <-time.After(1500 * time.Millisecond):
	}
}

// TestCmdConnGathersPrepareResponse: vitess writes a COM_STMT_PREPARE's
// response packet by packet (a column definition per parameter); the
// connection sends them in one write when vitess reads the next command,
// in order and whole, and writes nothing meanwhile.
func TestCmdConnGathersPrepareResponse(t *testing.T) {
	g := testGate(t)
	cc, cli := connPair(t, g)
	command(cc, 1<<20)
	write(t, cli, frame(0, append([]byte{mysql.ComPrepare}, "SELECT ?, ?"...)))
	if _, p, err := readFrame(cc); err != nil || p[0] != mysql.ComPrepare {
		t.Fatalf("prepare frame: %x %v", p, err)
	}
	var want []byte
	for i := range 5 {
		pkt := frame(byte(i+1), bytes.Repeat([]byte{byte('a' + i)}, 10+i))
		want = append(want, pkt...)
		if n, err := cc.Write(pkt); err != nil || n != len(pkt) {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	_ = cli.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	var one [1]byte
	if n, err := cli.Read(one[:]); n != 0 || err == nil {
		t.Fatalf("the client got %d bytes before vitess read on (%v): the response was not gathered", n, err)
	}
	next := make(chan []byte, 1)
	go func() {
		_, p, _ := readFrame(cc) // flushes, then waits for the client's next command
		next <- p
	}()
	_ = cli.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := make([]byte, len(want))
	if _, err := io.ReadFull(cli, got); err != nil {
		t.Fatalf("client: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("client got %q, want %q", got, want)
	}
	query := append([]byte{mysql.ComQuery}, "SELECT 1"...)
	write(t, cli, frame(0, query))
	select {
	case p := <-next:
		if !bytes.Equal(p, query) {
			t.Fatalf("next command: %x", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the next command did not arrive")
	}
	// Writes after that go out at once again.
	if _, err := cc.Write(frame(1, []byte{0})); err != nil {
		t.Fatal(err)
	}
	if _, p, err := readFrame(cli); err != nil || !bytes.Equal(p, []byte{0}) {
		t.Fatalf("OK after the query: %x %v", p, err)
	}
}

// A COM_PING's OK, which vitess writes as its header and then its
// payload (two socket writes, two wake-ups of the client), reaches the
// client in one write when vitess reads on.
func TestCmdConnGathersPingReply(t *testing.T) {
	g := testGate(t)
	cc, cli := connPair(t, g)
	command(cc, 1<<20)
	write(t, cli, frame(0, []byte{mysql.ComPing}))
	if _, p, err := readFrame(cc); err != nil || !bytes.Equal(p, []byte{mysql.ComPing}) {
		t.Fatalf("ping frame: %x %v", p, err)
	}
	ok := frame(1, []byte{0, 0, 0, 2, 0, 0, 0})
	for _, part := range [][]byte{ok[:4], ok[4:]} {
		if n, err := cc.Write(part); err != nil || n != len(part) {
			t.Fatalf("write: %d, %v", n, err)
		}
	}
	_ = cli.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	var buf [64]byte
	if n, err := cli.Read(buf[:]); n != 0 || err == nil {
		t.Fatalf("the client got %q before vitess read on: the reply went out in pieces", buf[:n])
	}
	go func() { _, _, _ = readFrame(cc) }() // flushes, then waits
	_ = cli.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := cli.Read(buf[:])
	if err != nil || !bytes.Equal(buf[:n], ok) {
		t.Fatalf("client read %q (%v), want the whole OK %q in one read", buf[:n], err, ok)
	}
}
