package e2e

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"petrel/lab"
)

// Server status flags (MySQL's SERVER_*).
const (
	statusInTrans     = 0x0001
	statusAutocommit  = 0x0002
	statusMoreResults = 0x0008
)

// rawReply is one statement's reply as the raw client read it: the
// status flags of its final OK or EOF packet (or of the OK), or its ERR.
type rawReply struct {
	status uint16
	ok     bool // an OK packet (no result set)
	info   string
	err    *rawErr
}

// readLenEnc reads a length-encoded integer at p[i:].
func readLenEnc(p []byte, i int) (uint64, int, error) {
	if i >= len(p) {
		return 0, i, errors.New("short packet")
	}
	switch c := p[i]; {
	case c < 0xfb:
		return uint64(c), i + 1, nil
	case c == 0xfc && i+3 <= len(p):
		return uint64(binary.LittleEndian.Uint16(p[i+1:])), i + 3, nil
	case c == 0xfd && i+4 <= len(p):
		return uint64(p[i+1]) | uint64(p[i+2])<<8 | uint64(p[i+3])<<16, i + 4, nil
	case c == 0xfe && i+9 <= len(p):
		return binary.LittleEndian.Uint64(p[i+1:]), i + 9, nil
	}
	return 0, i, fmt.Errorf("bad length-encoded integer %x", p[i:])
}

// parseOK decodes an OK packet's status flags and info (the client
// does not ask for CLIENT_SESSION_TRACK: the info runs to the end).
func parseOK(p []byte) (rawReply, error) {
	_, i, err := readLenEnc(p, 1)
	if err != nil {
		return rawReply{}, err
	}
	if _, i, err = readLenEnc(p, i); err != nil {
		return rawReply{}, err
	}
	if i+4 > len(p) {
		return rawReply{}, fmt.Errorf("OK packet too short: %x", p)
	}
	return rawReply{status: binary.LittleEndian.Uint16(p[i:]), ok: true, info: string(p[i+4:])}, nil
}

// readReply reads one statement's reply (text protocol, classic EOF).
func (r *rawClient) readReply(d time.Duration) (rawReply, error) {
	p, err := r.readPacket(d)
	if err != nil {
		return rawReply{}, err
	}
	switch {
	case len(p) > 0 && p[0] == 0x00:
		return parseOK(p)
	case len(p) > 0 && p[0] == 0xff:
		return rawReply{err: parseErr(p)}, nil
	}
	for eofs := 0; ; {
		p, err := r.readPacket(d)
		if err != nil {
			return rawReply{}, err
		}
		if len(p) > 0 && p[0] == 0xff {
			return rawReply{err: parseErr(p)}, nil
		}
		if len(p) == 5 && p[0] == 0xfe {
			if eofs++; eofs == 2 {
				return rawReply{status: binary.LittleEndian.Uint16(p[3:])}, nil
			}
		}
	}
}

// exchange sends a COM_QUERY and reads every reply it gets (several for
// a multi-statement, while SERVER_MORE_RESULTS_EXISTS is set).
func (r *rawClient) exchange(t *testing.T, q string) []rawReply {
	t.Helper()
	r.seq = 0
	if err := r.writePacket(append([]byte{0x03}, q...)); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out []rawReply
	for {
		rep, err := r.readReply(20 * time.Second)
		if err != nil {
			t.Fatalf("%s: reply %d: %v", q, len(out)+1, err)
		}
		out = append(out, rep)
		if rep.err != nil || rep.status&statusMoreResults == 0 {
			return out
		}
	}
}

// greetingStatus reads the greeting's status flags.
func greetingStatus(t *testing.T, r *rawClient) uint16 {
	t.Helper()
	p, err := r.readPacket(10 * time.Second)
	if err != nil {
		t.Fatalf("greeting: %v", err)
	}
	i := bytes.IndexByte(p[1:], 0)
	// version NUL, id(4), salt(8), filler(1), caps(2), charset(1), status(2)
	q := p[1+i+1+4+8+1+2+1:]
	return binary.LittleEndian.Uint16(q)
}

