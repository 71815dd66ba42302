package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

// Connections as MySQL limits them (docs/design/connections.md).
// Raw sockets (rawclient_test.go) where a driver would hide what the
// server sends.

// Error numbers of this file's tests.
const (
	erConCount          = 1040 // ER_CON_COUNT_ERROR
	erOutOfResources    = 1041 // ER_OUT_OF_RESOURCES
	erHandshakeError    = 1043 // ER_HANDSHAKE_ERROR
	erTooManyUserConns  = 1203 // ER_TOO_MANY_USER_CONNECTIONS
	erClientInteraction = 4031 // ER_CLIENT_INTERACTION_TIMEOUT
)

// waitStatus polls a global status counter until ok accepts it, for up
// to d; it returns the last value read.
func waitStatus(t *testing.T, ctx context.Context, q querier, name string, d time.Duration, ok func(int64) bool) int64 {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		v := globalStatus(t, ctx, q, name)
		if ok(v) || time.Now().After(deadline) {
			return v
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestMaxConnections: connections past max_connections get error 1040 as
// an ERR packet; an account with SUPER gets the one reserved connection
// more; a closed connection frees its slot; max_user_connections limits
// each account (1203).
func TestMaxConnections(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	const maxConns = 8
	p := startPetrel(t, ctx, lab.PetrelOptions{ExtraArgs: []string{"--config",
		configFile(t, map[string]string{"max_connections": strconv.Itoa(maxConns)})}})
	root := rootDB(t, p, "")
	root.SetMaxOpenConns(1)
	rc, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	mustExec(t, ctx, rc, "CREATE USER u IDENTIFIED WITH mysql_native_password BY 'u-pw'", "GRANT SELECT ON *.* TO u")
	if v := queryInt(t, ctx, rc, "SELECT @@GLOBAL.max_connections"); v != maxConns {
		t.Fatalf("max_connections = %d, want %d from the option file", v, maxConns)
	}
	if v := globalStatus(t, ctx, rc, "Petrel_connections_admitted"); v != 1 {
		t.Errorf("Petrel_connections_admitted = %d with root's one connection, want 1", v)
	}
	refusedBefore := globalStatus(t, ctx, rc, "Connection_errors_max_connections")

	// root holds one; u takes the other maxConns-1.
	var us []*rawClient
	for i := 0; i < maxConns-1; i++ {
		c := dialRaw(t, p.Port())
		if err := c.login("u", "u-pw", 0); err != nil {
			t.Fatalf("connection %d of u (of max_connections %d): %v", i+2, maxConns, err)
		}
		us = append(us, c)
	}
	over := dialRaw(t, p.Port())
	err = over.login("u", "u-pw", 0)
	if rawErrNo(err) != erConCount {
		t.Fatalf("connection %d with max_connections = %d: %v; want ERR %d", maxConns+1, maxConns, err, erConCount)
	}
	if e := err.(*rawErr); e.State != "08004" || e.Message != "Too many connections" {
		t.Errorf("refusal: SQLSTATE %q message %q; want 08004 \"Too many connections\"", e.State, e.Message)
	}
	if _, d, err := over.waitClosed(10 * time.Second); err != nil {
		t.Errorf("refused connection: %v after %v", err, d)
	}
	// The driver sees the same error.
	if _, err := login(ctx, p.DSN(""), "u", "u-pw"); errNo(err) != erConCount {
		t.Errorf("driver connection over the limit: %v; want error %d", err, erConCount)
	}

	// root has SUPER: one more, and only one.
	extra := dialRaw(t, p.Port())
	if err := extra.login("root", rootPassword, 0); err != nil {
		t.Fatalf("root's reserved connection (max_connections + 1): %v", err)
	}
	if err := extra.query("SELECT 1", 20*time.Second); err != nil {
		t.Errorf("SELECT 1 on the reserved connection: %v", err)
	}
	if err := dialRaw(t, p.Port()).login("root", rootPassword, 0); rawErrNo(err) != erConCount {
		t.Errorf("root's second connection over max_connections: %v; want ERR %d", err, erConCount)
	}
	if v := globalStatus(t, ctx, rc, "Petrel_connections_admitted"); v != maxConns+1 {
		t.Errorf("Petrel_connections_admitted = %d, want %d", v, maxConns+1)
	}
	if v := globalStatus(t, ctx, rc, "Connection_errors_max_connections"); v-refusedBefore != 3 {
		t.Errorf("Connection_errors_max_connections rose by %d, want 3 refusals", v-refusedBefore)
	}

	// A connection that ends frees its slot.
	us[0].c.Close()
	extra.c.Close()
	if v := waitStatus(t, ctx, rc, "Petrel_connections_admitted", 20*time.Second, func(v int64) bool { return v == maxConns-1 }); v != maxConns-1 {
		t.Fatalf("Petrel_connections_admitted = %d after two connections closed, want %d", v, maxConns-1)
	}
	again := dialRaw(t, p.Port())
	if err := again.login("u", "u-pw", 0); err != nil {
		t.Errorf("u after a connection closed: %v", err)
	}

	// max_user_connections: per account, for every account.
	mustExec(t, ctx, rc, "SET GLOBAL max_connections = 100", "SET GLOBAL max_user_connections = 3")
	for _, c := range us[1:] {
		c.c.Close()
	}
	// u keeps `again`; root keeps rc.
	if v := waitStatus(t, ctx, rc, "Petrel_connections_admitted", 20*time.Second, func(v int64) bool { return v == 2 }); v != 2 {
		t.Fatalf("Petrel_connections_admitted = %d, want 2", v)
	}
	for i := 0; i < 2; i++ {
		if err := dialRaw(t, p.Port()).login("u", "u-pw", 0); err != nil {
			t.Fatalf("u's connection %d of max_user_connections 3: %v", i+2, err)
		}
	}
	err = dialRaw(t, p.Port()).login("u", "u-pw", 0)
	if rawErrNo(err) != erTooManyUserConns {
		t.Fatalf("u's 4th connection with max_user_connections = 3: %v; want ERR %d", err, erTooManyUserConns)
	}
	if e := err.(*rawErr); e.State != "42000" || !strings.Contains(e.Message, "max_user_connections") {
		t.Errorf("refusal: SQLSTATE %q message %q; want 42000 naming max_user_connections", e.State, e.Message)
	}
	// Other accounts are not affected.
	if err := dialRaw(t, p.Port()).login("root", rootPassword, 0); err != nil {
		t.Errorf("root while u is at its limit: %v", err)
	}
}

// TestIdleSocketsDoNotLockOutRoot: 1000 TCP sockets that never send a
// handshake neither keep root (nor anyone) out while they are open nor
// stay open past connect_timeout; the server says so in the log, at most
// one line a second.
func TestIdleSocketsDoNotLockOutRoot(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	const idle = 1000
	const connectTimeout = 10 * time.Second // MySQL's default
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	root := rootDB(t, p, "")
	root.SetMaxOpenConns(1)
	mustExec(t, ctx, root, "CREATE USER u IDENTIFIED WITH mysql_native_password BY 'u-pw'")
	if v := queryInt(t, ctx, root, "SELECT @@GLOBAL.connect_timeout"); v != int64(connectTimeout/time.Second) {
		t.Fatalf("connect_timeout = %d, want the default %v", v, connectTimeout)
	}
	abortedBefore := globalStatus(t, ctx, root, "Aborted_connects")

	socks := make([]net.Conn, 0, idle)
	t.Cleanup(func() {
		for _, s := range socks {
			s.Close()
		}
	})
	dialed := time.Now()
	for i := 0; i < idle; i++ {
		s, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port())), 10*time.Second)
		if err != nil {
			t.Fatalf("idle socket %d: %v", i, err)
		}
		socks = append(socks, s)
	}
	allDialed := time.Since(dialed)
	if v := waitStatus(t, ctx, root, "Petrel_connections_authenticating", 5*time.Second, func(v int64) bool { return v >= idle }); v < idle {
		t.Errorf("Petrel_connections_authenticating = %d with %d idle sockets open", v, idle)
	}

	// root and u get in at once while the sockets are open.
	for _, who := range [][2]string{{"root", rootPassword}, {"u", "u-pw"}} {
		start := time.Now()
		c := dialRaw(t, p.Port())
		if err := c.login(who[0], who[1], 0); err != nil {
			t.Fatalf("%s while %d idle sockets are open: %v", who[0], idle, err)
		}
		if err := c.query("SELECT 1", 10*time.Second); err != nil {
			t.Fatalf("%s: SELECT 1: %v", who[0], err)
		}
		d := time.Since(start)
		if d > 5*time.Second {
			t.Errorf("%s took %v to log in with %d idle sockets open; want well under connect_timeout", who[0], d, idle)
		}
		t.Logf("%s logged in and ran SELECT 1 in %v with %d idle sockets open", who[0], d, idle)
		if time.Since(dialed) > connectTimeout {
			t.Fatalf("login checked %v after the sockets were opened, past connect_timeout: the host is too slow for this test", time.Since(dialed))
		}
	}

	// Each socket is closed by the server after connect_timeout.
	type closed struct {
		after time.Duration
		err   error
	}
	res := make([]closed, idle)
	var wg sync.WaitGroup
	for i, s := range socks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.SetReadDeadline(dialed.Add(connectTimeout + 40*time.Second))
			buf := make([]byte, 4096)
			for {
				if _, err := s.Read(buf); err != nil {
					res[i] = closed{time.Since(dialed), err}
					return
				}
			}
		}()
	}
	wg.Wait()
	var early, late, open int
	var last time.Duration
	for _, r := range res {
		var ne net.Error
		switch {
		case errors.As(r.err, &ne) && ne.Timeout():
			open++
		case r.after < connectTimeout-time.Second-allDialed:
			early++
		default:
			last = max(last, r.after)
			if r.after > connectTimeout+30*time.Second {
				late++
			}
		}
	}
	t.Logf("%d sockets dialled in %v; the last closed %v after the first dial", idle, allDialed, last)
	if open > 0 || early > 0 || late > 0 {
		t.Errorf("of %d idle sockets: %d still open %v after connect_timeout, %d closed before connect_timeout (%v), %d closed more than 30 s late",
			idle, open, 40*time.Second, early, connectTimeout, late)
	}
	if v := waitStatus(t, ctx, root, "Petrel_connections_authenticating", 10*time.Second, func(v int64) bool { return v == 0 }); v != 0 {
		t.Errorf("Petrel_connections_authenticating = %d after the idle sockets were closed, want 0", v)
	}
	if v := globalStatus(t, ctx, root, "Aborted_connects"); v-abortedBefore != idle {
		t.Errorf("Aborted_connects rose by %d, want %d", v-abortedBefore, idle)
	}

	// The log reports all of them, in lines at least a second apart.
	time.Sleep(2 * time.Second) // the rate limiter's last line
	var lines, reported int
	re := regexp.MustCompile(`connections=(\d+)`)
	for _, l := range strings.Split(p.Log(), "\n") {
		if !strings.Contains(l, "did not complete the handshake within connect_timeout") {
			continue
		}
		lines++
		if m := re.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			reported += n
		}
	}
	closing := last - (connectTimeout - time.Second - allDialed)
	if reported != idle || lines < 1 || time.Duration(lines-1)*time.Second > closing+time.Second {
		t.Errorf("log: %d lines reporting %d closed sockets; want %d sockets in at most one line a second (closing took %v)",
			lines, reported, idle, closing)
	}
	t.Logf("log: %d lines for %d closed sockets", lines, reported)
}

