package node_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/node"
	"petrel/sqlengine/wire"
)

// Fuzz targets for what a client sends over the wire, run against one
// in-process server per fuzzing process over real sockets: the
// handshake response, and the commands vitess parses itself
// (COM_STMT_PREPARE / EXECUTE / SEND_LONG_DATA / RESET / CLOSE,
// COM_FIELD_LIST, COM_CHANGE_USER). The server must never panic (vitess
// recovers a panic and drops the connection; sqlengine counts those), and
// after a command the connection must still answer COM_PING. Seeds are in
// testdata/fuzz.

// fuzzServer starts a server for one fuzz target (in each fuzzing
// process), closed when the target ends.
func fuzzServer(f *testing.F) string {
	n, err := node.Open(node.Options{
		Datadir: f.TempDir() + "/d", Port: 0, RootPassword: "pw",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard,
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { n.Close() })
	c, err := dialFuzz(n.Addr())
	if err != nil {
		f.Fatal(err)
	}
	defer c.c.Close()
	if err := c.login("root", "pw"); err != nil {
		f.Fatal(err)
	}
	for _, q := range []string{"CREATE DATABASE fz", "CREATE TABLE fz.t (id INT PRIMARY KEY, s VARCHAR(20), d DATETIME, f DOUBLE)"} {
		if r, err := c.cmd(append([]byte{0x03}, q...)); err != nil || len(r) == 0 || r[0] != 0 {
			f.Fatalf("%s: %x %v", q, r, err)
		}
	}
	return n.Addr()
}

// fuzzConn is a raw client socket; every read has a deadline.
type fuzzConn struct {
	c   net.Conn
	seq byte
}

func dialFuzz(addr string) (*fuzzConn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &fuzzConn{c: c}, nil
}

func (f *fuzzConn) write(p []byte) error {
	_ = f.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	n := len(p)
	_, err := f.c.Write(append([]byte{byte(n), byte(n >> 8), byte(n >> 16), f.seq}, p...))
	f.seq++
	return err
}

func (f *fuzzConn) read(d time.Duration) ([]byte, error) {
	_ = f.c.SetReadDeadline(time.Now().Add(d))
	var h [4]byte
	if _, err := io.ReadFull(f.c, h[:]); err != nil {
		return nil, err
	}
	p := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	if _, err := io.ReadFull(f.c, p); err != nil {
		return nil, err
	}
	f.seq = h[3] + 1
	return p, nil
}

// greeting reads the handshake and returns its salt.
func (f *fuzzConn) greeting() ([]byte, error) {
	p, err := f.read(5 * time.Second)
	if err != nil {
		return nil, err
	}
	i := bytes.IndexByte(p[1:], 0)
	if p[0] != 10 || i < 0 || len(p) < 1+i+1+4+8+1+2+1+2+2+1+10+12 {
		return nil, errors.New("bad greeting")
	}
	q := p[1+i+1+4:]
	salt := append([]byte(nil), q[:8]...)
	return append(salt, q[8+1+2+1+2+2+1+10:][:12]...), nil
}

// handshakeResponse is a HandshakeResponse41 for user with
// mysql_native_password.
func handshakeResponse(user, pw string, salt []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x200|0x8000|0x80000|0x2000|1|0x10000|0x20000)
	b = binary.LittleEndian.AppendUint32(b, 1<<24)
	b = append(b, 45)
	b = append(b, make([]byte, 23)...)
	b = append(append(b, user...), 0)
	auth := mysql.ScrambleMysqlNativePassword(salt, []byte(pw))
	b = append(append(b, byte(len(auth))), auth...)
	return append(append(b, "mysql_native_password"...), 0)
}

func (f *fuzzConn) login(user, pw string) error {
	salt, err := f.greeting()
	if err != nil {
		return err
	}
	if err := f.write(handshakeResponse(user, pw, salt)); err != nil {
		return err
	}
	p, err := f.read(10 * time.Second)
	if err != nil {
		return err
	}
	if len(p) == 0 || p[0] != 0 {
		return errors.New("login refused")
	}
	return nil
}