// TestStatusFlags reads the server status flags off the socket: the
// greeting and the OK and EOF packets carry SERVER_STATUS_AUTOCOMMIT
// whenever autocommit is on and SERVER_STATUS_IN_TRANS inside a
// transaction (START TRANSACTION, or autocommit=0 once a statement read
// or wrote), multi-statements carry SERVER_MORE_RESULTS_EXISTS on all but
// the last reply, and an error leaves the flags right for the next one.
func TestStatusFlags(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE sf", "CREATE TABLE sf.t (id INT PRIMARY KEY, v INT)")

	g := dialRaw(t, p.Port())
	if st := greetingStatus(t, g); st&statusAutocommit == 0 || st&statusInTrans != 0 {
		t.Errorf("greeting status %#04x: want AUTOCOMMIT set, IN_TRANS clear", st)
	}

	r := dialRaw(t, p.Port())
	if err := r.login("root", rootPassword, 0x10000 /* CLIENT_MULTI_STATEMENTS */ |0x20000 /* CLIENT_MULTI_RESULTS */); err != nil {
		t.Fatalf("login: %v", err)
	}
	type step struct {
		q    string
		want []uint16 // the status of each reply
		err  uint16   // the last reply's error number, if any
	}
	ac, in, more := uint16(statusAutocommit), uint16(statusInTrans), uint16(statusMoreResults)
	steps := []step{
		{q: "USE sf", want: []uint16{ac}},
		{q: "SELECT 1", want: []uint16{ac}},
		{q: "INSERT INTO t VALUES (1, 1)", want: []uint16{ac}},
		{q: "START TRANSACTION", want: []uint16{ac | in}},
		{q: "INSERT INTO t VALUES (2, 1)", want: []uint16{ac | in}},
		{q: "SELECT * FROM t", want: []uint16{ac | in}},
		{q: "INSERT INTO t VALUES (1, 1)", err: erDupEntry},
		{q: "SELECT COUNT(*) FROM t", want: []uint16{ac | in}},
		{q: "COMMIT", want: []uint16{ac}},
		{q: "SET autocommit = 0", want: []uint16{0}},
		{q: "SELECT COUNT(*) FROM t", want: []uint16{in}},
		{q: "INSERT INTO t VALUES (3, 1)", want: []uint16{in}},
		{q: "ROLLBACK", want: []uint16{0}},
		{q: "SELECT COUNT(*) FROM t WHERE id = 3", want: []uint16{in}},
		{q: "COMMIT", want: []uint16{0}},
		{q: "SET autocommit = 1", want: []uint16{ac}},
		{q: "SELECT 1; INSERT INTO t VALUES (4, 1); SELECT 2", want: []uint16{ac | more, ac | more, ac}},
		{q: "BEGIN; INSERT INTO t VALUES (5, 1); COMMIT", want: []uint16{ac | in | more, ac | in | more, ac}},
		{q: "SELECT 1; SELECT * FROM nosuch", want: []uint16{ac | more}, err: erNoSuchTable},
		{q: "SELECT 1", want: []uint16{ac}},
		// Prepared-statement paths Petrel answers itself (admin SET).
		{q: "SET TRANSACTION READ ONLY", want: []uint16{ac}},
		{q: "SELECT 3", want: []uint16{ac}},
	}
	for _, s := range steps {
		reps := r.exchange(t, s.q)
		var got []uint16
		var lastErr uint16
		for _, rep := range reps {
			if rep.err != nil {
				lastErr = rep.err.Number
				continue
			}
			got = append(got, rep.status)
		}
		if lastErr != s.err {
			t.Errorf("%s: error %d, want %d", s.q, lastErr, s.err)
		}
		if fmt.Sprint(got) != fmt.Sprint(s.want) && !(len(got) == 0 && len(s.want) == 0) {
			t.Errorf("%s: status flags %#04x, want %#04x", s.q, got, s.want)
		}
	}
	if n := queryInt(t, ctx, rootDB(t, p, "sf"), "SELECT COUNT(*) FROM t"); n != 4 {
		t.Errorf("rows after the steps: %d, want 4 (1, 2, 4, 5; 3 rolled back)", n)
	}

	// The binary protocol, where Petrel's fast paths answer prepared
	// BEGIN, COMMIT, INSERT and point SELECTs without go-sql-server.
	stmt := func(q string) uint32 {
		t.Helper()
		id, _, err := r.prepare(q)
		if err != nil {
			t.Fatalf("prepare %s: %v", q, err)
		}
		return id
	}
	begin, commit := stmt("START TRANSACTION"), stmt("COMMIT")
	ins, sel := stmt("INSERT INTO t VALUES (?, ?)"), stmt("SELECT v FROM t WHERE id = ?")
	le := binary.LittleEndian
	execute := func(id uint32, params ...int64) []byte {
		b := le.AppendUint32([]byte{comStmtExecuteRaw}, id)
		b = le.AppendUint32(append(b, 0), 1)
		if len(params) > 0 {
			b = append(b, make([]byte, (len(params)+7)/8)...)
			b = append(b, 1)
			for range params {
				b = append(b, 0x08, 0)
			}
			for _, v := range params {
				b = le.AppendUint64(b, uint64(v))
			}
		}
		return b
	}
	okStatus := func(what string, pkt []byte, want uint16) {
		t.Helper()
		p, err := r.command(pkt)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		rep, err := parseOK(p)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if rep.status&(statusInTrans|statusAutocommit) != want {
			t.Errorf("%s: status %#04x, want %#04x", what, rep.status, want)
		}
	}
	rowsStatus := func(what string, pkt []byte, want uint16) {
		t.Helper()
		r.seq = 0
		if err := r.writePacket(pkt); err != nil {
			t.Fatal(err)
		}
		rep, err := r.readReply(20 * time.Second)
		if err != nil || rep.err != nil {
			t.Fatalf("%s: %v %v", what, err, rep.err)
		}
		if rep.status&(statusInTrans|statusAutocommit) != want {
			t.Errorf("%s: status %#04x, want %#04x", what, rep.status, want)
		}
	}
	okStatus("prepared INSERT, autocommit", execute(ins, 10, 1), ac)
	okStatus("prepared START TRANSACTION", execute(begin), ac|in)
	okStatus("prepared INSERT in a transaction", execute(ins, 11, 1), ac|in)
	rowsStatus("prepared point SELECT in a transaction", execute(sel, 11), ac|in)
	okStatus("prepared COMMIT", execute(commit), ac)
	rowsStatus("prepared point SELECT, autocommit", execute(sel, 11), ac)
}
