package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"petrel/internal/base"
)

// Replication commands reach the server on the normal client port. The
// vitess protocol layer knows COM_REGISTER_SLAVE and COM_BINLOG_DUMP_GTID
// but not COM_BINLOG_DUMP (file/position, what MariaDB replicas send), and
// it trusts those packets' lengths. Conn (netconn.go) sits under vitess
// on every accepted connection: it parses the replication commands itself
// (so a malformed one is refused, never sliced out of range), keeps what
// they say for the handler, and hands vitess a sanitised
// COM_BINLOG_DUMP_GTID instead.

const (
	comBinlogDump     = 0x12
	comRegisterSlave  = 0x15
	comBinlogDumpGTID = 0x1e
	maxFrame          = 1<<24 - 1
)

// RegisterRequest is what COM_REGISTER_SLAVE says.
type RegisterRequest struct {
	ServerID uint32
	Host     string
	User     string
	Port     uint16
	SourceID uint32
}

// dumpCommand is what COM_BINLOG_DUMP[_GTID] says.
type dumpCommand struct {
	ServerID uint32
	Flags    uint16
	File     string
	Pos      uint64
	// GTIDs is the replica's executed+received set (auto-position); nil
	// for a file/position dump.
	GTIDs *base.GTIDSet
}

// inspect parses a command packet; replication commands are recorded and
// replaced by a minimal COM_BINLOG_DUMP_GTID / COM_REGISTER_SLAVE that
// vitess parses safely.
func (c *Conn) inspect(p []byte) []byte {
	switch p[0] {
	case comRegisterSlave:
		r, err := ParseRegister(p)
		c.mu.Lock()
		c.register, c.bad = r, err
		c.mu.Unlock()
		// server_id, then empty host, user, password, port 0, rank, source.
		return append([]byte{comRegisterSlave, 0, 0, 0, 0, 0, 0, 0}, make([]byte, 10)...)
	case comBinlogDump, comBinlogDumpGTID:
		d, err := ParseDump(p)
		c.mu.Lock()
		c.dump, c.bad = d, err
		c.mu.Unlock()
		// flags 0, server_id 0, empty file name, position 4.
		out := []byte{comBinlogDumpGTID, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
		return binary.LittleEndian.AppendUint64(out, 4)
	}
	if c.gate.rewrite != nil {
		return c.gate.rewrite(p) // sqlengine's (a prepared DO)
	}
	return p
}

// takeRegister returns the recorded COM_REGISTER_SLAVE.
func (c *Conn) TakeRegister() (*RegisterRequest, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, err := c.register, c.bad
	c.register, c.bad = nil, nil
	if err == nil && r == nil {
		err = errors.New("no COM_REGISTER_SLAVE seen")
	}
	return r, err
}

// takeDump returns the recorded dump command.
func (c *Conn) TakeDump() (*dumpCommand, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, err := c.dump, c.bad
	c.dump, c.bad = nil, nil
	if err == nil && d == nil {
		err = errors.New("no COM_BINLOG_DUMP seen")
	}
	return d, err
}

// ParseRegister decodes COM_REGISTER_SLAVE (command byte included).
func ParseRegister(p []byte) (*RegisterRequest, error) {
	r := &RegisterRequest{}
	rd := &pktReader{b: p, pos: 1}
	r.ServerID = rd.u32()
	r.Host = rd.str8()
	r.User = rd.str8()
	_ = rd.str8() // password: never kept
	r.Port = uint16(rd.u16())
	if rd.err != nil {
		return nil, fmt.Errorf("malformed COM_REGISTER_SLAVE packet (%d bytes)", len(p))
	}
	if len(p) >= rd.pos+8 {
		rd.u32() // replication rank, unused
		r.SourceID = rd.u32()
	}
	return r, nil
}

// ParseDump decodes COM_BINLOG_DUMP or COM_BINLOG_DUMP_GTID.
func ParseDump(p []byte) (*dumpCommand, error) {
	d := &dumpCommand{}
	rd := &pktReader{b: p, pos: 1}
	if p[0] == comBinlogDump {
		d.Pos = uint64(rd.u32())
		d.Flags = uint16(rd.u16())
		d.ServerID = rd.u32()
		if rd.err != nil {
			return nil, fmt.Errorf("malformed COM_BINLOG_DUMP packet (%d bytes)", len(p))
		}
		d.File = string(p[rd.pos:])
		return d, nil
	}
	d.Flags = uint16(rd.u16())
	d.ServerID = rd.u32()
	n := rd.u32()
	d.File = string(rd.bytes(int(n)))
	d.Pos = rd.u64()
	d.GTIDs = base.NewGTIDSet()
	if d.Flags&0x04 != 0 { // BINLOG_THROUGH_GTID
		size := rd.u32()
		data := rd.bytes(int(size))
		if rd.err == nil && size > 0 {
			set, err := base.DecodeGTIDSet(data)
			if err != nil {
				return nil, fmt.Errorf("malformed GTID set in COM_BINLOG_DUMP_GTID: %v", err)
			}
			d.GTIDs = set
		}
	}
	if rd.err != nil {
		return nil, fmt.Errorf("malformed COM_BINLOG_DUMP_GTID packet (%d bytes)", len(p))
	}
	return d, nil
}

// pktReader reads little-endian fields; the first overrun sets err.
type pktReader struct {
	b   []byte
	pos int
	err error
}

func (r *pktReader) bytes(n int) []byte {
	if r.err != nil || n < 0 || r.pos+n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return nil
	}
	v := r.b[r.pos : r.pos+n]
	r.pos += n
	return v
}

func (r *pktReader) u16() uint32 {
	if b := r.bytes(2); b != nil {
		return uint32(binary.LittleEndian.Uint16(b))
	}
	return 0
}

func (r *pktReader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *pktReader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *pktReader) str8() string {
	n := r.bytes(1)
	if n == nil {
		return ""
	}
	return string(r.bytes(int(n[0])))
}

// setGreetingCharset sets the character set byte of a HandshakeV10
// payload (the first packet the server writes) to MySQL 8.0's default
// collation, utf8mb4_0900_ai_ci: vitess announces utf8mb3_general_ci (33),
// and clients that adopt the server's default would take it. Anything
// else is left alone.
func setGreetingCharset(p []byte) {
	// protocol(1) version NUL, connection id(4), auth data(8), filler(1),
	// capabilities(2), character set(1)
	if len(p) < 1 || p[0] != 10 {
		return
	}
	end := bytes.IndexByte(p[1:], 0)
	if end < 0 {
		return
	}
	pos := 1 + end + 1 + 4 + 8 + 1 + 2
	if pos < len(p) && p[pos] == 33 {
		p[pos] = greetingCharset
	}
}

// greetingCharset is the collation id the greeting announces.
const greetingCharset = 255 // utf8mb4_0900_ai_ci
