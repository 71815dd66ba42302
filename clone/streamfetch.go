package clone

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"petrel/internal/mysqlerr"
	"petrel/internal/tcptune"
)

// StreamRange is the most a data connection asks for at once: files
// larger than this are split so the connections share them.
const StreamRange = 64 << 20

// streamGrant is what CLONE STREAM gave: the data port, the snapshot's
// token, and, when the SQL connection used TLS, the donor's certificate
// it saw (the data connections must see the same one).
type streamGrant struct {
	port  int
	token []byte
	cert  []byte
	tls   bool
}

// errNoDataPort: the donor offers no stream, or its data port does not
// answer; the recipient pulls with CLONE READ.
var errNoDataPort = errors.New("clone: no data stream")

// stream asks the donor for a data stream for snapshot id.
func (c *client) stream(id string) (*streamGrant, error) {
	g := &streamGrant{}
	q := "CLONE STREAM '" + id + "'"
	if tc, ok := c.conn.Conn.(*tls.Conn); ok {
		st := tc.ConnectionState()
		if len(st.PeerCertificates) == 0 {
			return nil, &ProtocolError{Msg: "the donor's TLS connection shows no certificate"}
		}
		g.tls, g.cert = true, st.PeerCertificates[0].Raw
		q += " TLS"
	}
	rows, err := c.exec(q, 1)
	var de *DonorError
	if errors.As(err, &de) && (de.Num == mysqlerr.ErNotSupportedYet || de.Num == mysqlerr.ErParse) {
		// A donor without a data port, or one older than the stream.
		return nil, errNoDataPort
	}
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || len(rows[0]) != 2 {
		return nil, &ProtocolError{Msg: "CLONE STREAM returned no port"}
	}
	g.port, err = strconv.Atoi(string(rows[0][0]))
	if err != nil || g.port <= 0 || g.port > 65535 {
		return nil, &ProtocolError{Msg: "bad data port " + string(rows[0][0])}
	}
	g.token, err = hex.DecodeString(string(rows[0][1]))
	if err != nil || len(g.token) != TokenSize {
		return nil, &ProtocolError{Msg: "bad stream token"}
	}
	return g, nil
}

// dataConn is one data connection to the donor.
type dataConn struct {
	conn net.Conn
	br   *bufio.Reader
	stop func() bool
}

func (d *dataConn) close() {
	d.stop()
	d.conn.Close()
}

// dialData opens a data connection and passes the hello. A failure to
// reach the port at all is errNoDataPort (wrapped), so the caller may
// fall back to CLONE READ.
func dialData(ctx context.Context, opts FetchOptions, g *streamGrant) (*dataConn, error) {
	dl := net.Dialer{Timeout: min(opts.Timeout, 10*time.Second)}
	raw, err := dl.DialContext(ctx, "tcp", net.JoinHostPort(opts.Host, strconv.Itoa(g.port)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoDataPort, err)
	}
	if opts.TCP != nil {
		tcptune.Apply(raw, opts.TCP()) // logged once for the SQL link
	}
	conn := raw
	if opts.DataConn != nil {
		conn = opts.DataConn(raw)
	}
	d := &dataConn{conn: conn}
	d.stop = context.AfterFunc(ctx, func() { conn.Close() })
	fail := func(err error) (*dataConn, error) {
		d.close()
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(opts.Timeout))
	mode := []byte{modePlain}
	if g.tls {
		mode[0] = modeTLS
	}
	if _, err := conn.Write(mode); err != nil {
		return fail(streamIOError(err))
	}
	if g.tls {
		pinRefused := false
		tc := tls.Client(conn, &tls.Config{
			// The donor's certificate is not checked against a CA (as on
			// the SQL link: MySQL's clone checks it only with
			// clone_ssl_ca) but must be the one the SQL link saw.
			InsecureSkipVerify: true,
			VerifyPeerCertificate: func(certs [][]byte, _ [][]*x509.Certificate) error {
				if len(certs) == 0 || !bytes.Equal(certs[0], g.cert) {
					pinRefused = true
					return errors.New("the data port's certificate is not the one the SQL connection saw")
				}
				return nil
			},
		})
		if err := tc.HandshakeContext(ctx); err != nil {
			var ne net.Error
			if !pinRefused && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.As(err, &ne)) {
				// The donor went away (EOF, reset) during the handshake:
				// a lost link (3862, 2013) as on the plain stream.
				return fail(streamIOError(err))
			}
			return fail(&ProtocolError{Msg: "TLS on the data stream: " + err.Error()})
		}
		d.conn = tc
	}
	hello := append([]byte(streamMagic), g.token...)
	if _, err := d.conn.Write(hello); err != nil {
		return fail(streamIOError(err))
	}
	d.br = bufio.NewReaderSize(d.conn, 64<<10)
	var hb [frameHeaderSize]byte
	h, err := readFrameHeader(d.br, &hb)
	switch {
	case err != nil:
		return fail(streamIOError(err))
	case h.kind == frameError:
		return fail(readErrorFrame(d.br, h))
	case h.kind != frameOK:
		return fail(&ProtocolError{Msg: fmt.Sprintf("the data stream opened with frame %q", h.kind)})
	}
	return d, nil
}

