package e2e

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	vmysql "github.com/dolthub/vitess/go/mysql"

	"petrel/internal/base"
	"petrel/semisync"
)

// fakeReplica is a hand-driven semi-sync replica: it authenticates with
// the vitess client, then speaks the replication commands itself so a
// test can send acknowledgements a real replica never would.
type fakeReplica struct {
	c  *vmysql.Conn
	br *bufio.Reader
}

func dialFakeReplica(t *testing.T, port int, serverID uint32, after string) *fakeReplica {
	t.Helper()
	ctx := testContext(t, 30*time.Second)
	c, err := vmysql.Connect(ctx, &vmysql.ConnParams{Host: "127.0.0.1", Port: port, Uname: replUser, Pass: replPassword})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(c.Close)
	for _, q := range []string{"SET @source_binlog_checksum = 'CRC32'", "SET @rpl_semi_sync_replica = 1"} {
		if _, err := c.ExecuteFetch(q, 0, false); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	f := &fakeReplica{c: c, br: bufio.NewReader(c.Conn)}
	reg := []byte{0x15}
	reg = binary.LittleEndian.AppendUint32(reg, serverID)
	reg = append(reg, 0, 0, 0, 0, 0)
	reg = append(reg, make([]byte, 8)...)
	f.write(t, reg)
	if p := f.read(t); p[0] != 0 {
		t.Fatalf("register: %x", p)
	}
	set, err := base.ParseGTIDSet(after)
	if err != nil {
		t.Fatal(err)
	}
	data := set.Encode()
	d := []byte{0x1e}
	d = binary.LittleEndian.AppendUint16(d, 4)
	d = binary.LittleEndian.AppendUint32(d, serverID)
	d = binary.LittleEndian.AppendUint32(d, 0)
	d = binary.LittleEndian.AppendUint64(d, 4)
	d = binary.LittleEndian.AppendUint32(d, uint32(len(data)))
	d = append(d, data...)
	f.write(t, d)
	return f
}

func (f *fakeReplica) write(t *testing.T, payload []byte) {
	t.Helper()
	hdr := []byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), 0}
	if _, err := f.c.Conn.Write(append(hdr, payload...)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func (f *fakeReplica) read(t *testing.T) []byte {
	t.Helper()
	p, err := f.readErr(5 * time.Second)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return p
}

func (f *fakeReplica) readErr(d time.Duration) ([]byte, error) {
	f.c.Conn.SetReadDeadline(time.Now().Add(d))
	var hdr [4]byte
	if _, err := io.ReadFull(f.br, hdr[:]); err != nil {
		return nil, err
	}
	b := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	_, err := io.ReadFull(f.br, b)
	return b, err
}

// disconnected reports whether the source closed the stream (reading past
// any events still in flight).
func (f *fakeReplica) disconnected() bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := f.readErr(time.Until(deadline)); err != nil {
			var ne net.Error
			return !(errors.As(err, &ne) && ne.Timeout())
		}
	}
	return false
}

// TestSemiSyncBadAcks: a replica acknowledging a position it was never
// sent, or sending a malformed acknowledgement, is disconnected with a
// logged error and never counted: the waiting commit is not released by
// it.
func TestSemiSyncBadAcks(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	src := startReplicaServer(t, ctx, 1, map[string]string{"rpl_semi_sync_source_enabled": "ON", "rpl_semi_sync_source_timeout": "1500"})
	sdb := rootDB(t, src, "")
	createReplUserSemi(t, ctx, sdb)
	executed := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed")

	for i, ack := range [][]byte{
		semisync.EncodeAck(semisync.Pos{File: "binlog.000001", Off: 1 << 40}), // beyond what was sent
		semisync.EncodeAck(semisync.Pos{File: "binlog.999999", Off: 4}),       // a file never sent
		{semisync.Magic, 1, 2},              // truncated
		{0x00, 1, 2, 3, 4, 5, 6, 7, 8, 'b'}, // wrong magic
	} {
		f := dialFakeReplica(t, src.Port(), uint32(100+i), executed)
		waitSemiClients(t, ctx, sdb, 1)
		yes := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx")
		f.write(t, ack)
		if !f.disconnected() {
			t.Errorf("ack %d (%x): the source kept the replica connected", i, ack)
		}
		waitSemiClients(t, ctx, sdb, 0)
		if got := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx"); got != yes {
			t.Errorf("ack %d: yes_tx %d -> %d", i, yes, got)
		}
	}
	if n := strings.Count(src.Log(), "bad acknowledgement"); n != 4 {
		t.Errorf("source logged %d bad acknowledgements, want 4", n)
	}
	// The source still works, and with no replica it falls back by itself.
	mustExec(t, ctx, sdb, "CREATE DATABASE still_ok")
	if s := globalStatus(t, ctx, sdb, "Rpl_semi_sync_source_yes_tx"); s != 0 {
		t.Errorf("yes_tx = %d, want 0: no acknowledgement was ever valid", s)
	}
}
