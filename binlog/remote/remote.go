// Package remote reads a server's binary log over the replication
// protocol, as mysqlbinlog --read-from-remote-server does: it logs in
// with vitess's MySQL client, announces CRC32 checksums and a heartbeat
// period, sends COM_BINLOG_DUMP for a file and position, and returns the
// events the server streams, one at a time. `petrel binlog
// --read-from-remote-server` is built on it. It speaks what mysqlbinlog
// speaks; e2e tests run it against Petrel and MariaDB.
//
// A Stream is not safe for concurrent use, except Close, which may be
// called from any goroutine to end a blocked Next.
package remote

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/binlog"
)

// Options configures Dial. Zero values take the defaults noted.
type Options struct {
	// Host and Port of the server; default 127.0.0.1:3306.
	Host string
	Port int
	// User and Password to log in with; the user needs REPLICATION SLAVE.
	User, Password string
	// ServerID is the server_id the dump announces (mysqlbinlog's
	// --connection-server-id); default 65535, which is what mysqlbinlog
	// uses with --stop-never. It must differ from the server's and from
	// its replicas'.
	ServerID uint32
	// Heartbeat is the period the server is asked to send heartbeats at
	// while it has nothing else to send; default 2s.
	Heartbeat time.Duration
	// Timeout bounds the connection and each wait for data: no event nor
	// heartbeat for this long means the link is dead; default 10 times
	// Heartbeat.
	Timeout time.Duration
}

func (o *Options) setDefaults() {
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Port == 0 {
		o.Port = 3306
	}
	if o.ServerID == 0 {
		o.ServerID = 65535
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 2 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * o.Heartbeat
	}
}

// Addr is host:port.
func (o Options) Addr() string { return net.JoinHostPort(o.Host, strconv.Itoa(o.Port)) }

// File is one of the server's binlog files (SHOW BINARY LOGS).
type File struct {
	Name string
	Size uint64
}

// Stream is a connection that streams a binary log.
type Stream struct {
	opts   Options
	conn   *mysql.Conn
	raw    net.Conn
	br     *bufio.Reader
	stop   func() bool
	Server string // the server's version string
}

// ErrEnd is returned by Next when the server ended the stream (the end of
// the log, for a non-blocking dump).
var ErrEnd = errors.New("remote: the server ended the binlog stream")

// Dial logs in and prepares the session for a dump. ctx bounds the
// connection and, while the Stream is open, closes it when done.
func Dial(ctx context.Context, opts Options) (*Stream, error) {
	opts.setDefaults()
	cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	conn, err := mysql.Connect(cctx, &mysql.ConnParams{
		Host: opts.Host, Port: opts.Port, Uname: opts.User, Pass: opts.Password,
		ConnectTimeoutMs: uint64(opts.Timeout / time.Millisecond),
	})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("remote: connecting to %s: %w", opts.Addr(), err)
	}
	s := &Stream{opts: opts, conn: conn, raw: conn.Conn, br: bufio.NewReaderSize(conn.Conn, 256<<10), Server: conn.ServerVersion}
	s.stop = context.AfterFunc(ctx, func() { s.raw.Close() })
	s.raw.SetDeadline(time.Now().Add(opts.Timeout))
	hb := opts.Heartbeat.Nanoseconds()
	for _, q := range []string{
		"SET @source_binlog_checksum = 'CRC32', @master_binlog_checksum = 'CRC32'",
		fmt.Sprintf("SET @source_heartbeat_period = %d, @master_heartbeat_period = %d", hb, hb),
	} {
		if _, err := conn.ExecuteFetch(q, 0, false); err != nil {
			s.Close()
			return nil, fmt.Errorf("remote: %s refused %q: %w", opts.Addr(), q, err)
		}
	}
	return s, nil
}

