package lab

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// requireWAN skips when a WAN cannot be built here, or fails with
// PETREL_LAB_STRICT=1 (CI runs as root with the tools).
func requireWAN(t testing.TB) {
	t.Helper()
	if err := WANAvailable(); err != nil {
		if os.Getenv(strictEnv) == "1" {
			t.Fatalf("%v and %s=1", err, strictEnv)
		}
		t.Skipf("%v; run as root after scripts/deps.sh", err)
	}
}

func startWAN(t testing.TB, opts WANOptions) *WAN {
	t.Helper()
	requireWAN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := NewWAN(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wan seed %d", w.Seed())
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("wan Close: %v", err)
		}
		if list := wanNetnsList(t); strings.Contains(list, w.Name(0)) || strings.Contains(list, w.Name(1)) {
			t.Errorf("namespaces left after Close:\n%s", list)
		}
		checkNoWANGoroutines(t)
	})
	return w
}

// wanGoroutines counts the goroutines running the WAN's forwarder.
func wanGoroutines() (int, string) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	var sample string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "petrel/lab.(*WAN)") {
			n++
			sample = g
		}
	}
	return n, sample
}

func wanNetnsList(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, findTool("ip", "/usr/sbin/ip"), "netns", "list").CombinedOutput()
	if err != nil {
		t.Fatalf("ip netns list: %v: %s", err, out)
	}
	return string(out)
}

