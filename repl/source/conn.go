package source

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
	"petrel/internal/tcptune"
	"petrel/semisync"
)

// Serve runs a dump over a replica's connection: the network shell around
// Dump. Errors found before anything was sent are returned (the protocol
// layer reports them); later ones are reported on the stream here, and the
// connection is closed.
func (s *Source) Serve(ctx context.Context, conn net.Conn, req Request) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o := *s.tcp.Load(); o != (tcptune.Options{}) {
		if res, err := tcptune.Apply(conn, o); err != nil {
			s.opts.Logger.Warn("cannot set the replica socket's TCP options", "replica_server_id", req.ServerID, "error", err)
		} else if res.Fallback {
			s.opts.Logger.Warn("TCP congestion control not set on the replica socket", "replica_server_id", req.ServerID, "wanted", o.CongestionControl, "using", res.CongestionControl, "error", res.Reason)
		}
	}
	semi := s.semi(req)
	pw := &packetWriter{conn: conn, bw: bufio.NewWriterSize(conn, 64<<10), seq: 1, timeout: s.opts.WriteTimeout, semi: semi}
	// The replica sends nothing during a dump but semi-sync acks, read
	// here (the dump thread only sends); a read ending means it went away,
	// a bad ack disconnects it. Serve does not return before it ended.
	readerDone := make(chan struct{})
	defer func() {
		// Unblock the reader if the connection stays open (an error before
		// anything was sent goes back to the client), and join it.
		conn.SetReadDeadline(time.Unix(1, 0)) // a past Deadline: the read returns now
		<-readerDone
		conn.SetReadDeadline(time.Time{})
	}()
	go func() {
		defer close(readerDone)
		defer cancel()
		br := bufio.NewReader(conn)
		for {
			payload, err := readPacket(br)
			if err != nil {
				return
			}
			if !semi {
				continue
			}
			p, err := semisync.ParseAck(payload)
			if err == nil {
				err = s.opts.Semi.Ack(req.ConnID, p)
			}
			if err != nil {
				s.opts.Logger.Error("semi-sync: disconnecting replica after a bad acknowledgement", "replica_server_id", req.ServerID, "error", err)
				conn.Close()
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
		err = mysqlerr.New(mysqlerr.ErMasterFatalReadingLog, "%s", err.Error())
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
	semi    bool
}

func (p *packetWriter) WriteEvent(ev []byte, ackRequest bool) error {
	p.sent++
	payload := make([]byte, 0, len(ev)+3)
	payload = append(payload, 0)
	if p.semi {
		flag := byte(0)
		if ackRequest {
			flag = semisync.AckRequest
		}
		payload = append(payload, semisync.Magic, flag)
	}
	payload = append(payload, ev...)
	return p.writePacket(payload)
}

// readPacket reads one packet's payload (acks are small: larger packets
// are refused).
func readPacket(br *bufio.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, err
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	if n > 4096 {
		return nil, fmt.Errorf("replica sent a %d-byte packet during a dump", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(br, b)
	return b, err
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
		state = mysqlerr.State(e.Number())
	}
	b = append(b, state...)
	b = append(b, e.Message...)
	if p.writePacket(b) == nil {
		p.Flush()
	}
}
