package proxy

import (
	"crypto/sha1"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// nativeHash is mysql.user's "*HEX" of SHA1(SHA1(pw)).
func nativeHash(pw string) string {
	s1 := sha1.Sum([]byte(pw))
	s2 := sha1.Sum(s1[:])
	return "*" + strings.ToUpper(hex.EncodeToString(s2[:]))
}

func TestCheckNative(t *testing.T) {
	salt := []byte("abcdefghijklmnopqrst")
	ac := account{user: "u", host: "%", plugin: "mysql_native_password", authString: nativeHash("secret")}
	h := sha1.Sum([]byte("secret"))
	good := scrambleNative(credential{stage1: h[:]}, salt)
	stage1, ok := checkNative(ac, salt, good)
	if !ok || string(stage1) != string(h[:]) {
		t.Fatalf("the right password: ok=%v, stage1 %x want %x", ok, stage1, h)
	}
	// The derived SHA1(pw) answers any other salt as the password would.
	other := []byte("01234567890123456789")
	if a, b := scrambleNative(credential{stage1: stage1}, other), scrambleNative(credential{password: "secret", hasPass: true}, other); string(a) != string(b) {
		t.Fatal("SHA1(pw) and the password scramble differently")
	}
	for _, bad := range [][]byte{scrambleNative(credential{password: "secreT", hasPass: true}, salt), nil, good[:19]} {
		if _, ok := checkNative(ac, salt, bad); ok {
			t.Fatalf("answer %x accepted", bad)
		}
	}
	empty := account{user: "e", host: "%", authString: ""}
	if _, ok := checkNative(empty, salt, nil); !ok {
		t.Fatal("an empty password refused")
	}
	if _, ok := checkNative(empty, salt, good); ok {
		t.Fatal("an answer accepted for an empty password")
	}
}

func TestMatchAccount(t *testing.T) {
	list := []account{{host: "%"}, {host: "10.0.%"}, {host: "10.0.0.7"}, {host: "localhost"}}
	for _, c := range []struct{ client, want string }{
		{"10.0.0.7", "10.0.0.7"}, {"10.0.3.1", "10.0.%"}, {"192.168.1.1", "%"}, {"127.0.0.1", "localhost"},
	} {
		got, ok := matchAccount(list, c.client)
		if !ok || got.host != c.want {
			t.Errorf("client %s matched %q (%v), want %q", c.client, got.host, ok, c.want)
		}
	}
	if _, ok := matchAccount([]account{{host: "10.%"}}, "192.168.1.1"); ok {
		t.Error("10.% matched 192.168.1.1")
	}
}

func TestExecuteBody(t *testing.T) {
	ps := &pstmt{params: 2}
	// stmt id 7, cursor flag 1, iteration 1, null map, bound, 2 types, values.
	first := []byte{comStmtExecute, 7, 0, 0, 0, 1, 1, 0, 0, 0, 0x00, 1, 0x08, 0, 0xfd, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1, 'x'}
	got, err := executeBody(first, ps)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 1, 0, 0, 0, 0x00, 1, 0x08, 0, 0xfd, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1, 'x'}
	if string(got) != string(want) {
		t.Fatalf("first execution:\n%x\nwant\n%x", got, want)
	}
	// A later execution without types gets the saved ones.
	later := []byte{comStmtExecute, 7, 0, 0, 0, 0, 1, 0, 0, 0, 0x00, 0, 6, 0, 0, 0, 0, 0, 0, 0, 1, 'y'}
	got, err = executeBody(later, ps)
	if err != nil {
		t.Fatal(err)
	}
	want = []byte{0, 1, 0, 0, 0, 0x00, 1, 0x08, 0, 0xfd, 0, 6, 0, 0, 0, 0, 0, 0, 0, 1, 'y'}
	if string(got) != string(want) {
		t.Fatalf("later execution:\n%x\nwant\n%x", got, want)
	}
	if _, err := executeBody(later[:11], &pstmt{params: 2}); err == nil {
		t.Fatal("a truncated execution accepted")
	}
	if _, err := executeBody(later, &pstmt{params: 2}); err == nil {
		t.Fatal("an execution without types accepted before any types")
	}
}

