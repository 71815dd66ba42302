package source

import (
	"bufio"
	"context"
	"errors"
	"net"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// Serve runs a dump over a replica's connection: the network shell around
// Dump. Errors found before anything was sent are returned (the protocol
// layer reports them); later ones are reported on the stream here, and the
// connection is closed.
func (s *Source) Serve(ctx context.Context, conn net.Conn, req Request) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pw := &packetWriter{conn: conn, bw: bufio.NewWriterSize(conn, 64<<10), seq: 1, timeout: s.opts.WriteTimeout}
	// The replica sends nothing during a dump (acks come with semi-sync):
	// a read ending means it went away.
	go func() {
		buf := make([]byte, 512)
		for {
			if _, err := conn.Read(buf); err != nil {
				cancel()
				return
			}
		}
	}()
	err := s.Dump(ctx, pw, req)
	if err == nil || errors.Is(err, context.Canceled) {
		conn.Close()
		return nil
	}
	if IsFatal(err) {
		err = mysql.NewSQLError(mysql.ERMasterFatalReadingBinlog, "HY000", "%s", err.Error())
	}
	if pw.sent == 0 {
		return err
	}
	if se, ok := err.(*mysql.SQLError); ok {
		pw.writeError(se)
	}
	conn.Close()
	return nil
}

// packetWriter frames events as MySQL packets: 0x00, then the event.
type packetWriter struct {
	conn    net.Conn
	bw      *bufio.Writer
	seq     byte
	timeout time.Duration
	sent    int
}

func (p *packetWriter) WriteEvent(ev []byte) error {
	p.sent++
	payload := make([]byte, 0, len(ev)+1)
	payload = append(payload, 0)
	payload = append(payload, ev...)
	return p.writePacket(payload)
}

func (p *packetWriter) writePacket(payload []byte) error {
	const maxLen = 1<<24 - 1
	for {
		n := len(payload)
		if n > maxLen {
			n = maxLen
		}
		hdr := []byte{byte(n), byte(n >> 8), byte(n >> 16), p.seq}
		p.seq++
		if _, err := p.bw.Write(hdr); err != nil {
			return err
		}
		if _, err := p.bw.Write(payload[:n]); err != nil {
			return err
		}
		payload = payload[n:]
		if n < maxLen {
			return nil
		}
	}
}

func (p *packetWriter) Flush() error {
	if p.bw.Buffered() == 0 {
		return nil
	}
	p.conn.SetWriteDeadline(time.Now().Add(p.timeout))
	return p.bw.Flush()
}

// writeError sends an ERR packet (best effort: the link may be gone).
func (p *packetWriter) writeError(e *mysql.SQLError) {
	b := []byte{0xff, byte(e.Number()), byte(e.Number() >> 8), '#'}
	state := e.SQLState()
	if len(state) != 5 {
		state = "HY000"
	}
	b = append(b, state...)
	b = append(b, e.Message...)
	if p.writePacket(b) == nil {
		p.Flush()
	}
}
