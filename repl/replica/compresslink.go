package replica

import (
	"bufio"
	"errors"
	"strconv"

	"github.com/dolthub/vitess/go/mysql"

	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"petrel/internal/mysqlcompress"
)

// Protocol compression on the link to the source
// (SOURCE_COMPRESSION_ALGORITHMS, SOURCE_ZSTD_COMPRESSION_LEVEL). vitess's
// client, which authenticates the link, cannot ask for compression, so the
// receiver puts a shell between it and the source: vitess connects to a
// one-connection loopback listener; the shell dials the source, passes the
// handshake through, adding the compression capability (and the zstd
// level byte) to the handshake response, and from the source's
// authentication OK on carries the two directions compressed on the source's
// socket and plain on the loopback one. With SOURCE_SSL the shell would see
// only ciphertext: the link then stays uncompressed (logged).

// CompressionAlgorithmError is MySQL's
// ER_CHANGE_SOURCE_WRONG_COMPRESSION_ALGORITHM_CLIENT (3920) or, with
// TooMany, _LIST_CLIENT (3924).
type CompressionAlgorithmError struct {
	Value   string
	TooMany bool
}

func (e *CompressionAlgorithmError) Error() string {
	if e.TooMany {
		return fmt.Sprintf("Specified compression algorithm list '%s' exceeds total count of 3 for channel ''.", e.Value)
	}
	return fmt.Sprintf("Invalid SOURCE_COMPRESSION_ALGORITHMS '%s' for channel ''.", e.Value)
}

// CompressionLevelError is MySQL's
// ER_CHANGE_SOURCE_WRONG_COMPRESSION_LEVEL_CLIENT (3921).
type CompressionLevelError struct{ Value string }

func (e *CompressionLevelError) Error() string {
	return fmt.Sprintf("Invalid SOURCE_ZSTD_COMPRESSION_LEVEL %s for channel ''.", e.Value)
}

// parseCompressionAlgorithms checks and normalises a
// SOURCE_COMPRESSION_ALGORITHMS list.
func parseCompressionAlgorithms(v string) (string, error) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(v)), ",")
	if len(parts) > 3 {
		return "", &CompressionAlgorithmError{Value: v, TooMany: true}
	}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		switch p {
		case "zstd", "zlib", "uncompressed":
		default:
			return "", &CompressionAlgorithmError{Value: v}
		}
		parts[i] = p
	}
	return strings.Join(parts, ","), nil
}

// chooseCompression picks the first listed algorithm the source's
// greeting (capabilities caps) offers; ok is false when none fits and
// "uncompressed" is not listed either.
func chooseCompression(list string, caps uint32) (algo mysqlcompress.Algorithm, ok bool) {
	for _, a := range strings.Split(list, ",") {
		switch {
		case a == "zstd" && caps&mysqlcompress.ClientZstd != 0:
			return mysqlcompress.Zstd, true
		case a == "zlib" && caps&mysqlcompress.ClientCompress != 0:
			return mysqlcompress.Zlib, true
		case a == "uncompressed" || a == "":
			return mysqlcompress.None, true
		}
	}
	return mysqlcompress.None, false
}

// compressLink is the shell for one connection. Its goroutines end when
// either side closes; Close closes both and waits for them.
type compressLink struct {
	path  string
	ln    net.Listener
	src   net.Conn
	list  string
	level int

	algo atomic.Int32 // mysqlcompress.Algorithm chosen from the greeting
	// stream: the handshake response asked for streamed zstd, so the
	// reader follows a stream (it reads a MySQL source's frames too).
	stream atomic.Bool
	failed atomic.Pointer[string]
	seq    mysqlcompress.Seq
	on     atomic.Bool // past the authentication OK
	w      *mysqlcompress.Writer
	wg     sync.WaitGroup
	once   sync.Once
}