// Files lists the server's binlog files, oldest first.
func (s *Stream) Files() ([]File, error) {
	s.raw.SetDeadline(time.Now().Add(s.opts.Timeout))
	res, err := s.conn.ExecuteFetch("SHOW BINARY LOGS", 100000, false)
	if err != nil {
		return nil, fmt.Errorf("remote: SHOW BINARY LOGS on %s: %w", s.opts.Addr(), err)
	}
	out := make([]File, 0, len(res.Rows))
	for _, row := range res.Rows {
		if len(row) < 2 {
			return nil, fmt.Errorf("remote: SHOW BINARY LOGS on %s: %d columns", s.opts.Addr(), len(row))
		}
		size, err := strconv.ParseUint(row[1].ToString(), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("remote: SHOW BINARY LOGS on %s: size %q", s.opts.Addr(), row[1].ToString())
		}
		out = append(out, File{Name: row[0].ToString(), Size: size})
	}
	return out, nil
}

// dumpNonBlock is BINLOG_DUMP_NON_BLOCK: the server ends the stream at the
// end of its log instead of waiting for more.
const dumpNonBlock = 0x01

// Dump asks for the log from file at pos (COM_BINLOG_DUMP). With
// nonBlock the server may end the stream at the end of its log (MySQL and
// MariaDB do; Petrel keeps streaming, so callers also stop by position).
func (s *Stream) Dump(file string, pos uint64, nonBlock bool) error {
	if pos > 1<<32-1 {
		return fmt.Errorf("remote: start position %d does not fit COM_BINLOG_DUMP", pos)
	}
	var flags uint16
	if nonBlock {
		flags = dumpNonBlock
	}
	b := []byte{0x12}
	b = binary.LittleEndian.AppendUint32(b, uint32(pos))
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = binary.LittleEndian.AppendUint32(b, s.opts.ServerID)
	b = append(b, file...)
	hdr := []byte{byte(len(b)), byte(len(b) >> 8), byte(len(b) >> 16), 0}
	s.raw.SetDeadline(time.Now().Add(s.opts.Timeout))
	if _, err := s.raw.Write(append(hdr, b...)); err != nil {
		return fmt.Errorf("remote: requesting the binlog from %s: %w", s.opts.Addr(), err)
	}
	return nil
}

// Next returns the next event the server sends (heartbeats included),
// ErrEnd when the server ends the stream, or an error: the server's (with
// its MySQL error number and message), or the link's (no event nor
// heartbeat within Options.Timeout, or the connection lost).
func (s *Stream) Next() ([]byte, error) {
	s.raw.SetReadDeadline(time.Now().Add(s.opts.Timeout))
	var out []byte
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(s.br, hdr[:]); err != nil {
			return nil, s.linkError(err)
		}
		n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
		start := len(out)
		out = append(out, make([]byte, n)...)
		if _, err := io.ReadFull(s.br, out[start:]); err != nil {
			return nil, s.linkError(err)
		}
		if n < 1<<24-1 {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("remote: empty packet from %s", s.opts.Addr())
	}
	switch out[0] {
	case 0x00:
		if len(out) < 1+binlog.HeaderLen {
			return nil, fmt.Errorf("remote: event of %d bytes from %s", len(out)-1, s.opts.Addr())
		}
		return out[1:], nil
	case 0xfe:
		if len(out) < 9 {
			return nil, ErrEnd
		}
	case 0xff:
		var se *mysql.SQLError
		if errors.As(mysql.ParseErrorPacket(out), &se) {
			return nil, fmt.Errorf("remote: %s: error %d: %s", s.opts.Addr(), se.Number(), se.Message)
		}
		return nil, fmt.Errorf("remote: malformed error packet from %s", s.opts.Addr())
	}
	return nil, fmt.Errorf("remote: unexpected packet 0x%02x from %s", out[0], s.opts.Addr())
}

func (s *Stream) linkError(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("remote: no event nor heartbeat from %s for %s: the link is down", s.opts.Addr(), s.opts.Timeout)
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("remote: lost the connection to %s: %w", s.opts.Addr(), err)
}

// Buffered reports whether events already received wait to be read (a
// caller flushes its output when none do).
func (s *Stream) Buffered() bool { return s.br.Buffered() > 0 }

// Close closes the connection.
func (s *Stream) Close() error {
	s.stop()
	s.conn.Close()
	return nil
}