// cmd sends a command and reads its reply up to the end of the first
// result set (text protocol) or an OK/ERR.
func (f *fuzzConn) cmd(p []byte) ([]byte, error) {
	f.seq = 0
	if err := f.write(p); err != nil {
		return nil, err
	}
	first, err := f.read(10 * time.Second)
	if err != nil || len(first) == 0 || first[0] == 0 || first[0] == 0xff {
		return first, err
	}
	for eofs := 0; eofs < 2; {
		q, err := f.read(10 * time.Second)
		if err != nil {
			return first, err
		}
		if len(q) > 0 && q[0] == 0xff {
			return q, nil
		}
		if len(q) > 0 && q[0] == 0xfe && len(q) < 9 {
			eofs++
		}
	}
	return first, nil
}

// drain reads whatever the server sends until it has been quiet for d.
func (f *fuzzConn) drain(d time.Duration) error {
	for {
		if _, err := f.read(d); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return nil
			}
			return err
		}
	}
}

// fuzzMark ends a batch of pipelined commands: sync reads until its
// row arrives.
const fuzzMark = "fz-end-7f3a"

// sync sends SELECT fuzzMark and reads everything up to its row: the
// replies to the commands sent before it are consumed.
func (f *fuzzConn) sync() error {
	f.seq = 0
	if err := f.write(append([]byte{0x03}, "SELECT '"+fuzzMark+"'"...)); err != nil {
		return err
	}
	for {
		p, err := f.read(3 * time.Second)
		if err != nil {
			return err
		}
		if bytes.Contains(p, []byte(fuzzMark)) && p[0] == byte(len(fuzzMark)) {
			_, err := f.read(10 * time.Second) // the EOF after the row
			return err
		}
	}
}

// changeUserGoesOn follows COM_CHANGE_USER's exchange: an auth switch
// is answered with an empty response; OK means the connection goes on.
// A malformed request is 1835 and the connection goes on; any other
// ERR must be 1045 (or 1043) and, as MySQL's, the server closes the
// connection after it: false.
func (f *fuzzConn) changeUserGoesOn(t *testing.T) bool {
	t.Helper()
	p, err := f.read(10 * time.Second)
	if err != nil {
		t.Fatalf("COM_CHANGE_USER: no answer: %v", err)
	}
	if len(p) > 0 && p[0] == 0xfe {
		if err := f.write(nil); err != nil {
			t.Fatalf("COM_CHANGE_USER: auth switch response: %v", err)
		}
		if p, err = f.read(10 * time.Second); err != nil {
			t.Fatalf("COM_CHANGE_USER: no answer after the auth switch: %v", err)
		}
	}
	switch {
	case len(p) > 0 && p[0] == 0:
		return true
	case len(p) >= 3 && p[0] == 0xff:
		code := binary.LittleEndian.Uint16(p[1:])
		if code == 1835 { // malformed: refused before any authentication
			return true
		}
		if code != 1045 && code != 1043 {
			t.Fatalf("COM_CHANGE_USER refused with %d, want 1045 or 1043", code)
		}
		if q, err := f.read(5 * time.Second); err == nil {
			t.Fatalf("COM_CHANGE_USER refused but the connection went on: %x", q)
		}
		return false
	}
	t.Fatalf("COM_CHANGE_USER: unexpected answer %x", p)
	return false
}

// pingFresh logs in on a new connection and pings.
func pingFresh(addr string) error {
	c, err := dialFuzz(addr)
	if err != nil {
		return err
	}
	defer c.c.Close()
	if err := c.login("root", "pw"); err != nil {
		return err
	}
	r, err := c.cmd([]byte{0x0e})
	if err != nil || len(r) == 0 || r[0] != 0 {
		return fmt.Errorf("COM_PING: %x %v", r, err)
	}
	return nil
}