// openCompressLink dials the source and listens for vitess; the caller
// connects vitess to link.path.
func openCompressLink(ctx context.Context, addr, list string, level int, timeout time.Duration) (*compressLink, error) {
	// A loopback TCP socket, not a unix one: vitess would take a unix
	// socket as secure and send a caching_sha2_password in clear text.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	path := ln.Addr().String()
	d := net.Dialer{Timeout: timeout}
	src, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		ln.Close()
		return nil, err
	}
	if level < 1 || level > 22 {
		level = mysqlcompress.DefaultZstdLevel
	}
	l := &compressLink{path: path, ln: ln, src: src, list: list, level: level}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(timeout))
		v, err := ln.Accept()
		ln.Close()
		if err != nil {
			src.Close()
			return
		}
		l.wg.Add(2)
		go func() { defer l.wg.Done(); l.upstream(v); v.Close(); src.Close() }()
		go func() { defer l.wg.Done(); l.downstream(v); v.Close(); src.Close() }()
	}()
	return l, nil
}

// Close ends the link's goroutines.
func (l *compressLink) Close() {
	l.once.Do(func() {
		l.ln.Close()
		l.src.Close()
	})
	l.wg.Wait()
}

// Algorithm is what the link negotiated.
func (l *compressLink) Algorithm() mysqlcompress.Algorithm {
	return mysqlcompress.Algorithm(l.algo.Load())
}

func readPacket(r io.Reader, buf []byte) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	if cap(buf) < 4+n {
		buf = make([]byte, 4+n)
	}
	buf = buf[:4+n]
	copy(buf, hdr[:])
	if _, err := io.ReadFull(r, buf[4:]); err != nil {
		return nil, err
	}
	return buf, nil
}

// downstream carries the source's packets to vitess: the greeting (its
// capabilities choose the algorithm), the authentication exchange, and
// from the OK on the decompressed stream.
func (l *compressLink) downstream(v net.Conn) {
	br := bufio.NewReaderSize(l.src, 64<<10)
	var buf []byte
	greeted := false
	for {
		p, err := readPacket(br, buf)
		if err != nil {
			return
		}
		buf = p
		if !greeted {
			greeted = true
			caps, ok := greetingCaps(p[4:])
			algo, fits := chooseCompression(l.list, caps)
			if !ok || !fits {
				msg := fmt.Sprintf("the source offers none of SOURCE_COMPRESSION_ALGORITHMS '%s'", l.list)
				l.failed.Store(&msg)
			}
			l.algo.Store(int32(algo))
		} else if len(p) > 4 && p[4] == 0x00 && l.Algorithm() != mysqlcompress.None {
			// The authentication OK: both directions compress after it.
			l.w = mysqlcompress.NewWriter(l.src, l.Algorithm(), l.level, &l.seq)
			l.on.Store(true)
			if _, err := v.Write(p); err != nil {
				return
			}
			r := mysqlcompress.NewReader(br, l.Algorithm(), &l.seq)
			if l.stream.Load() {
				r = mysqlcompress.NewStreamReader(br, &l.seq)
			}
			io.Copy(v, r)
			return
		}
		if _, err := v.Write(p); err != nil {
			return
		}
	}
}

// upstream carries vitess's packets to the source: the handshake response
// with the compression capability added, then (compressed once on) each
// packet, the compressed ids starting again at each command.
func (l *compressLink) upstream(v net.Conn) {
	br := bufio.NewReaderSize(v, 64<<10)
	var buf []byte
	first := true
	for {
		p, err := readPacket(br, buf)
		if err != nil {
			return
		}
		buf = p
		if first {
			first = false
			p = l.withCompression(p)
		}
		if l.on.Load() {
			if p[3] == 0 {
				l.seq.Reset()
			}
			_, err = l.w.Write(p)
		} else {
			_, err = l.src.Write(p)
		}
		if err != nil {
			return
		}
	}
}