// TestBadHandshake: a handshake response the server cannot parse, or one
// larger than any handshake, gets ERR 1043 before the close, as in MySQL.
func TestBadHandshake(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	root := rootDB(t, p, "")
	root.SetMaxOpenConns(1)
	abortedBefore := globalStatus(t, ctx, root, "Aborted_connects")

	cases := []struct {
		name string
		send func(c *rawClient) error
	}{
		{"truncated response", func(c *rawClient) error { return c.writePacket([]byte{0x8d, 0xa6}) }},
		{"no user name terminator", func(c *rawClient) error {
			b := []byte{0x0d, 0xa6, 0x0f, 0x00, 0, 0, 0, 1, 45}
			b = append(b, make([]byte, 23)...)
			return c.writePacket(append(b, "root"...))
		}},
		{"16 MB handshake header", func(c *rawClient) error {
			_, err := c.c.Write([]byte{0xff, 0xff, 0xff, 1, 0x8d, 0xa6, 0x0f, 0x00})
			return err
		}},
		{"HTTP request", func(c *rawClient) error {
			_, err := c.c.Write([]byte("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"))
			return err
		}},
	}
	for _, tc := range cases {
		c := dialRaw(t, p.Port())
		if _, err := c.greeting(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		start := time.Now()
		if err := tc.send(c); err != nil {
			t.Fatalf("%s: send: %v", tc.name, err)
		}
		e, d, err := c.waitClosed(10 * time.Second)
		switch {
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case e == nil:
			t.Errorf("%s: closed after %v without an ERR packet; want %d", tc.name, d, erHandshakeError)
		case e.Number != erHandshakeError || e.State != "08S01" || e.Message != "Bad handshake":
			t.Errorf("%s: %v; want ERR %d (08S01) Bad handshake", tc.name, e, erHandshakeError)
		default:
			t.Logf("%s: %v, closed after %v", tc.name, e, time.Since(start))
		}
	}
	if v := globalStatus(t, ctx, root, "Aborted_connects"); v-abortedBefore != int64(len(cases)) {
		t.Errorf("Aborted_connects rose by %d, want %d", v-abortedBefore, len(cases))
	}

	// A burst of bad handshakes is logged in a few lines, not one each.
	const burst = 200
	start := time.Now()
	for i := 0; i < burst; i++ {
		c := dialRaw(t, p.Port())
		if _, err := c.greeting(); err != nil {
			t.Fatal(err)
		}
		if err := c.writePacket([]byte{0x8d, 0xa6}); err != nil {
			t.Fatal(err)
		}
		if e, _, err := c.waitClosed(10 * time.Second); err != nil || e == nil || e.Number != erHandshakeError {
			t.Fatalf("bad handshake %d of the burst: ERR %v, %v", i, e, err)
		}
		c.c.Close()
	}
	took := time.Since(start)
	time.Sleep(2 * time.Second) // the rate limiter's last lines
	most := int(took/time.Second) + 3
	vitessLines, _ := logSum(p.Log(), `msg="Cannot parse client handshake response`, "")
	ours, refused := logSum(p.Log(), "refused malformed handshakes", "connections")
	if all := burst + len(cases); refused != all || ours > most || vitessLines > most {
		t.Errorf("log after %d bad handshakes (%d in %v): %d lines reporting %d refusals, %d lines from vitess; want %d refusals, at most %d lines each",
			all, burst, took, ours, refused, vitessLines, all, most)
	}
	t.Logf("%d bad handshakes in %v: %d + %d log lines", burst, took, ours, vitessLines)
	if v := queryInt(t, ctx, root, "SELECT 1"); v != 1 {
		t.Errorf("SELECT 1 after the bad handshakes = %d", v)
	}
}

// TestNetTimeouts: net_read_timeout inside a packet, wait_timeout and
// interactive_timeout between commands, net_write_timeout on a client that
// stops reading; each closes the connection within generous bounds and
// frees what it held.
func TestNetTimeouts(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	root := rootDB(t, p, "")
	root.SetMaxOpenConns(1)
	const timeout = 2 // seconds, every timeout under test
	lower := time.Duration(timeout)*time.Second - 500*time.Millisecond
	upper := time.Duration(timeout)*time.Second + 20*time.Second

	rootRaw := func(t *testing.T, flags uint32, setup ...string) *rawClient {
		c := dialRaw(t, p.Port())
		if err := c.login("root", rootPassword, flags); err != nil {
			t.Fatal(err)
		}
		for _, q := range setup {
			if err := c.query(q, 20*time.Second); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		return c
	}

	t.Run("net_read_timeout mid-packet", func(t *testing.T) {
		abortedBefore := globalStatus(t, ctx, root, "Aborted_clients")
		for _, partial := range []int{0, 1000} {
			c := rootRaw(t, 0, fmt.Sprintf("SET SESSION net_read_timeout = %d", timeout))
			// A 16 MB packet's header, then partial bytes, then nothing.
			b := append([]byte{0xff, 0xff, 0xff, 0, 0x03}, "SELECT '"...)
			b = append(b, strings.Repeat("a", partial)...)
			if _, err := c.c.Write(b); err != nil {
				t.Fatal(err)
			}
			_, d, err := c.waitClosed(upper + 10*time.Second)
			if err != nil || d < lower || d > upper {
				t.Errorf("stall after %d bytes of a 16 MB packet: closed after %v (%v); want between %v and %v", partial, d, err, lower, upper)
			}
		}
		if v := globalStatus(t, ctx, root, "Aborted_clients"); v-abortedBefore != 2 {
			t.Errorf("Aborted_clients rose by %d, want 2", v-abortedBefore)
		}
		if v := waitStatus(t, ctx, root, "Petrel_packet_memory", 10*time.Second, func(v int64) bool { return v == 0 }); v != 0 {
			t.Errorf("Petrel_packet_memory = %d after the stalled connections closed, want 0", v)
		}
	})

	t.Run("wait_timeout", func(t *testing.T) {
		c := rootRaw(t, 0, fmt.Sprintf("SET SESSION wait_timeout = %d", timeout))
		// Other connections keep the default.
		keep := rootRaw(t, 0)
		e, d, err := c.waitClosed(upper + 10*time.Second)
		if err != nil || d < lower || d > upper {
			t.Errorf("idle with wait_timeout = %d: closed after %v (%v); want between %v and %v", timeout, d, err, lower, upper)
		}
		if e == nil || e.Number != erClientInteraction {
			t.Errorf("idle close: ERR %v; want %d first", e, erClientInteraction)
		}
		if err := keep.query("SELECT 1", 10*time.Second); err != nil {
			t.Errorf("a connection with the default wait_timeout, idle as long: %v", err)
		}
	})

	t.Run("interactive_timeout", func(t *testing.T) {
		mustExec(t, ctx, root, fmt.Sprintf("SET GLOBAL interactive_timeout = %d", timeout))
		defer mustExec(t, ctx, root, "SET GLOBAL interactive_timeout = DEFAULT")
		c := rootRaw(t, clientInteractiveFlag)
		batch := rootRaw(t, 0)
		// The interactive client's session starts with wait_timeout =
		// interactive_timeout, as in MySQL; the other keeps wait_timeout.
		if v, err := c.queryValue("SELECT @@SESSION.wait_timeout", 10*time.Second); err != nil || v != strconv.Itoa(timeout) {
			t.Errorf("interactive session: @@SESSION.wait_timeout = %q (%v), want %d", v, err, timeout)
		}
		if v, err := batch.queryValue("SELECT @@SESSION.wait_timeout", 10*time.Second); err != nil || v != "28800" {
			t.Errorf("non-interactive session: @@SESSION.wait_timeout = %q (%v), want 28800", v, err)
		}
		_, d, err := c.waitClosed(upper + 10*time.Second)
		if err != nil || d < lower || d > upper {
			t.Errorf("interactive client idle with interactive_timeout = %d: closed after %v (%v); want between %v and %v", timeout, d, err, lower, upper)
		}
		if err := batch.query("SELECT 1", 10*time.Second); err != nil {
			t.Errorf("a non-interactive client (wait_timeout) idle as long: %v", err)
		}
	})

	t.Run("net_write_timeout", func(t *testing.T) {
		c := dialRaw(t, p.Port())
		if tc, ok := c.c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(64 << 10)
		}
		if err := c.login("root", rootPassword, 0); err != nil {
			t.Fatal(err)
		}
		if err := c.query(fmt.Sprintf("SET SESSION net_write_timeout = %d", timeout), 20*time.Second); err != nil {
			t.Fatal(err)
		}
		id := c.id
		if n := queryInt(t, ctx, root, "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ?", id); n != 1 {
			t.Fatalf("connection %d: %d rows in the processlist, want 1", id, n)
		}
		abortedBefore := globalStatus(t, ctx, root, "Aborted_clients")
		// About 400 MB of result that the client never reads.
		c.seq = 0
		q := "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 400) SELECT n, REPEAT('x', 1000000) FROM s"
		if err := c.writePacket(append([]byte{0x03}, q...)); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var n int64 = 1
		for n > 0 && time.Since(start) < upper+20*time.Second {
			time.Sleep(200 * time.Millisecond)
			n = queryInt(t, ctx, root, "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ?", id)
		}
		d := time.Since(start)
		if n != 0 || d < lower || d > upper+10*time.Second {
			t.Errorf("client not reading with net_write_timeout = %d: connection gone after %v (still there: %v); want between %v and %v",
				timeout, d, n != 0, lower, upper+10*time.Second)
		}
		if v := globalStatus(t, ctx, root, "Aborted_clients"); v-abortedBefore != 1 {
			t.Errorf("Aborted_clients rose by %d, want 1", v-abortedBefore)
		}
	})
}

// dialIdle opens n sockets to port that never send anything; they are
// closed when the test ends.
func dialIdle(t *testing.T, port, n int) []net.Conn {
	t.Helper()
	socks := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, s := range socks {
			s.Close()
		}
	})
	for i := 0; i < n; i++ {
		s, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 10*time.Second)
		if err != nil {
			t.Fatalf("idle socket %d: %v", i, err)
		}
		socks = append(socks, s)
	}
	return socks
}