// noPanic fails when the server recovered a panic since before.
func noPanic(t *testing.T, before int64, what string) {
	t.Helper()
	if n := wire.RecoveredPanics(); n != before {
		t.Fatalf("%s: the server recovered %d panic(s)", what, n-before)
	}
}

// FuzzHandshakeResponse sends arbitrary bytes as the handshake response:
// the server answers (OK, ERR, an auth switch) or closes the connection,
// never panics.
func FuzzHandshakeResponse(f *testing.F) {
	addr := fuzzServer(f)
	f.Add(handshakeResponse("root", "pw", make([]byte, 20)))
	f.Add([]byte{0x05, 0x82, 0, 0})
	f.Fuzz(func(t *testing.T, resp []byte) {
		before := wire.RecoveredPanics()
		c, err := dialFuzz(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.c.Close()
		if _, err := c.greeting(); err != nil {
			t.Fatal(err)
		}
		if err := c.write(resp); err != nil {
			return
		}
		_ = c.drain(300 * time.Millisecond)
		noPanic(t, before, "handshake response")
	})
}

// FuzzCommand sends one arbitrary command after login, on a connection
// with prepared statements 1 (no parameters), 2 (INSERT, four parameters)
// and 3 (SELECT, one): its first byte, unless it is one of the commands
// under test, is taken modulo them. The server must not panic, must
// answer the next query and COM_PING.
func FuzzCommand(f *testing.F) {
	addr := fuzzServer(f)
	for _, s := range [][]byte{
		{0x17, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0x0f, 1, 3, 0, 0xfd, 0, 12, 0, 5, 0, 1, 0, 0, 0, 1, 'a', 4, 0xe8, 7, 1, 1},
		{0x17, 3, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 8, 0, 41, 0, 0, 0, 0, 0, 0, 0},
		{0x18, 2, 0, 0, 0, 1, 0, 'x', 'y'},
		{0x1a, 2, 0, 0, 0},
		{0x19, 3, 0, 0, 0},
		{0x04, 't', 0, '%'},
		{0x11, 'r', 'o', 'o', 't', 0, 0},
		append([]byte{0x16}, "SELECT ? FROM t WHERE id IN (?, ?)"...),
		append([]byte{0x16}, "SELEC ?"...),
	} {
		f.Add(s)
	}
	cmds := []byte{0x16, 0x17, 0x18, 0x19, 0x1a, 0x04, 0x11}
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) == 0 || len(p) > 1<<16 {
			return
		}
		before := wire.RecoveredPanics()
		c, err := dialFuzz(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.c.Close()
		if err := c.login("root", "pw"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.cmd(append([]byte{0x02}, "fz"...)); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"SELECT 1", "INSERT INTO t VALUES (?, ?, ?, ?)", "SELECT s FROM t WHERE id = ?"} {
			c.seq = 0
			if err := c.write(append([]byte{0x16}, q...)); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.sync(); err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(cmds, p[0]) < 0 {
			p = append([]byte{cmds[int(p[0])%len(cmds)]}, p[1:]...)
		}
		c.seq = 0
		if err := c.write(p); err != nil {
			t.Fatalf("command %x: %v", p[0], err)
		}
		if p[0] == 0x11 && !c.changeUserGoesOn(t) {
			noPanic(t, before, "change user")
			if err := pingFresh(addr); err != nil {
				t.Fatalf("after a refused COM_CHANGE_USER the server does not serve a new connection: %v", err)
			}
			return
		}
		if err := c.sync(); err != nil {
			t.Fatalf("command %x: the connection did not go on: %v", p[0], err)
		}
		noPanic(t, before, "command")
		r, err := c.cmd([]byte{0x0e})
		if err != nil || len(r) == 0 || r[0] != 0 {
			t.Fatalf("COM_PING after command %x: %x %v", p[0], r, err)
		}
	})
}
