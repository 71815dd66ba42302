package tcptune

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pair returns both ends of a loopback TCP connection.
func pair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type res struct {
		c   net.Conn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := ln.Accept()
		ch <- res{c, err}
	}()
	client, err = net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Cleanup(func() { client.Close(); r.c.Close() })
	return client, r.c
}

// wrapped stands for a connection wrapper (TLS, Petrel's cmdConn).
type wrapped struct{ net.Conn }

func (w wrapped) NetConn() net.Conn { return w.Conn }

func sockInt(t *testing.T, c net.Conn, level, opt int) int {
	t.Helper()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	if err := raw.Control(func(fd uintptr) { v, gerr = unix.GetsockoptInt(int(fd), level, opt) }); err != nil {
		t.Fatal(err)
	}
	if gerr != nil {
		t.Fatal(gerr)
	}
	return v
}

// Both ends of a link get the algorithm, through a wrapper too, with
// keepalives and TCP_NODELAY as asked.
func TestApplyBothEnds(t *testing.T) {
	k, err := ReadKernel()
	if err != nil {
		t.Fatal(err)
	}
	want, why := k.DefaultCongestionControl()
	if why != nil {
		t.Logf("fallback: %v", why)
	}
	client, server := pair(t)
	opts := Options{CongestionControl: want, KeepAliveIdle: 7 * time.Second, KeepAliveInterval: 3 * time.Second, KeepAliveCount: 4, NoDelay: true}
	for _, c := range []net.Conn{client, wrapped{server}} {
		res, err := Apply(c, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Fallback || res.CongestionControl != want {
			t.Fatalf("Apply: %+v, want %s without fallback", res, want)
		}
	}
	for _, c := range []net.Conn{client, server} {
		if got, err := Congestion(c); err != nil || got != want {
			t.Fatalf("Congestion = %q, %v; want %s", got, err, want)
		}
		if v := sockInt(t, c, unix.SOL_SOCKET, unix.SO_KEEPALIVE); v != 1 {
			t.Fatalf("SO_KEEPALIVE = %d", v)
		}
		if v := sockInt(t, c, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE); v != 7 {
			t.Fatalf("TCP_KEEPIDLE = %d, want 7", v)
		}
		if v := sockInt(t, c, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL); v != 3 {
			t.Fatalf("TCP_KEEPINTVL = %d, want 3", v)
		}
		if v := sockInt(t, c, unix.IPPROTO_TCP, unix.TCP_KEEPCNT); v != 4 {
			t.Fatalf("TCP_KEEPCNT = %d, want 4", v)
		}
		if v := sockInt(t, c, unix.IPPROTO_TCP, unix.TCP_NODELAY); v != 1 {
			t.Fatalf("TCP_NODELAY = %d", v)
		}
	}
	// This host's kernel has BBR (the CI machine is this one): the default
	// must be it, not a silent fallback.
	if k.Usable("bbr") && want != "bbr" {
		t.Fatalf("default %q although bbr is usable", want)
	}
}

// An algorithm the kernel does not have leaves the socket on the kernel's
// default and says so; a second algorithm set later replaces the first.
func TestApplyFallbackAndChange(t *testing.T) {
	k, err := ReadKernel()
	if err != nil {
		t.Fatal(err)
	}
	client, _ := pair(t)
	before, err := Congestion(client)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Apply(client, Options{CongestionControl: "no-such-cc"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Fallback || res.Reason == nil || res.CongestionControl != before {
		t.Fatalf("Apply(no-such-cc) = %+v, want fallback keeping %s", res, before)
	}
	if !errors.Is(res.Reason, syscall.ENOENT) {
		t.Fatalf("reason %v, want ENOENT", res.Reason)
	}
	for _, name := range []string{"reno", k.Default} {
		if !k.Usable(name) {
			continue
		}
		res, err := Apply(client, Options{CongestionControl: name})
		if err != nil || res.Fallback || res.CongestionControl != name {
			t.Fatalf("Apply(%s) = %+v, %v", name, res, err)
		}
	}
}

func TestApplyNotTCP(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if _, err := Apply(a, Options{CongestionControl: "bbr"}); !errors.Is(err, ErrNotTCP) {
		t.Fatalf("Apply on a pipe: %v, want ErrNotTCP", err)
	}
}

// The choice of default and the validation of a SET, from what the kernel
// offers.
func TestKernelChoices(t *testing.T) {
	for _, tc := range []struct {
		name    string
		k       Kernel
		def     string
		why     string // substring of the fallback reason; "" = none
		check   string
		checkOK bool
	}{
		{"bbr built in, root", Kernel{Available: []string{"reno", "cubic", "bbr"}, Allowed: []string{"reno", "cubic"}, Default: "cubic", Privileged: true}, "bbr", "", "reno", true},
		{"bbr allowed, not root", Kernel{Available: []string{"reno", "bbr"}, Allowed: []string{"reno", "bbr"}, Default: "bbr"}, "bbr", "", "cubic", false},
		{"bbr not allowed", Kernel{Available: []string{"reno", "cubic", "bbr"}, Allowed: []string{"reno", "cubic"}, Default: "cubic"}, "cubic", "not allowed", "bbr", false},
		{"no bbr", Kernel{Available: []string{"reno", "cubic"}, Allowed: []string{"reno", "cubic"}, Default: "cubic", Privileged: true}, "cubic", "not available", "cubic", true},
	} {
		def, why := tc.k.DefaultCongestionControl()
		if def != tc.def {
			t.Errorf("%s: default %q, want %q", tc.name, def, tc.def)
		}
		if (why == nil) != (tc.why == "") || (why != nil && !strings.Contains(why.Error(), tc.why)) {
			t.Errorf("%s: reason %v, want %q", tc.name, why, tc.why)
		}
		if err := tc.k.Check(tc.check); (err == nil) != tc.checkOK {
			t.Errorf("%s: Check(%s) = %v, want ok=%v", tc.name, tc.check, err, tc.checkOK)
		}
	}
}