// closedWithin reports which sockets the server closed within d (all are
// read concurrently).
func closedWithin(socks []net.Conn, d time.Duration) []bool {
	out := make([]bool, len(socks))
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for i, s := range socks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.SetReadDeadline(deadline)
			buf := make([]byte, 512)
			for {
				_, err := s.Read(buf)
				if err != nil {
					var ne net.Error
					out[i] = !(errors.As(err, &ne) && ne.Timeout())
					return
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// logSum adds up key=N over the log lines containing msg.
func logSum(log, msg, key string) (lines, sum int) {
	re := regexp.MustCompile(`\b` + key + `=(\d+)`)
	for _, l := range strings.Split(log, "\n") {
		if !strings.Contains(l, msg) {
			continue
		}
		lines++
		if m := re.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			sum += n
		}
	}
	return lines, sum
}

// TestHandshakeFlood: more idle sockets than the server holds
// authenticating (1024, or max_connections if larger) close the oldest;
// running out of file descriptors does not stop the accept loop. Root
// gets in throughout.
func TestHandshakeFlood(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	root := rootDB(t, p, "")
	root.SetMaxOpenConns(1)
	rootLogin := func(t *testing.T, within time.Duration) {
		t.Helper()
		start := time.Now()
		c := dialRaw(t, p.Port())
		if err := c.login("root", rootPassword, 0); err != nil {
			t.Fatalf("root: %v", err)
		}
		if err := c.query("SELECT 1", 10*time.Second); err != nil {
			t.Fatalf("root: SELECT 1: %v", err)
		}
		d := time.Since(start)
		if d > within {
			t.Errorf("root took %v to get in; want under %v", d, within)
		}
		t.Logf("root got in in %v", d)
		c.c.Close()
	}

	t.Run("oldest evicted", func(t *testing.T) {
		const held, extra = 1024, 100
		// Long enough for every check below.
		mustExec(t, ctx, root, "SET GLOBAL connect_timeout = 120")
		defer mustExec(t, ctx, root, "SET GLOBAL connect_timeout = DEFAULT")
		socks := dialIdle(t, p.Port(), held+extra)
		if v := waitStatus(t, ctx, root, "Petrel_connections_authenticating", 10*time.Second, func(v int64) bool { return v == held }); v != held {
			t.Errorf("Petrel_connections_authenticating = %d with %d idle sockets, want %d", v, held+extra, held)
		}
		rootLogin(t, 5*time.Second)
		// The oldest are closed at once, long before connect_timeout (10 s).
		closed := closedWithin(socks, 4*time.Second)
		var early, firstEvicted int
		for i, c := range closed {
			if c {
				early++
				if i < extra+10 {
					firstEvicted++
				}
			}
		}
		// root's own handshake was one more socket.
		if early < extra || early > extra+1 || firstEvicted < extra-10 {
			t.Errorf("%d sockets closed early (%d of them among the first %d opened); want the %d oldest", early, firstEvicted, extra+10, extra)
		}
		time.Sleep(2 * time.Second) // the rate limiter's last line
		lines, sum := logSum(p.Log(), "too many connections authenticating at once", "connections")
		if sum < extra || sum > extra+1 || lines < 1 || lines > 6 {
			t.Errorf("log: %d lines reporting %d evictions; want %d in a few lines", lines, sum, extra)
		}
		for _, s := range socks {
			s.Close()
		}
		if v := waitStatus(t, ctx, root, "Petrel_connections_authenticating", 10*time.Second, func(v int64) bool { return v == 0 }); v != 0 {
			t.Errorf("Petrel_connections_authenticating = %d after the sockets closed", v)
		}
	})

	t.Run("out of file descriptors", func(t *testing.T) {
		prlimit := requireTool(t, "prlimit", "/usr/bin/prlimit")
		const fds = 256
		if out, err := exec.CommandContext(ctx, prlimit, "--pid", strconv.Itoa(p.Pid()), fmt.Sprintf("--nofile=%d:", fds)).CombinedOutput(); err != nil {
			t.Fatalf("prlimit: %v: %s", err, out)
		}
		acceptErrs := globalStatus(t, ctx, root, "Connection_errors_accept")
		socks := dialIdle(t, p.Port(), 2*fds)
		// Accepting failed (EMFILE), and went on.
		if v := waitStatus(t, ctx, root, "Connection_errors_accept", 10*time.Second, func(v int64) bool { return v > acceptErrs }); v == acceptErrs {
			t.Fatalf("Connection_errors_accept stayed %d with %d sockets against a limit of %d descriptors", v, 2*fds, fds)
		}
		rootLogin(t, 20*time.Second)
		if v := queryInt(t, ctx, root, "SELECT COUNT(*) FROM information_schema.processlist"); v < 1 {
			t.Errorf("processlist: %d rows", v)
		}
		for _, s := range socks {
			s.Close()
		}
		if out, err := exec.CommandContext(ctx, prlimit, "--pid", strconv.Itoa(p.Pid()), fmt.Sprintf("--nofile=%d:", 8*fds)).CombinedOutput(); err != nil {
			t.Fatalf("prlimit: %v: %s", err, out)
		}
		rootLogin(t, 10*time.Second)
		if lines, _ := logSum(p.Log(), "accepting connections failed; retrying", "errors"); lines < 1 {
			t.Errorf("log: no line about the accept errors")
		}
	})
}
