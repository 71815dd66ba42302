package clone

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"time"
)

// ErrNoStream: the donor has no data port (DonorOptions.DataAddress is
// empty, or TLS was asked of a donor without a certificate); the recipient
// pulls with CLONE READ instead.
var ErrNoStream = errors.New("clone: the donor serves no data stream")

// streamHandshake bounds a data connection's TLS handshake and hello;
// streamWrite one frame's write; maxDataConns the data connections open
// at once (a few per clone; beyond, a connection is closed at once, so
// unauthenticated ones cannot pile up).
const (
	streamHandshake = 10 * time.Second
	streamWrite     = 60 * time.Second
	maxDataConns    = 64
)

// Stream authorises data connections for snapshot id (the caller checked
// the session's privileges) and returns the data port and the snapshot's
// token. withTLS: the recipient's SQL connection uses TLS, so its data
// connections must too. The data port opens at the first call.
func (d *Donor) Stream(id string, withTLS bool) (port int, token []byte, err error) {
	if d.opts.DataAddress == "" || (withTLS && d.opts.TLS == nil) {
		return 0, nil, ErrNoStream
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.mu.closed {
		return 0, nil, errors.New("clone: the donor is shutting down")
	}
	d.expireLocked()
	s, ok := d.mu.snaps[id]
	if !ok || s.man == nil {
		return 0, nil, ErrNoSnapshot
	}
	if d.mu.ln == nil {
		ln, err := net.Listen("tcp", d.opts.DataAddress)
		if err != nil {
			return 0, nil, fmt.Errorf("clone: data port: %w", err)
		}
		d.mu.ln = ln
		d.wg.Add(1)
		go d.accept(ln)
		d.opts.Logger.Info("clone: data port open", "address", ln.Addr().String())
	}
	if s.token == nil {
		s.token = make([]byte, TokenSize)
		rand.Read(s.token)
	}
	s.tls = s.tls || withTLS
	s.lastUsed = d.opts.Clock.Now()
	return d.mu.ln.Addr().(*net.TCPAddr).Port, s.token, nil
}

func (d *Donor) accept(ln net.Listener) {
	defer d.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed by Close
		}
		d.mu.Lock()
		if d.mu.closed {
			d.mu.Unlock()
			c.Close()
			return
		}
		if len(d.mu.conns) >= maxDataConns {
			d.mu.Unlock()
			d.opts.Logger.Warn("clone: data connection refused: too many open", "remote", c.RemoteAddr().String(), "max", maxDataConns)
			c.Close()
			continue
		}
		d.mu.conns[c] = struct{}{}
		d.wg.Add(1)
		d.mu.Unlock()
		go func() {
			defer d.wg.Done()
			defer func() {
				d.mu.Lock()
				delete(d.mu.conns, c)
				d.mu.Unlock()
				c.Close()
			}()
			if err := d.serve(c); err != nil {
				d.opts.Logger.Warn("clone: data connection ended", "remote", c.RemoteAddr().String(), "error", err)
			}
		}()
	}
}

// serve runs one data connection: the hello, then requests until the
// recipient closes it.
func (d *Donor) serve(raw net.Conn) error {
	raw.SetDeadline(time.Now().Add(streamHandshake))
	var mode [1]byte
	if _, err := io.ReadFull(raw, mode[:]); err != nil {
		return err
	}
	var conn net.Conn = raw
	switch mode[0] {
	case modeTLS:
		if d.opts.TLS == nil {
			return errors.New("TLS asked of a donor without a certificate")
		}
		tc := tls.Server(raw, d.opts.TLS)
		if err := tc.Handshake(); err != nil {
			return fmt.Errorf("TLS handshake: %w", err)
		}
		conn = tc
	case modePlain:
	default:
		return fmt.Errorf("bad mode byte %#x", mode[0])
	}
	var hello [helloSize]byte
	if _, err := io.ReadFull(conn, hello[:]); err != nil {
		return err
	}
	if string(hello[:len(streamMagic)]) != streamMagic {
		writeErrorFrame(conn, "not a Petrel clone stream of this version")
		return errors.New("bad hello")
	}
	id, needTLS := d.byToken(hello[len(streamMagic):])
	switch {
	case id == "":
		writeErrorFrame(conn, ErrNoSnapshot.Error())
		return ErrNoSnapshot
	case needTLS && mode[0] != modeTLS:
		writeErrorFrame(conn, "the snapshot was authorised over TLS: its data connections must use TLS")
		return errors.New("plain data connection for a TLS snapshot")
	}
	var hdr [frameHeaderSize]byte
	frameHeader{kind: frameOK}.encode(&hdr)
	if _, err := conn.Write(hdr[:]); err != nil {
		return err
	}
	br := bufio.NewReaderSize(conn, 4096)
	buf := make([]byte, FrameSize)
	var zbuf []byte
	for {
		// Between requests the recipient is idle at most as long as a
		// snapshot may be.
		conn.SetReadDeadline(time.Now().Add(d.opts.Lease))
		var rb [requestSize]byte
		if _, err := io.ReadFull(br, rb[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		q, err := decodeRequest(rb[:])
		if err != nil {
			writeErrorFrame(conn, err.Error())
			return err
		}
		if zbuf, err = d.sendRange(conn, id, q, buf, zbuf); err != nil {
			writeErrorFrame(conn, err.Error())
			return err
		}
	}
}

// byToken finds the snapshot a token authorises.
func (d *Donor) byToken(tok []byte) (id string, needTLS bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expireLocked()
	for id, s := range d.mu.snaps {
		if s.token != nil && subtle.ConstantTimeCompare(s.token, tok) == 1 {
			return id, s.tls
		}
	}
	return "", false
}

// sendRange streams one requested range as frames.
func (d *Donor) sendRange(conn net.Conn, id string, q request, buf, zbuf []byte) ([]byte, error) {
	name, err := d.fileName(id, q.file)
	if err != nil {
		return zbuf, err
	}
	var hdr [frameHeaderSize]byte
	for off, end := q.off, q.off+q.n; off < end; {
		k := min(uint64(FrameSize), end-off)
		if err := d.Pace(d.ctx, int64(k)); err != nil {
			return zbuf, err
		}
		f, size, err := d.open(id, name)
		if err != nil {
			return zbuf, err
		}
		if end > uint64(size) {
			return zbuf, fmt.Errorf("clone: read of %s up to %d past its end (%d bytes)", name, end, size)
		}
		b := buf[:k]
		if _, err := f.ReadAt(b, int64(off)); err != nil {
			return zbuf, fmt.Errorf("clone: read %s: %w", name, err)
		}
		h := frameHeader{kind: frameData, raw: uint32(k), wire: uint32(k), crc: crc32.Checksum(b, castagnoli)}
		payload := b
		if q.compress {
			codecs()
			zbuf = encoder.EncodeAll(b, zbuf[:0])
			payload, h.kind, h.wire = zbuf, frameCompressed, uint32(len(zbuf))
		}
		h.encode(&hdr)
		conn.SetWriteDeadline(time.Now().Add(streamWrite))
		bufs := net.Buffers{hdr[:], payload}
		if _, err := bufs.WriteTo(conn); err != nil {
			return zbuf, err
		}
		off += k
	}
	return zbuf, nil
}

// Pace waits until n more bytes may leave under the donor's bandwidth cap
// (DonorOptions.MaxBandwidth, shared by every clone it serves).
func (d *Donor) Pace(ctx context.Context, n int64) error {
	return d.pace.wait(ctx, d.opts.Clock.Now(), n, d.opts.MaxBandwidth())
}