// TestServerBadHandshake: a proxy whose backends do not answer refuses a
// malformed handshake with 1043 and an unknown login with 1045, keeps
// serving, marks the backends down, and Close ends every goroutine.
func TestServerBadHandshake(t *testing.T) {
	dead := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		a := ln.Addr().String()
		ln.Close()
		return a
	}
	metricsAddr := dead()
	s, err := Start(Options{Listen: "127.0.0.1:0", AdminListen: "127.0.0.1:0", MetricsListen: metricsAddr, Primary: dead(), Replicas: []string{dead()},
		CheckInterval: 20 * time.Millisecond, CheckTimeout: 100 * time.Millisecond, ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dial := func() *packetConn {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		pc := newPacketConn(c)
		pc.deadline(5 * time.Second)
		if g, err := pc.readPacket(0); err != nil || g[0] != 10 {
			t.Fatalf("greeting %x, %v", g, err)
		}
		return pc
	}
	errNo := func(pc *packetConn) uint16 {
		p, err := pc.readPacket(0)
		if err != nil || !isERR(p) {
			t.Fatalf("want an error packet, got %x, %v", p, err)
		}
		return parseERR(p).Code
	}
	for _, bad := range [][]byte{{1, 2, 3}, make([]byte, 40)} {
		pc := dial()
		_ = pc.writePacket(bad)
		_ = pc.flush()
		if n := errNo(pc); n != 1043 {
			t.Fatalf("malformed handshake %x: error %d, want 1043", bad, n)
		}
	}
	// A well-formed login the proxy cannot check (no primary): 1045.
	pc := dial()
	hello := []byte{0x85, 0xa2, 0x3f, 0x00, 0, 0, 0, 1, 33}
	hello = append(hello, make([]byte, 23)...)
	hello = append(hello, "root\x00"...)
	hello = append(hello, 0)
	_ = pc.writePacket(hello)
	_ = pc.flush()
	if n := errNo(pc); n != 1045 {
		t.Fatalf("login without a primary: error %d, want 1045", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		rows := s.Servers()
		if rows[0].State == "down" && rows[1].State == "down" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backends not down: %+v", rows)
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`petrel_proxy_backend_online{backend="` + s.opts.Primary + `",role="primary",state="down"} 0`,
		`petrel_proxy_backend_lag_seconds{backend="` + s.opts.Replicas[0] + `",role="replica",state="down"} NaN`,
	} {
		if !strings.Contains(string(body), want) {
			t.Fatalf("metrics lack %q:\n%s", want, body)
		}
	}
}

// TestServerMaxClients: past MaxClients a connection gets error 1040 at
// once, the ones before it keep their handshake, and the count frees up
// when they leave.
func TestServerMaxClients(t *testing.T) {
	s, err := Start(Options{Listen: "127.0.0.1:0", AdminListen: "-", Primary: "127.0.0.1:1", MaxClients: 20,
		CheckInterval: 50 * time.Millisecond, ConnectTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	open := func() (*packetConn, []byte) {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		pc := newPacketConn(c)
		pc.deadline(5 * time.Second)
		p, err := pc.readPacket(0)
		if err != nil {
			t.Fatal(err)
		}
		return pc, p
	}
	var held []*packetConn
	for range 20 {
		pc, p := open()
		if p[0] != 10 {
			t.Fatalf("connection %d: %x, want a greeting", len(held), p)
		}
		held = append(held, pc)
	}
	for range 5 {
		if _, p := open(); !isERR(p) || parseERR(p).Code != 1040 {
			t.Fatalf("past MaxClients: %x, want error 1040", p)
		}
	}
	for _, pc := range held {
		pc.c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.clients.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, p := open(); p[0] != 10 {
		t.Fatalf("after the clients left: %x, want a greeting", p)
	}
}