// streamState is what the data connections of one clone share.
type streamState struct {
	opts   FetchOptions
	man    *Manifest
	files  []*os.File
	remain []atomic.Int64 // bytes of each file not yet written
	// complete receives each file as its last byte is written, for the
	// syncer.
	complete chan int
	pace     sharedPacer
}

// copyStream pulls every file over opts.Parallel data connections: the
// ranges (whole files, the larger split at StreamRange) are handed out in
// order; each frame is checked against its CRC-32C and written at its
// offset; a file is synced by a syncer goroutine as soon as its last byte
// is written (the disk works while the other files arrive), and its size
// checked at the end. It returns errNoDataPort before creating anything
// when the data port does not answer.
func copyStream(ctx context.Context, g *streamGrant, man *Manifest, staging string, opts FetchOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	first, err := dialData(ctx, opts, g)
	if err != nil {
		return err
	}
	defer first.close()
	files, err := createFiles(man, staging)
	defer closeFiles(files)
	if err != nil {
		return err
	}
	st := &streamState{opts: opts, man: man, files: files, remain: make([]atomic.Int64, len(man.Files)), complete: make(chan int, len(man.Files))}
	var ranges []request
	for i, f := range man.Files {
		st.remain[i].Store(f.Size)
		for off := int64(0); off < f.Size; off += opts.rangeSize {
			ranges = append(ranges, request{file: uint32(i), off: uint64(off), n: uint64(min(opts.rangeSize, f.Size-off)), compress: opts.Compress})
		}
	}
	var (
		mu     sync.Mutex
		next   int
		failed error
	)
	take := func() (request, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(ranges) || failed != nil {
			return request{}, false
		}
		next++
		return ranges[next-1], true
	}
	fail := func(err error) {
		mu.Lock()
		if failed == nil {
			failed = err
		}
		mu.Unlock()
		cancel()
	}
	worker := func(d *dataConn) {
		buf := make([]byte, maxFrameWire)
		var dbuf []byte
		for {
			q, ok := take()
			if !ok {
				return
			}
			var err error
			if dbuf, err = st.pull(ctx, d, q, buf, dbuf); err != nil {
				fail(err)
				return
			}
		}
	}
	// The syncer fsyncs each file once complete, while the others arrive.
	synced := make(chan struct{})
	go func() {
		defer close(synced)
		for i := range st.complete {
			if ctx.Err() != nil {
				continue // failed: drain
			}
			if err := files[i].Sync(); err != nil {
				fail(fmt.Errorf("clone: sync %s: %w", man.Files[i].Name, err))
			}
		}
	}()
	var wg sync.WaitGroup
	for i := 1; i < min(opts.Parallel, len(ranges)); i++ {
		d, err := dialData(ctx, opts, g)
		if err != nil {
			if errors.Is(err, errNoDataPort) {
				// The first connection got through: no fallback now.
				err = &DonorError{Num: mysqlerr.CrConnHostError, State: mysqlerr.State(mysqlerr.CrConnHostError), Msg: err.Error()}
			}
			fail(err)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer d.close()
			worker(d)
		}()
	}
	worker(first)
	wg.Wait()
	close(st.complete)
	<-synced
	if failed != nil {
		return failed
	}
	for i, f := range man.Files {
		if f.Size == 0 {
			if err := files[i].Sync(); err != nil {
				return fmt.Errorf("clone: sync %s: %w", f.Name, err)
			}
		}
		if err := checkSize(files[i], f); err != nil {
			return err
		}
	}
	return nil
}

