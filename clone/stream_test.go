package clone

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// faultConn wraps a data connection: it records the first byte written
// (the mode), and after cutAt bytes read closes the connection, or flips
// the byte at flipAt of what it reads (0: never).
type faultConn struct {
	net.Conn
	read          int64
	cutAt, flipAt int64
	mode          *atomic.Int32
	wrote         bool
}

func (c *faultConn) Read(p []byte) (int, error) {
	if c.cutAt > 0 && c.read+int64(len(p)) > c.cutAt {
		p = p[:max(c.cutAt-c.read, 0)]
		if len(p) == 0 {
			c.Conn.Close()
			return 0, errors.New("cut by the test")
		}
	}
	n, err := c.Conn.Read(p)
	if c.flipAt > 0 && c.read < c.flipAt && c.flipAt <= c.read+int64(n) {
		p[c.flipAt-c.read-1] ^= 0x40
	}
	c.read += int64(n)
	return n, err
}

func (c *faultConn) Write(p []byte) (int, error) {
	if !c.wrote && len(p) > 0 && c.mode != nil {
		c.mode.Store(int32(p[0]))
	}
	c.wrote = true
	return c.Conn.Write(p)
}

// streamDonor is an instance holding about 6.5 MB of incompressible
// values, a donor with a data port, and a snapshot of it.
func streamDonor(t *testing.T) (*Donor, *Manifest, string) {
	t.Helper()
	dir := t.TempDir()
	st, l := openInstance(t, dir)
	// Each value is flushed to its own sstable: one of several frames
	// and ranges, three of one frame or less.
	for i, size := range []int{5 << 20, 512 << 10, 1 << 20, 100} {
		v := make([]byte, size)
		rand.Read(v)
		if err := st.SetMetaSync(fmt.Sprintf("clone-stream-%02d", i), v); err != nil {
			t.Fatal(err)
		}
	}
	d, err := NewDonor(DonorOptions{Datadir: dir, Store: st, Log: l, Logger: quiet, DataAddress: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	m, err := d.Begin()
	if err != nil {
		t.Fatal(err)
	}
	return d, m, filepath.Join(dir, DonorDir, m.ID)
}

func streamOpts(t *testing.T, wrap func(net.Conn) net.Conn) FetchOptions {
	o := FetchOptions{Host: "127.0.0.1", Port: 1, Datadir: t.TempDir(), Logger: quiet, Timeout: 10 * time.Second,
		Parallel: 3, rangeSize: 2 << 20, DataConn: wrap}
	if err := o.setDefaults(); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestStreamCopiesTheSnapshot: the data stream copies every file of a
// snapshot byte for byte (a file of several frames split over three
// connections in 2 MiB ranges), raw and zstd-compressed, counting every
// byte in the progress; a stream cut mid-file, a flipped payload byte, a
// wrong token and a plain connection to a snapshot authorised over TLS
// are refused with the errors the SQL surface maps (2013, checksum
// mismatch, no such snapshot, TLS required); past maxDataConns open
// connections the next is closed at once; a connection left open is
// closed by the donor's Close (the package's leak check).
func TestStreamCopiesTheSnapshot(t *testing.T) {
	d, m, snapDir := streamDonor(t)
	port, token, err := d.Stream(m.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	g := &streamGrant{port: port, token: token}
	var largest int64
	for _, f := range m.Files {
		largest = max(largest, f.Size)
	}
	if largest < 4<<20 {
		t.Fatalf("the largest snapshot file is %d bytes: too small to split (%v)", largest, m.Files)
	}
	for _, compress := range []bool{false, true} {
		var mode atomic.Int32
		o := streamOpts(t, func(c net.Conn) net.Conn { return &faultConn{Conn: c, mode: &mode} })
		o.Compress = compress
		staging := filepath.Join(o.Datadir, StagingDir)
		o.Progress.stage(time.Now(), StageFileCopy, m.Bytes())
		if err := copyStream(context.Background(), g, m, staging, o); err != nil {
			t.Fatalf("compress=%v: %v", compress, err)
		}
		for _, f := range m.Files {
			want, err := os.ReadFile(filepath.Join(snapDir, filepath.FromSlash(f.Name)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(staging, filepath.FromSlash(f.Name)))
			if err != nil || !bytes.Equal(got, want) || int64(len(got)) != f.Size {
				t.Fatalf("compress=%v: %s: %d bytes (%v), the snapshot's %d differ", compress, f.Name, len(got), err, len(want))
			}
		}
		fc := o.Progress.Snapshot().Stages[0]
		if fc.Data != m.Bytes() || fc.Network < m.Bytes()/2 {
			t.Fatalf("progress counted %d bytes (%d on the network), the snapshot has %d", fc.Data, fc.Network, m.Bytes())
		}
		if mode.Load() != modePlain {
			t.Fatalf("the data connection opened with mode %q, want plain", rune(mode.Load()))
		}
	}

	fails := []struct {
		what string
		wrap func(net.Conn) net.Conn
		g    *streamGrant
		want string
	}{
		{"a stream cut mid-file", func(c net.Conn) net.Conn { return &faultConn{Conn: c, cutAt: 1<<20 + 300} }, g, "Lost connection"},
		{"a flipped payload byte", func(c net.Conn) net.Conn { return &faultConn{Conn: c, flipAt: 2*frameHeaderSize + 5000} }, g, "checksum mismatch"},
		{"a wrong token", nil, &streamGrant{port: port, token: make([]byte, TokenSize)}, "no such snapshot"},
	}
	for _, f := range fails {
		o := streamOpts(t, f.wrap)
		staging := filepath.Join(o.Datadir, StagingDir)
		err := copyStream(context.Background(), f.g, m, staging, o)
		if err == nil || !strings.Contains(err.Error(), f.want) {
			t.Fatalf("%s: %v, want an error mentioning %q", f.what, err, f.want)
		}
		var de *DonorError
		if f.what == "a stream cut mid-file" && (!errors.As(err, &de) || de.Num != 2013) {
			t.Fatalf("%s: %v, want client error 2013", f.what, err)
		}
	}
	// A snapshot authorised over TLS takes no plain data connection.
	d.mu.Lock()
	d.mu.snaps[m.ID].tls = true
	d.mu.Unlock()
	o := streamOpts(t, nil)
	if err := copyStream(context.Background(), g, m, filepath.Join(o.Datadir, StagingDir), o); err == nil || !strings.Contains(err.Error(), "must use TLS") {
		t.Fatalf("a plain data connection to a snapshot authorised over TLS: %v", err)
	}
	if _, _, err := d.Stream(m.ID, true); !errors.Is(err, ErrNoStream) {
		t.Fatalf("a TLS stream from a donor without a certificate: %v, want ErrNoStream", err)
	}

	// Connections that never say hello are bounded: past maxDataConns
	// the next is closed at once.
	var held []net.Conn
	for range maxDataConns {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(time.Second))
		_, err = c.Read(make([]byte, 1))
		c.Close()
		if errors.Is(err, io.EOF) {
			break
		}
		// The accept loop may not have counted every held one yet.
		if time.Now().After(deadline) {
			t.Fatalf("connection %d past the cap: %v, want it closed (EOF)", maxDataConns+1, err)
		}
	}
	for _, c := range held {
		c.Close()
	}

	// An idle data connection does not hold up Close.
	idle, err := dialData(context.Background(), streamOpts(t, nil), &streamGrant{port: port, token: token, tls: false})
	if err == nil {
		defer idle.close()
		t.Fatal("a plain connection was accepted for the TLS snapshot")
	}
	d.mu.Lock()
	d.mu.snaps[m.ID].tls = false
	d.mu.Unlock()
	idle, err = dialData(context.Background(), streamOpts(t, nil), g)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.close()
	done := make(chan error, 1)
	go func() { done <- d.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited on an idle data connection")
	}
}

// BenchmarkStream copies a snapshot of 64 MiB of incompressible values
// over the data stream, donor and recipient in one process (plain TCP on
// loopback; -cpuprofile shows both ends' costs).
func BenchmarkStream(b *testing.B) {
	dir := b.TempDir()
	st, l := openInstance(b, dir)
	for i := range 4 {
		v := make([]byte, 16<<20)
		rand.Read(v)
		if err := st.SetMetaSync(fmt.Sprintf("clone-bench-%d", i), v); err != nil {
			b.Fatal(err)
		}
	}
	d, err := NewDonor(DonorOptions{Datadir: dir, Store: st, Log: l, Logger: quiet, DataAddress: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	m, err := d.Begin()
	if err != nil {
		b.Fatal(err)
	}
	port, token, err := d.Stream(m.ID, false)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(m.Bytes())
	for b.Loop() {
		o := FetchOptions{Host: "127.0.0.1", Port: 1, Datadir: b.TempDir(), Logger: quiet}
		if err := o.setDefaults(); err != nil {
			b.Fatal(err)
		}
		if err := copyStream(context.Background(), &streamGrant{port: port, token: token}, m, filepath.Join(o.Datadir, StagingDir), o); err != nil {
			b.Fatal(err)
		}
		os.RemoveAll(o.Datadir)
	}
}
