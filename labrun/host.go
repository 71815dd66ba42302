package labrun

import (
	"bytes"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// hostFacts measures what the figures depend on besides the code: cores,
// the disk's fsync latency (in dir) and the loopback round trip.
func hostFacts(dir string, root bool) Host {
	h := Host{Cores: runtime.NumCPU(), Go: runtime.Version(), Root: root}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	} else {
		h.Kernel = runtime.GOOS
	}
	h.FsyncMicros = fsyncMicros(dir)
	h.LoopbackRTTMicros = loopbackRTTMicros()
	return h
}

func median(d []time.Duration) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return float64(d[len(d)/2]) / float64(time.Microsecond)
}

// fsyncMicros is the median of 50 fsyncs, each after a 4 KiB write.
func fsyncMicros(dir string) float64 {
	f, err := os.CreateTemp(dir, ".fsync-")
	if err != nil {
		return 0
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := bytes.Repeat([]byte{'x'}, 4096)
	var d []time.Duration
	for range 50 {
		if _, err := f.Write(buf); err != nil {
			return 0
		}
		t := time.Now()
		if err := f.Sync(); err != nil {
			return 0
		}
		d = append(d, time.Since(t))
	}
	return median(d)
}

// loopbackRTTMicros is the median of 200 one-byte ping-pongs over a
// loopback TCP connection.
func loopbackRTTMicros() float64 {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		b := make([]byte, 1)
		for {
			if _, err := c.Read(b); err != nil {
				return
			}
			if _, err := c.Write(b); err != nil {
				return
			}
		}
	}()
	defer func() { <-done }()
	c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
	if err != nil {
		ln.Close()
		return 0
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	b := make([]byte, 1)
	var d []time.Duration
	for range 200 {
		t := time.Now()
		if _, err := c.Write(b); err != nil {
			break
		}
		if _, err := c.Read(b); err != nil {
			break
		}
		d = append(d, time.Since(t))
	}
	return median(d)
}
