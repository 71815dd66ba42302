package e2e

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// Command bytes of the binary protocol and friends.
const (
	comPingRaw         = 0x0e
	comFieldListRaw    = 0x04
	comChangeUserRaw   = 0x11
	comStmtPrepareRaw  = 0x16
	comStmtExecuteRaw  = 0x17
	comStmtLongDataRaw = 0x18
	comStmtResetRaw    = 0x1a
)

// command sends one command packet and returns the first reply packet
// (an ERR as *rawErr).
func (r *rawClient) command(payload []byte) ([]byte, error) {
	r.seq = 0
	if err := r.writePacket(payload); err != nil {
		return nil, err
	}
	p, err := r.readPacket(60 * time.Second)
	if err != nil {
		return nil, err
	}
	if len(p) > 0 && p[0] == 0xff {
		return p, parseErr(p)
	}
	return p, nil
}

// prepare runs COM_STMT_PREPARE and reads the whole reply: the statement
// id and parameter count.
func (r *rawClient) prepare(q string) (uint32, int, error) {
	p, err := r.command(append([]byte{comStmtPrepareRaw}, q...))
	if err != nil {
		return 0, 0, err
	}
	if len(p) < 12 || p[0] != 0 {
		return 0, 0, fmt.Errorf("prepare reply %x", p[:min(len(p), 16)])
	}
	id := binary.LittleEndian.Uint32(p[1:])
	cols := int(binary.LittleEndian.Uint16(p[5:]))
	params := int(binary.LittleEndian.Uint16(p[7:]))
	// Parameter definitions then EOF, column definitions then EOF.
	for _, k := range []int{params, cols} {
		if k == 0 {
			continue
		}
		for i := 0; i <= k; i++ {
			if _, err := r.readPacket(60 * time.Second); err != nil {
				return 0, 0, fmt.Errorf("prepare: definition %d of %d: %w", i, k, err)
			}
		}
	}
	return id, params, nil
}

// ping sends COM_PING and wants its OK.
func (r *rawClient) ping(t *testing.T, after string) {
	t.Helper()
	p, err := r.command([]byte{comPingRaw})
	if err != nil || len(p) == 0 || p[0] != 0 {
		t.Fatalf("COM_PING after %s: %x %v (the connection must live on)", after, p, err)
	}
}