// withCompression adds the chosen capability to a HandshakeResponse41
// (and, for zstd, the level byte after its fields).
func (l *compressLink) withCompression(p []byte) []byte {
	if len(p) < 8 || l.failed.Load() != nil {
		return p
	}
	caps := binary.LittleEndian.Uint32(p[4:])
	switch l.Algorithm() {
	case mysqlcompress.Zlib:
		caps |= mysqlcompress.ClientCompress
	case mysqlcompress.Zstd:
		caps |= mysqlcompress.ClientZstd
		if caps&clientPluginAuth != 0 && caps&clientConnectAttrs == 0 {
			// vitess sends no attributes: the block goes after the plugin
			// name, where the response's fields end.
			caps |= clientConnectAttrs
			p = appendStreamAttr(p)
			l.stream.Store(true)
		}
		p = append(p, byte(l.level))
	default:
		return p
	}
	binary.LittleEndian.PutUint32(p[4:], caps)
	n := len(p) - 4
	p[0], p[1], p[2] = byte(n), byte(n>>8), byte(n>>16)
	return p
}

// Handshake capability flags the response's layout depends on.
const (
	clientPluginAuth   = 0x00080000
	clientConnectAttrs = 0x00100000
)

// appendStreamAttr appends a connection attribute block asking for
// streamed zstd (mysqlcompress.StreamAttr): Petrel sources then send the
// dump as one zstd stream; MySQL and MariaDB ignore the attribute.
func appendStreamAttr(p []byte) []byte {
	k, v := mysqlcompress.StreamAttr, "zstd"
	p = append(p, byte(2+len(k)+len(v)), byte(len(k)))
	p = append(p, k...)
	p = append(p, byte(len(v)))
	return append(p, v...)
}

// greetingCaps reads a HandshakeV10's capability flags.
func greetingCaps(p []byte) (uint32, bool) {
	if len(p) < 1 || p[0] != 10 {
		return 0, false
	}
	i := 1
	for i < len(p) && p[i] != 0 {
		i++
	}
	pos := i + 1 + 4 + 8 + 1
	if pos+7 > len(p) {
		return 0, false
	}
	lo := uint32(binary.LittleEndian.Uint16(p[pos:]))
	hi := uint32(binary.LittleEndian.Uint16(p[pos+5:]))
	return lo | hi<<16, true
}

// compresses reports whether the configuration asks for a compressed link.
func (c *Config) compresses() bool {
	return strings.Contains(c.CompressionAlgorithms, "zstd") || strings.Contains(c.CompressionAlgorithms, "zlib")
}

// dialSource connects vitess to the source, through a compressLink when
// the configuration asks for compression (nil link otherwise).
func (r *Replica) dialSource(ctx context.Context, cfg Config, params *mysql.ConnParams, timeout time.Duration) (*mysql.Conn, *compressLink, error) {
	if !cfg.compresses() {
		conn, err := mysql.Connect(ctx, params)
		return conn, nil, err
	}
	if cfg.SSL {
		r.opts.Logger.Warn("replica: SOURCE_COMPRESSION_ALGORITHMS is not used with SOURCE_SSL=1; the link is uncompressed", "algorithms", cfg.CompressionAlgorithms)
		conn, err := mysql.Connect(ctx, params)
		return conn, nil, err
	}
	link, err := openCompressLink(ctx, net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)), cfg.CompressionAlgorithms, cfg.ZstdLevel, timeout)
	if err != nil {
		return nil, nil, err
	}
	p := *params
	host, port, _ := net.SplitHostPort(link.path)
	p.Host = host
	p.Port, _ = strconv.Atoi(port)
	conn, err := mysql.Connect(ctx, &p)
	if err == nil {
		if msg := link.failed.Load(); msg != nil {
			conn.Close()
			err = errors.New(*msg)
		}
	}
	if err != nil {
		link.Close()
		return nil, nil, err
	}
	return conn, link, nil
}

// ConnectionConfig is the configuration as
// performance_schema.replication_connection_configuration shows it; ok is
// false when no source is configured.
func (r *Replica) ConnectionConfig() (cfg Config, heartbeat time.Duration, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.cfg.Configured() {
		return Config{}, 0, false
	}
	return *r.cfg, r.cfg.Heartbeat(r.Settings().NetTimeout), true
}