// pull reads one range into its file. Unpaced, the range is one
// request, streamed. Under a bandwidth cap it is asked for a frame at a
// time, each after the pacer's wait: the donor sends only what was asked
// (socket buffers hold megabytes: a whole range asked for at once would
// leave the donor at once, whatever the pace), and a SET GLOBAL applies
// at the next frame.
func (st *streamState) pull(ctx context.Context, d *dataConn, q request, buf, dbuf []byte) ([]byte, error) {
	for off, end := q.off, q.off+q.n; off < end; {
		sub := q
		sub.off, sub.n = off, end-off
		if rate := st.opts.MaxBandwidth(); rate > 0 {
			sub.n = min(sub.n, FrameSize)
			if err := st.wait(ctx, int64(sub.n), rate); err != nil {
				return dbuf, err
			}
		}
		var err error
		if dbuf, err = st.pullRequest(d, sub, buf, dbuf); err != nil {
			return dbuf, err
		}
		off += sub.n
	}
	return dbuf, nil
}

// pullRequest sends one request and reads its frames into the file.
func (st *streamState) pullRequest(d *dataConn, q request, buf, dbuf []byte) ([]byte, error) {
	name := st.man.Files[q.file].Name
	d.conn.SetWriteDeadline(time.Now().Add(st.opts.Timeout))
	if _, err := d.conn.Write(q.encode()); err != nil {
		return dbuf, streamIOError(err)
	}
	var hb [frameHeaderSize]byte
	for off, end := int64(q.off), int64(q.off+q.n); off < end; {
		want := min(int64(FrameSize), end-off)
		d.conn.SetReadDeadline(time.Now().Add(st.opts.Timeout))
		h, err := readFrameHeader(d.br, &hb)
		if err != nil {
			return dbuf, streamIOError(err)
		}
		switch {
		case h.kind == frameError:
			return dbuf, readErrorFrame(d.br, h)
		case h.kind != frameData && h.kind != frameCompressed,
			int64(h.raw) != want, h.wire > maxFrameWire,
			h.kind == frameData && h.wire != h.raw,
			h.kind == frameCompressed && !q.compress:
			return dbuf, &ProtocolError{Msg: fmt.Sprintf("bad frame for %s at %d: kind %q, %d bytes (%d on the wire), want %d", name, off, h.kind, h.raw, h.wire, want)}
		}
		payload := buf[:h.wire]
		if _, err := io.ReadFull(d.br, payload); err != nil {
			return dbuf, streamIOError(err)
		}
		data := payload
		if h.kind == frameCompressed {
			codecs()
			if dbuf, err = decoder.DecodeAll(payload, dbuf[:0]); err != nil || int64(len(dbuf)) != want {
				return dbuf, &ProtocolError{Msg: fmt.Sprintf("frame of %s at %d does not decompress to %d bytes: %v", name, off, want, err)}
			}
			data = dbuf
		}
		if crc32.Checksum(data, castagnoli) != h.crc {
			return dbuf, &ProtocolError{Msg: fmt.Sprintf("frame of %s at %d: checksum mismatch", name, off)}
		}
		if _, err := st.files[q.file].WriteAt(data, off); err != nil {
			return dbuf, fmt.Errorf("clone: write %s: %w", name, err)
		}
		st.opts.Progress.add(st.opts.Clock.Now(), want, int64(h.wire)+frameHeaderSize)
		off += want
		if st.remain[q.file].Add(-want) == 0 {
			st.complete <- int(q.file) // never blocks: room for every file
		}
	}
	return dbuf, nil
}

// wait paces the frames of all connections together
// (clone_max_data_bandwidth, read before each frame).
func (st *streamState) wait(ctx context.Context, n, rate int64) error {
	return st.pace.wait(ctx, st.opts.Clock.Now(), n, rate)
}