// TestBinaryProtocolLimits drives the binary protocol raw: a statement
// with 65535 placeholders (MySQL's maximum) prepares and executes, with
// types sent and then reused (vitess's NULL bitmap arithmetic overflowed
// there and panicked); 65536 get 1390; a syntax error in COM_STMT_PREPARE
// is 1064; malformed or misdirected COM_STMT_EXECUTE, COM_STMT_RESET,
// COM_STMT_SEND_LONG_DATA, COM_FIELD_LIST and COM_CHANGE_USER get MySQL
// errors (1835, 1243) or, for SEND_LONG_DATA, no reply, and the
// connection goes on; the server log shows no panic (startPetrel).
func TestBinaryProtocolLimits(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE bp", "CREATE TABLE bp.t (a INT PRIMARY KEY, b INT, c INT, d INT, e INT)")
	r := dialRaw(t, p.Port())
	if err := r.login("root", rootPassword, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := r.command(append([]byte{0x02}, "bp"...)); err != nil { // COM_INIT_DB
		t.Fatal(err)
	}

	// 13107 rows of 5 columns: 65535 placeholders.
	const rows, cols = 13107, 5
	q := "INSERT INTO t VALUES " + strings.TrimSuffix(strings.Repeat("(?,?,?,?,?),", rows), ",")
	id, n, err := r.prepare(q)
	if err != nil {
		t.Fatalf("prepare with 65535 placeholders: %v", err)
	}
	if n != rows*cols {
		t.Fatalf("parameter count %d, want %d", n, rows*cols)
	}
	execute := func(base int, types bool) {
		t.Helper()
		b := []byte{comStmtExecuteRaw}
		b = binary.LittleEndian.AppendUint32(b, id)
		b = append(b, 0)
		b = binary.LittleEndian.AppendUint32(b, 1)
		b = append(b, make([]byte, (n+7)/8)...)
		if types {
			b = append(b, 1)
			for range n {
				b = append(b, 0x03, 0) // MYSQL_TYPE_LONG
			}
		} else {
			b = append(b, 0)
		}
		for i := range n {
			v := int32(i % cols)
			if i%cols == 0 {
				v = int32(base + i/cols)
			}
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		reply, err := r.command(b)
		if err != nil {
			t.Fatalf("execute with 65535 parameters: %v", err)
		}
		if len(reply) < 2 || reply[0] != 0 {
			t.Fatalf("execute reply %x, want OK", reply[:min(len(reply), 16)])
		}
	}
	execute(0, true)
	execute(rows, false)
	if got := queryString(t, ctx, db, "SELECT CONCAT(COUNT(*), ',', SUM(a), ',', SUM(b + c + d + e)) FROM bp.t"); got != fmt.Sprintf("%d,%d,%d", 2*rows, (2*rows-1)*2*rows/2, 2*rows*10) {
		t.Errorf("rows written: %s", got)
	}

	// One placeholder more than MySQL allows.
	_, _, err = r.prepare("SELECT " + strings.TrimSuffix(strings.Repeat("?+", 65536), "+"))
	if rawErrNo(err) != 1390 {
		t.Errorf("prepare with 65536 placeholders: %v, want error 1390", err)
	}
	r.ping(t, "65536 placeholders")
	_, _, err = r.prepare("SELEC 1")
	if rawErrNo(err) != erParse {
		t.Errorf("prepare of a syntax error: %v, want error 1064", err)
	}

	small, _, err := r.prepare("SELECT ? + 1")
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	bad := []struct {
		what string
		pkt  []byte
		want uint16 // 0: no reply
	}{
		{"EXECUTE of an unknown statement", le.AppendUint32(append(le.AppendUint32([]byte{comStmtExecuteRaw}, 999), 0), 1), 1243},
		{"EXECUTE cut short", []byte{comStmtExecuteRaw, 1}, 1835},
		{"EXECUTE without its values", append(le.AppendUint32(append(le.AppendUint32([]byte{comStmtExecuteRaw}, small), 0), 1), 0, 1, 0x03, 0), 1835},
		{"EXECUTE with an unknown type", append(le.AppendUint32(append(le.AppendUint32([]byte{comStmtExecuteRaw}, small), 0), 1), 0, 1, 0x99, 0, 1, 2, 3, 4), 1835},
		{"EXECUTE with a string longer than the packet", append(le.AppendUint32(append(le.AppendUint32([]byte{comStmtExecuteRaw}, small), 0), 1), 0, 1, 0xfd, 0, 0xfc, 0xff, 0xff), 1835},
		{"RESET of an unknown statement", le.AppendUint32([]byte{comStmtResetRaw}, 999), 1243},
		{"RESET cut short", []byte{comStmtResetRaw, 1}, 1835},
		{"FIELD_LIST without a NUL", append([]byte{comFieldListRaw}, "t"...), 1835},
		{"SEND_LONG_DATA cut short", []byte{comStmtLongDataRaw, 1}, 0},
		{"SEND_LONG_DATA for an unknown statement", append(le.AppendUint32([]byte{comStmtLongDataRaw}, 999), 0, 0, 'x'), 0},
		{"SEND_LONG_DATA for a parameter past the last", append(le.AppendUint32([]byte{comStmtLongDataRaw}, small), 5, 0, 'x'), 0},
	}
	for _, b := range bad {
		if b.want == 0 {
			r.seq = 0
			if err := r.writePacket(b.pkt); err != nil {
				t.Fatal(err)
			}
		} else if _, err := r.command(b.pkt); rawErrNo(err) != b.want {
			t.Errorf("%s: %v, want error %d", b.what, err, b.want)
		}
		r.ping(t, b.what)
	}
	// COM_CHANGE_USER is not supported: an error, never a dropped
	// connection or a panic, whatever its bytes.
	for _, pkt := range [][]byte{{comChangeUserRaw}, append([]byte{comChangeUserRaw}, "root\x00\x14"...)} {
		if _, err := r.command(pkt); rawErrNo(err) == 0 {
			t.Errorf("COM_CHANGE_USER %x: %v, want an error", pkt, err)
		}
		r.ping(t, "COM_CHANGE_USER")
	}
	// The small statement still executes: 41 + 1.
	b := le.AppendUint32([]byte{comStmtExecuteRaw}, small)
	b = append(le.AppendUint32(append(b, 0), 1), 0, 1, 0x08, 0)
	b = le.AppendUint64(b, 41)
	reply, err := r.command(b)
	if err != nil || len(reply) == 0 || reply[0] != 1 {
		t.Errorf("EXECUTE of SELECT ? + 1 after the bad commands: %x %v, want a one-column result", reply, err)
	}
}
