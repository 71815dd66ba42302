package replica

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/semisync"
)

const testSource = "3e11fa47-71ca-11e1-9e33-c80aa9429562"

func gtidEvent(t *testing.T, gno int64) []byte {
	t.Helper()
	sid, err := base.ParseSID(testSource)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte{0}
	b = append(b, sid[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(gno))
	b = append(b, 2)
	b = binary.LittleEndian.AppendUint64(b, 0)
	b = binary.LittleEndian.AppendUint64(b, 1)
	return binlog.Frame(binlog.GTIDEvent, 0, 1, 0, 100, b)
}

func queryEvent(q string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 1) // thread id
	b = binary.LittleEndian.AppendUint32(b, 0)    // exec time
	b = append(b, 0)                              // db length
	b = binary.LittleEndian.AppendUint16(b, 0)    // error code
	b = binary.LittleEndian.AppendUint16(b, 0)    // status vars length
	b = append(b, 0)                              // db terminator
	b = append(b, q...)
	return binlog.Frame(binlog.QueryEvent, 0, 1, 0, 200, b)
}

func xidEvent() []byte {
	return binlog.Frame(binlog.XIDEvent, 0, 1, 0, 300, binary.LittleEndian.AppendUint64(nil, 7))
}

func newTestReplica(t *testing.T) *Replica {
	t.Helper()
	rl, err := openRelay(t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rl.close() })
	return &Replica{opts: Options{Logger: slog.Default(), Clock: base.RealClock{}}, relay: rl}
}

func feed(r *Replica, evs ...[]byte) (*pendingTxn, error) {
	var txn *pendingTxn
	for _, ev := range evs {
		var err error
		if txn, err = r.receiveEvent(ev, txn); err != nil {
			return nil, err
		}
	}
	return txn, nil
}