// checkNoWANGoroutines fails if forwarder goroutines outlive Close by
// more than the moment a returning goroutine takes to disappear.
func checkNoWANGoroutines(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		n, sample := wanGoroutines()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d wan goroutines left after Close, e.g.:\n%s", n, sample)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkNoKernelDrops fails if a kernel dropped packets the emulator did
// not decide to drop.
func checkNoKernelDrops(t testing.TB, w *WAN) {
	t.Helper()
	kd, err := w.KernelDrops()
	if err != nil {
		t.Fatal(err)
	}
	if kd != [2]int64{} {
		t.Fatalf("kernel drops outside the emulator: %v per direction, want none", kd)
	}
}

// TestWANSetupFailure checks that bad options are refused before anything
// is built, and that a failing setup step leaves no namespace, device or
// goroutine.
func TestWANSetupFailure(t *testing.T) {
	requireWAN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, opts := range []WANOptions{
		{AtoB: Impairment{Loss: 1.5}},
		{BtoA: Impairment{Delay: -time.Millisecond}},
		{BtoA: Impairment{Burst: GilbertElliott{PGoodBad: 0.1}}},
		{MTU: 100},
	} {
		if w, err := NewWAN(ctx, opts); err == nil {
			w.Close()
			t.Fatalf("NewWAN(%+v) succeeded", opts)
		} else if !strings.HasPrefix(err.Error(), "lab: wan") {
			t.Fatalf("NewWAN(%+v): %v; want a lab: wan error", opts, err)
		}
	}
	w, err := newWAN(ctx, WANOptions{}, []string{"link", "set", "ptw-no-such-if", "up"})
	if err == nil {
		w.Close()
		t.Fatal("setup with a failing step succeeded")
	}
	if !strings.Contains(err.Error(), "ptw-no-such-if") {
		t.Fatalf("error does not name the failing step: %v", err)
	}
	// Tests in this binary run one at a time, so no WAN of ours exists.
	if list := wanNetnsList(t); strings.Contains(list, fmt.Sprintf("ptw%d-", os.Getpid())) {
		t.Fatalf("namespaces left after a failed setup:\n%s", list)
	}
	checkNoWANGoroutines(t)
}

// TestWANRoundTrip checks that a TCP round trip across a WAN with 20 ms
// each way takes 40-60 ms, in both the handshake and data, that a
// process runs inside a side, that SetImpairment applies while
// connections are open, and that Close leaves no namespace, device or
// goroutine.
func TestWANRoundTrip(t *testing.T) {
	d20 := Impairment{Delay: 20 * time.Millisecond}
	w := startWAN(t, WANOptions{AtoB: d20, BtoA: d20})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// A TUN device has no carrier state: its flags say UP.
	out, err := w.Run(ctx, 0, "ip", "-oneline", "addr", "show", "dev", w.Interface(0))
	link, lerr := w.Run(ctx, 0, "ip", "-brief", "link", "show", "dev", w.Interface(0))
	if err != nil || lerr != nil || !strings.Contains(out, w.IP(0)+"/24") || !strings.Contains(link, ",UP,") {
		t.Fatalf("side 0: %q, %q, %v, %v; want %s/24 and UP", out, link, err, lerr, w.IP(0))
	}
	// A process inside side 1 sees only its own side's address.
	cmd := w.Command(ctx, 1, "ip", "-brief", "-4", "addr")
	b, err := cmd.Output()
	if err != nil || !strings.Contains(string(b), w.IP(1)+"/24") || strings.Contains(string(b), w.IP(0)) {
		t.Fatalf("ip addr in side 1: %q, %v; want %s and not %s", b, err, w.IP(1), w.IP(0))
	}

	// A process in side 1 talks TCP to a listener in side 0 across the WAN.
	hello, err := w.Listen(0, "tcp", net.JoinHostPort(w.IP(0), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer hello.Close()
	peer := make(chan string, 1)
	go func() {
		c, err := hello.Accept()
		if err != nil {
			peer <- err.Error()
			return
		}
		defer c.Close()
		peer <- c.RemoteAddr().(*net.TCPAddr).IP.String()
		c.Write([]byte("hello from A\n"))
	}()
	b, err = w.Command(ctx, 1, "bash", "-c", fmt.Sprintf(`exec 3<>/dev/tcp/%s/%d && read -r line <&3 && echo "$line"`,
		w.IP(0), hello.Addr().(*net.TCPAddr).Port)).Output()
	if got := <-peer; err != nil || string(b) != "hello from A\n" || got != w.IP(1) {
		t.Fatalf("bash in side 1 read %q, %v; the listener saw %s; want the greeting from %s", b, err, got, w.IP(1))
	}
	hello.Close()

	ln, err := w.Listen(1, "tcp", net.JoinHostPort(w.IP(1), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	// A handshake takes one round trip; the fastest of three is checked,
	// as a busy host can wake the forwarder late.
	var c net.Conn
	var connects []time.Duration
	for range 3 {
		if c != nil {
			c.Close()
		}
		err = w.Do(0, func() error {
			var d net.Dialer
			var err error
			start := time.Now()
			c, err = d.DialContext(ctx, "tcp", ln.Addr().String())
			connects = append(connects, time.Since(start))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	defer c.Close()
	t.Logf("connects (SYN, SYN-ACK) %v", connects)
	if m := slices.Min(connects); m < 40*time.Millisecond || m > 60*time.Millisecond {
		t.Fatalf("connects took %v, want the fastest within 40-60ms at 20ms each way", connects)
	}
	// No round trip can beat the delay; the median allows for a busy
	// host's occasional late wakeup.
	echoRTT := func(lo, hi time.Duration) {
		t.Helper()
		var rtts []time.Duration
		for i := 0; i < 5; i++ {
			start := time.Now()
			if err := echo(c, []byte("ping "+strconv.Itoa(i)), 5*time.Second); err != nil {
				t.Fatal(err)
			}
			rtts = append(rtts, time.Since(start))
		}
		slices.Sort(rtts)
		t.Logf("echo round trips %v", rtts)
		if rtts[0] < lo || rtts[2] > hi {
			t.Fatalf("echo round trips %v: want none under %v and a median up to %v", rtts, lo, hi)
		}
	}
	echoRTT(40*time.Millisecond, 60*time.Millisecond)

	// Live change: 5 ms each way now.
	d5 := Impairment{Delay: 5 * time.Millisecond}
	if err := w.SetImpairment(AtoB, d5); err != nil {
		t.Fatal(err)
	}
	if err := w.SetImpairment(BtoA, d5); err != nil {
		t.Fatal(err)
	}
	echoRTT(10*time.Millisecond, 20*time.Millisecond)
	if err := w.SetImpairment(AtoB, Impairment{Loss: 2}); err == nil {
		t.Fatal("SetImpairment accepted a loss probability of 2")
	}

	// The last ACK may still be on its way.
	waitFor(t, time.Second, "nothing in flight", func() bool { st := w.Stats(); return st[0].InFlight+st[1].InFlight == 0 })
	st := w.Stats()
	for d, s := range st {
		t.Logf("dir %d: %+v", d, s)
		// Four handshakes, 11 data segments and their ACKs at least.
		if s.Received < 18 || s.Forwarded != s.Received || s.Dropped() != 0 || s.InFlight != 0 {
			t.Fatalf("dir %d stats %+v: want >= 18 received, all forwarded, none dropped or in flight", d, s)
		}
	}

	c.Close()
	ln.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestWANMatchesCore sends numbered UDP datagrams across a line with
// loss and reordering and a fixed seed: the forwarder must make exactly
// the decisions the core makes for the same seed and packet sequence, so
// the datagrams that arrive are the ones a policy built here delivers,
// and the reordered ones arrive after later ones.
func TestWANMatchesCore(t *testing.T) {
	imp := Impairment{Delay: 2 * time.Millisecond, Loss: 0.1, Reorder: 0.1, ReorderDelay: 20 * time.Millisecond}
	const seed, n = 7, 200
	w := startWAN(t, WANOptions{AtoB: imp, Seed: seed})

	core := newWANPolicy(imp, seed+uint64(AtoB))
	want := map[uint32]bool{}
	reordered := 0
	now := time.Now()
	for i := range n {
		v := core.arrive(now.Add(time.Duration(i)*time.Millisecond), 28+8)
		if v.Drop == wanDelivered {
			want[uint32(i)] = true
		}
		if v.Reordered {
			reordered++
		}
	}

	rc, err := w.ns.ListenPacket(1, "udp", net.JoinHostPort(w.IP(1), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sc, err := w.Dial(ctx, 0, "udp", rc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	pkt := make([]byte, 8)
	copy(pkt[4:], "ptl!")
	for i := range n {
		binary.BigEndian.PutUint32(pkt, uint32(i))
		if _, err := sc.Write(pkt); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	var got []uint32
	buf := make([]byte, 64)
	for {
		rc.SetReadDeadline(time.Now().Add(300 * time.Millisecond)) // > every delay
		k, _, err := rc.ReadFrom(buf)
		if err != nil {
			break
		}
		if k == 8 && string(buf[4:8]) == "ptl!" {
			got = append(got, binary.BigEndian.Uint32(buf))
		}
	}
	inversions := 0
	seen := map[uint32]bool{}
	for k, i := range got {
		if k > 0 && i < got[k-1] {
			inversions++
		}
		seen[i] = true
	}
	st := w.Stats()
	t.Logf("core: %d of %d delivered, %d reordered; received %d, %d inversions; A->B %+v", len(want), n, reordered, len(got), inversions, st[AtoB])
	if len(got) != len(want) || len(seen) != len(want) {
		t.Fatalf("received %d datagrams (%d distinct), the core delivers %d", len(got), len(seen), len(want))
	}
	for i := range want {
		if !seen[i] {
			t.Fatalf("datagram %d, which the core delivers, did not arrive", i)
		}
	}
	if s := st[AtoB]; s.Received != n || s.Forwarded != int64(len(want)) || s.DroppedLoss != int64(n-len(want)) || s.Reordered != int64(reordered) {
		t.Fatalf("A->B %+v: want %d received, %d forwarded, %d lost, %d reordered", s, n, len(want), n-len(want), reordered)
	}
	checkNoKernelDrops(t, w)
	if reordered > 0 && inversions == 0 {
		t.Fatalf("the core reordered %d datagrams but they arrived in order", reordered)
	}
}

// TestWANKernelDrops shrinks side 0's TUN ring to one packet and blasts
// UDP at it: every datagram the sender's kernel accepted was either read
// by the forwarder or counted by KernelDrops.
func TestWANKernelDrops(t *testing.T) {
	w := startWAN(t, WANOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := w.Run(ctx, 0, "ip", "link", "set", w.Interface(0), "txqueuelen", "1"); err != nil {
		t.Fatal(err)
	}
	rc, err := w.ns.ListenPacket(1, "udp", net.JoinHostPort(w.IP(1), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	sc, err := w.Dial(ctx, 0, "udp", rc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	sent := 0
	pkt := make([]byte, 1000)
	for range 5000 {
		if _, err := sc.Write(pkt); err == nil {
			sent++ // a full qdisc refuses with ENOBUFS: not sent
		}
	}
	// The forwarder may still be reading the last ones.
	var kd [2]int64
	var st WANDirStats
	deadline := time.Now().Add(2 * time.Second)
	for {
		if kd, err = w.KernelDrops(); err != nil {
			t.Fatal(err)
		}
		st = w.Stats()[AtoB]
		if st.Received+kd[AtoB] == int64(sent) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("sent %d, forwarder read %d, kernel drops %v", sent, st.Received, kd)
	if kd[AtoB] == 0 || st.Received+kd[AtoB] != int64(sent) || kd[BtoA] != 0 {
		t.Fatalf("sent %d = read %d + kernel drops %v? want some A->B kernel drops and none B->A", sent, st.Received, kd)
	}
}

// TestWANBandwidth sends 4 MB across a 20 Mbit/s cap: it cannot take
// less than 4e6*8/20e6 = 1.6 s, and TCP should fill the line to within
// 1.5x of that (headers are 3.5% of each full segment).
func TestWANBandwidth(t *testing.T) {
	w := startWAN(t, WANOptions{
		AtoB: Impairment{Delay: 5 * time.Millisecond, RateBps: 20e6},
		BtoA: Impairment{Delay: 5 * time.Millisecond},
	})
	const n = 4e6
	res := transfer(t, w, 0, n, 0, "")
	ideal := time.Duration(n * 8 / 20e6 * float64(time.Second))
	st := w.Stats()
	t.Logf("%d bytes in %v (%.1f Mbit/s goodput); ideal %v; A->B %+v", res.bytes, res.elapsed,
		float64(res.bytes)*8/res.elapsed.Seconds()/1e6, ideal, st[AtoB])
	if res.recvErr != nil || res.bytes != n || res.sentSum != res.recvSum {
		t.Fatalf("received %d bytes (err %v), sums equal %v; want %d intact", res.bytes, res.recvErr, res.sentSum == res.recvSum, int64(n))
	}
	checkNoKernelDrops(t, w)
	if res.elapsed < ideal || res.elapsed > ideal*3/2 {
		t.Fatalf("transfer took %v, want %v to %v", res.elapsed, ideal, ideal*3/2)
	}
	if st[AtoB].ForwardedBytes < n {
		t.Fatalf("A->B forwarded %d bytes, fewer than the %d of payload", st[AtoB].ForwardedBytes, int64(n))
	}
}

// TestWANLoss sends 2 MB across a line losing 5% of packets each way:
// the bytes arrive intact, the forwarder dropped packets in both
// directions, and the sender's kernel retransmitted (its socket's
// tcpi_total_retrans and its namespace's RetransSegs both grew).
func TestWANLoss(t *testing.T) {
	lossy := Impairment{Delay: 5 * time.Millisecond, Loss: 0.05}
	w := startWAN(t, WANOptions{AtoB: lossy, BtoA: lossy})
	before := retransSegs(t, w, 0)
	const n = 2 << 20
	res := transfer(t, w, 0, n, 0, "")
	after := retransSegs(t, w, 0)
	st := w.Stats()
	t.Logf("%d bytes in %v; socket retransmits %d; namespace RetransSegs %d -> %d; stats %+v",
		res.bytes, res.elapsed, res.retrans, before, after, st)
	if res.recvErr != nil || res.bytes != n || res.sentSum != res.recvSum {
		t.Fatalf("received %d bytes (err %v), sums equal %v; want %d intact", res.bytes, res.recvErr, res.sentSum == res.recvSum, n)
	}
	for d, s := range st {
		if s.DroppedLoss == 0 || s.Dropped() != s.DroppedLoss {
			t.Fatalf("dir %d: %+v; want random-loss drops only", d, s)
		}
	}
	checkNoKernelDrops(t, w)
	if res.retrans == 0 || after <= before {
		t.Fatalf("sender retransmits: socket %d, namespace %d -> %d; want both to grow", res.retrans, before, after)
	}
}

// TestWANBurstReorder sends 1 MB across a line with jitter, reordering
// and Gilbert-Elliott bursts: the bytes arrive intact, and the forwarder
// reordered and burst-dropped packets.
func TestWANBurstReorder(t *testing.T) {
	rough := Impairment{
		Delay: 5 * time.Millisecond, Jitter: time.Millisecond,
		Reorder: 0.02, ReorderDelay: 3 * time.Millisecond,
		Burst: GilbertElliott{PGoodBad: 0.01, PBadGood: 0.3, LossBad: 0.8},
	}
	w := startWAN(t, WANOptions{AtoB: rough, BtoA: Impairment{Delay: 5 * time.Millisecond}, Seed: 42})
	const n = 1 << 20
	res := transfer(t, w, 0, n, 0, "")
	st := w.Stats()
	t.Logf("%d bytes in %v; socket retransmits %d; A->B %+v", res.bytes, res.elapsed, res.retrans, st[AtoB])
	if res.recvErr != nil || res.bytes != n || res.sentSum != res.recvSum {
		t.Fatalf("received %d bytes (err %v), sums equal %v; want %d intact", res.bytes, res.recvErr, res.sentSum == res.recvSum, n)
	}
	if s := st[AtoB]; s.Reordered == 0 || s.DroppedBurst == 0 || s.DroppedLoss != 0 || s.DroppedQueue != 0 {
		t.Fatalf("A->B %+v: want reordered and burst-dropped packets only", s)
	}
	if s := st[BtoA]; s.Dropped() != 0 || s.Reordered != 0 {
		t.Fatalf("B->A %+v: want nothing dropped or reordered", s)
	}
}

// retransSegs reads Tcp RetransSegs from /proc/net/snmp inside side's
// namespace (by a process there: the file is per namespace).
func retransSegs(t testing.TB, w *WAN, side int) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := w.Run(ctx, side, "cat", "/proc/net/snmp")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "Tcp:" {
			continue
		}
		if names == nil {
			names = f
			continue
		}
		for i, name := range names {
			if name == "RetransSegs" && i < len(f) {
				v, err := strconv.ParseInt(f[i], 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
		}
	}
	t.Fatalf("no Tcp RetransSegs in /proc/net/snmp:\n%s", out)
	return 0
}
