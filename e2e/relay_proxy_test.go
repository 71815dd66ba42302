package e2e

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
)

// streamProxy forwards TCP connections to a server, reading the server's
// side as MySQL packets so that it can tamper with binlog events on their
// way to a replica: flip a byte of the first event holding a marker (its
// checksum no longer matches), drop one transaction by GNO (a gap), or
// pause (stop reading from the server, whose writes then block).
type streamProxy struct {
	ln       net.Listener
	upstream string

	mu        sync.Mutex
	cond      *sync.Cond
	corrupt   []byte // flip a byte in the first event holding it, once
	dropGNO   int64  // drop the events of this transaction, once
	paused    bool
	corrupted int
	dropped   int
	conns     []net.Conn
	closed    bool
	wg        sync.WaitGroup
}

func newStreamProxy(t *testing.T, upstreamPort int) *streamProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &streamProxy{ln: ln, upstream: net.JoinHostPort("127.0.0.1", strconv.Itoa(upstreamPort))}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *streamProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

func (p *streamProxy) set(fn func(p *streamProxy)) {
	p.mu.Lock()
	fn(p)
	p.cond.Broadcast()
	p.mu.Unlock()
}

func (p *streamProxy) counts() (corrupted, dropped int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.corrupted, p.dropped
}

func (p *streamProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	p.closed = true
	p.paused = false
	p.cond.Broadcast()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *streamProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			u.Close()
			return
		}
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			io.Copy(u, c)
			u.Close()
			c.Close()
		}()
		go func() {
			defer p.wg.Done()
			p.downstream(u, c)
			u.Close()
			c.Close()
		}()
	}
}

// downstream copies the server's packets to the client, tampering with
// binlog events as set.
func (p *streamProxy) downstream(u, c net.Conn) {
	dropping := false
	for {
		p.mu.Lock()
		for p.paused && !p.closed {
			p.cond.Wait()
		}
		p.mu.Unlock()
		var hdr [4]byte
		if _, err := io.ReadFull(u, hdr[:]); err != nil {
			return
		}
		n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
		pkt := make([]byte, 4+n)
		copy(pkt, hdr[:])
		if _, err := io.ReadFull(u, pkt[4:]); err != nil {
			return
		}
		payload := pkt[4:]
		// A binlog event: 0x00, then an event whose size field is the rest.
		if len(payload) >= 1+19 && payload[0] == 0 && int(binary.LittleEndian.Uint32(payload[1+9:])) == len(payload)-1 {
			ev := payload[1:]
			p.mu.Lock()
			if ev[4] == 33 && len(ev) >= 19+25 && p.dropGNO != 0 && int64(binary.LittleEndian.Uint64(ev[19+17:])) == p.dropGNO {
				dropping = true
				p.dropGNO = 0
			}
			skip := dropping
			if dropping && ev[4] == 16 { // XID: the transaction's last event
				dropping = false
				p.dropped++
			}
			if !skip && p.corrupt != nil {
				if i := bytes.Index(ev, p.corrupt); i >= 0 {
					ev[i] ^= 0x20
					p.corrupt = nil
					p.corrupted++
				}
			}
			p.mu.Unlock()
			if skip {
				continue
			}
		}
		if _, err := c.Write(pkt); err != nil {
			return
		}
	}
}