// TestReceiverKeepsOnlyWholeGoodTransactions: the relay log gets a
// transaction only when it is complete and every event checked out; a
// checksum mismatch asks for a reconnect, an unknown event type stops the
// receiver, and neither leaves any part of its transaction behind.
func TestReceiverKeepsOnlyWholeGoodTransactions(t *testing.T) {
	r := newTestReplica(t)
	g := func(n int64) base.GTID {
		sid, _ := base.ParseSID(testSource)
		return base.GTID{SID: sid, GNO: n}
	}
	if _, err := feed(r, gtidEvent(t, 1), queryEvent("BEGIN"), xidEvent()); err != nil {
		t.Fatal(err)
	}
	if _, err := feed(r, gtidEvent(t, 2), queryEvent("CREATE TABLE x (a INT)")); err != nil {
		t.Fatal(err)
	}
	// A heartbeat between transactions counts and is not logged.
	if _, err := feed(r, binlog.Heartbeat(1, "binlog.000001", 400)); err != nil {
		t.Fatal(err)
	}
	if r.heartbeats != 1 || r.sourceFile != "binlog.000001" || r.sourcePos != 400 {
		t.Errorf("heartbeat: count %d, source %s:%d", r.heartbeats, r.sourceFile, r.sourcePos)
	}

	bad := queryEvent("BEGIN")
	bad[len(bad)-1] ^= 0xff
	_, err := feed(r, gtidEvent(t, 3), bad)
	var ie *ioError
	if !errors.As(err, &ie) || ie.errno != ErrEventChecksum || ie.fatal {
		t.Errorf("checksum mismatch: %v, want a non-fatal %d", err, ErrEventChecksum)
	}

	unknown := binlog.Frame(200, 0, 1, 0, 500, []byte("??"))
	_, err = feed(r, gtidEvent(t, 4), queryEvent("BEGIN"), unknown, xidEvent())
	if !errors.As(err, &ie) || ie.errno != ErrUnknownEvent || !ie.fatal {
		t.Errorf("unknown event: %v, want a fatal %d", err, ErrUnknownEvent)
	}

	ignorable := binlog.Frame(200, ignorableFlag, 1, 0, 500, []byte("??"))
	if _, err := feed(r, gtidEvent(t, 5), queryEvent("BEGIN"), ignorable, xidEvent()); err != nil {
		t.Errorf("ignorable unknown event: %v", err)
	}

	// A transaction cut short by a dropped link never reaches the relay.
	if txn, err := feed(r, gtidEvent(t, 6), queryEvent("BEGIN")); err != nil || txn == nil {
		t.Fatalf("partial: %v %v", txn, err)
	}
	got := r.relay.retrievedSet()
	for _, n := range []int64{1, 2, 5} {
		if !got.Contains(g(n)) {
			t.Errorf("retrieved %s lacks GNO %d", got, n)
		}
	}
	for _, n := range []int64{3, 4, 6} {
		if got.Contains(g(n)) {
			t.Errorf("retrieved %s has GNO %d, which was bad or incomplete", got, n)
		}
	}
	// Closed, the relay log (preallocated while written) is cut to its end
	// and reads back as exactly the good transactions.
	name, end := r.relay.current()
	r.relay.close()
	res, err := binlog.ScanFile(r.relay.path(name), false)
	if err != nil || res.Torn || len(res.Transactions) != 3 || res.Size != end {
		t.Fatalf("relay file: %d transactions, torn %v, size %d (end %d), err %v", len(res.Transactions), res.Torn, res.Size, end, err)
	}

	// Reopening (a restart) keeps the retrieved set.
	rl, err := openRelay(r.relay.dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.close()
	if !rl.retrievedSet().Equal(got) {
		t.Errorf("after reopen: retrieved %s, want %s", rl.retrievedSet(), got)
	}
}

// TestAckPoint: the replica acknowledges a transaction once it is written
// to the relay log (RELAY_WRITE: the relay log is still unsynced when the
// ack leaves) or once it is fsynced there (RELAY_SYNC).
func TestAckPoint(t *testing.T) {
	for _, mode := range []string{AckRelayWrite, AckRelaySync} {
		t.Run(mode, func(t *testing.T) {
			r := newTestReplica(t)
			s := DefaultSettings()
			s.AckAfter = mode
			r.Configure(s)
			r.sourceFile = "binlog.000001"         // as a ROTATE would set it
			if err := r.relay.sync(); err != nil { // the magic
				t.Fatal(err)
			}
			source, replica := net.Pipe()
			defer source.Close()
			br := bufio.NewReader(replica)
			pc := &packetConn{conn: replica, br: br, timeout: 5 * time.Second}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { _, err := r.stream(ctx, pc, br, true, 5*time.Second); done <- err }()

			// One transaction, its last event asking for an ack, in one burst.
			var burst []byte
			for i, ev := range [][]byte{gtidEvent(t, 1), queryEvent("BEGIN"), xidEvent()} {
				flag := byte(0)
				if i == 2 {
					flag = semisync.AckRequest
				}
				payload := append([]byte{0x00, semisync.Magic, flag}, ev...)
				burst = append(burst, byte(len(payload)), byte(len(payload)>>8), byte(len(payload)>>16), byte(i+1))
				burst = append(burst, payload...)
			}
			source.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := source.Write(burst); err != nil {
				t.Fatal(err)
			}
			hdr := make([]byte, 4)
			if _, err := io.ReadFull(source, hdr); err != nil {
				t.Fatal(err)
			}
			ack := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
			if _, err := io.ReadFull(source, ack); err != nil {
				t.Fatal(err)
			}
			// What the relay log holds at the moment the ack arrived.
			r.relay.mu.Lock()
			dirty, syncs := r.relay.dirty, r.relay.syncs
			r.relay.mu.Unlock()
			p, err := semisync.ParseAck(ack)
			if err != nil || p.Off != 300 || p.File != "binlog.000001" {
				t.Fatalf("ack %v (err %v), want the XID event's end 300", p, err)
			}
			if name, end := r.relay.current(); end <= 4 {
				t.Fatalf("acknowledged before the relay log %s held the transaction (end %d)", name, end)
			}
			switch mode {
			case AckRelayWrite:
				if !dirty || syncs != 1 {
					t.Fatalf("RELAY_WRITE: at the ack the relay log was synced (dirty %v, syncs %d)", dirty, syncs)
				}
			case AckRelaySync:
				if dirty || syncs != 2 {
					t.Fatalf("RELAY_SYNC: ack before the relay log's fsync (dirty %v, syncs %d)", dirty, syncs)
				}
			}
			cancel()
			source.Close()
			<-done
		})
	}
}
