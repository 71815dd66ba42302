package lab

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// transferResult is what a one-way TCP transfer across a WAN measured.
type transferResult struct {
	bytes   int64
	elapsed time.Duration // from connect to the receiver's last byte
	sentSum [32]byte
	recvSum [32]byte
	retrans uint32 // the sender's tcpi_total_retrans at the end
	cc      string // the sender socket's congestion control
	recvErr error  // the receiver's, other than EOF
}

// transfer sends n random bytes (or, with n == 0, as much as it can for
// dur) from side from to the other side over one TCP connection whose
// congestion control is cc ("" for the namespace's default).
func transfer(t testing.TB, w *WAN, from int, n int64, dur time.Duration, cc string) transferResult {
	t.Helper()
	to := 1 - from
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ln, err := w.Listen(to, "tcp", net.JoinHostPort(w.IP(to), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type recv struct {
		n   int64
		sum [32]byte
		end time.Time
		err error
	}
	got := make(chan recv, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- recv{err: err}
			return
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(50 * time.Second))
		h := sha256.New()
		buf := make([]byte, 256<<10)
		var r recv
		for {
			k, err := c.Read(buf)
			if k > 0 {
				h.Write(buf[:k])
				r.n += int64(k)
				r.end = time.Now()
			}
			if err != nil {
				if err != io.EOF {
					r.err = err
				}
				break
			}
		}
		copy(r.sum[:], h.Sum(nil))
		got <- r
	}()

	var res transferResult
	var c net.Conn
	err = w.Do(from, func() error {
		d := net.Dialer{Control: func(network, address string, rc syscall.RawConn) error {
			if cc == "" {
				return nil
			}
			var serr error
			if err := rc.Control(func(fd uintptr) {
				serr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc)
			}); err != nil {
				return err
			}
			return serr
		}}
		var err error
		c, err = d.DialContext(ctx, "tcp", net.JoinHostPort(w.IP(to), strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)))
		return err
	})
	if err != nil {
		t.Fatalf("dial with congestion control %q: %v", cc, err)
	}
	defer c.Close()
	start := time.Now()
	h := sha256.New()
	chunk := make([]byte, 64<<10)
	if _, err := rand.Read(chunk); err != nil {
		t.Fatal(err)
	}
	c.SetWriteDeadline(start.Add(50 * time.Second))
	for sent := int64(0); n == 0 || sent < n; {
		p := chunk
		if n > 0 && int64(len(p)) > n-sent {
			p = p[:n-sent]
		}
		if n == 0 {
			if time.Since(start) >= dur {
				break
			}
			c.SetWriteDeadline(start.Add(dur))
		}
		k, err := c.Write(p)
		h.Write(p[:k])
		sent += int64(k)
		if err != nil {
			if n == 0 && isTimeout(err) {
				break
			}
			t.Fatalf("write after %d bytes: %v", sent, err)
		}
		chunk[0]++ // vary the data
	}
	copy(res.sentSum[:], h.Sum(nil))
	tcp := c.(*net.TCPConn)
	rc, err := tcp.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	info := func() {
		rc.Control(func(fd uintptr) {
			res.cc, _ = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
			if ti, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
				res.retrans = ti.Total_retrans
			}
		})
	}
	var r recv
	if n == 0 {
		// Time-boxed: what arrived within dur is the measure; the rest
		// is cut with a reset.
		info()
		tcp.SetLinger(0)
		tcp.Close()
		r = <-got
	} else {
		tcp.CloseWrite()
		r = <-got
		info()
	}
	res.elapsed = r.end.Sub(start)
	res.bytes, res.recvSum, res.recvErr = r.n, r.sum, r.err
	return res
}

// BenchmarkWANCongestion measures a time-boxed bulk TCP transfer from
// side 0 to side 1 per random-loss rate and congestion control of the
// sending socket (set with TCP_CONGESTION), and reports goodput and the
// sender's retransmissions. The line: 50 ms each way (100 ms RTT), 50
// Mbit/s cap from A to B with the default 100 ms queue, the loss in both
// directions (ACKs are lost too). scripts/wan-demo.sh runs it; these
// variables change it:
//
//	PETREL_WAN_LOSS     loss percentages, comma-separated (default 0,1,2,5)
//	PETREL_WAN_CC       congestion controls (default cubic,bbr)
//	PETREL_WAN_DELAY    one-way delay (default 50ms)
//	PETREL_WAN_RATE     cap from A to B (default 50mbit; 0 for none)
//	PETREL_WAN_SECONDS  length of each transfer (default 10)
func BenchmarkWANCongestion(b *testing.B) {
	env := func(name, def string) string {
		if v := os.Getenv(name); v != "" {
			return v
		}
		return def
	}
	delay, err := time.ParseDuration(env("PETREL_WAN_DELAY", "50ms"))
	if err != nil {
		b.Fatal(err)
	}
	rate, err := ParseRate(env("PETREL_WAN_RATE", "50mbit"))
	if err != nil {
		b.Fatal(err)
	}
	secs, err := strconv.ParseFloat(env("PETREL_WAN_SECONDS", "10"), 64)
	if err != nil {
		b.Fatal(err)
	}
	for _, lossText := range strings.Split(env("PETREL_WAN_LOSS", "0,1,2,5"), ",") {
		loss, err := strconv.ParseFloat(strings.TrimSpace(lossText), 64)
		if err != nil {
			b.Fatal(err)
		}
		for _, cc := range strings.Split(env("PETREL_WAN_CC", "cubic,bbr"), ",") {
			cc = strings.TrimSpace(cc)
			b.Run(fmt.Sprintf("loss=%g%%/cc=%s", loss, cc), func(b *testing.B) {
				line := Impairment{Delay: delay, Loss: loss / 100}
				data := line
				data.RateBps = rate
				w := startWAN(b, WANOptions{AtoB: data, BtoA: line})
				var mbits float64
				var retrans uint32
				for i := 0; i < b.N; i++ {
					res := transfer(b, w, 0, 0, time.Duration(secs*float64(time.Second)), cc)
					if res.cc != cc {
						b.Fatalf("socket congestion control %q, want %q", res.cc, cc)
					}
					mbits += float64(res.bytes) * 8 / res.elapsed.Seconds() / 1e6
					retrans += res.retrans
				}
				b.ReportMetric(mbits/float64(b.N), "Mbit/s")
				b.ReportMetric(float64(retrans)/float64(b.N), "retrans/op")
				st := w.Stats()
				b.ReportMetric(float64(st[AtoB].DroppedQueue)/float64(b.N), "queuedrops/op")
				kd, err := w.KernelDrops()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(kd[AtoB]+kd[BtoA])/float64(b.N), "kerneldrops/op")
			})
		}
	}
}
