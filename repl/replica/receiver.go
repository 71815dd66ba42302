package replica

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/internal/tcptune"
	"petrel/semisync"
)

// ioError is a receiver failure with its MySQL error number; fatal ones
// stop the receiver instead of reconnecting.
type ioError struct {
	errno int
	msg   string
	fatal bool
}

func (e *ioError) Error() string { return e.msg }

func ioErrorf(errno int, fatal bool, format string, args ...any) *ioError {
	return &ioError{errno: errno, msg: fmt.Sprintf(format, args...), fatal: fatal}
}

// runReceiver is the IO thread: connect, stream, and on any failure wait
// SOURCE_CONNECT_RETRY and reconnect, up to SOURCE_RETRY_COUNT times in a
// row. It resumes from executed ∪ retrieved GTIDs, so nothing is fetched
// twice or skipped.
func (r *Replica) runReceiver(ctx context.Context, cfg Config) {
	defer r.threadEnded(true)
	if cfg.AutoFailover {
		r.runFailoverReceiver(ctx, cfg)
		return
	}
	failures := 0
	for {
		progressed, err := r.receiveOnce(ctx, cfg)
		if ctx.Err() != nil {
			return
		}
		var ie *ioError
		if !errors.As(err, &ie) {
			ie = ioErrorf(ErrNetRead, false, "%v", err)
		}
		r.setIOError(ie.errno, "%s", ie.msg)
		r.mu.Lock()
		r.ioConnected = false
		r.mu.Unlock()
		if ie.fatal {
			r.opts.Logger.Error("replica: receiver stopped", "errno", ie.errno, "error", ie.msg)
			return
		}
		if progressed {
			failures = 0
		}
		failures++
		if failures > cfg.RetryCount {
			r.opts.Logger.Error("replica: receiver gave up after retries", "retries", cfg.RetryCount, "error", ie.msg)
			return
		}
		r.opts.Logger.Warn("replica: link to source failed; reconnecting", "errno", ie.errno, "error", ie.msg, "retry_in", cfg.ConnectRetry, "attempt", failures)
		r.setIOState(fmt.Sprintf("Waiting to reconnect after a failed attempt (%d of %d)", failures, cfg.RetryCount))
		select {
		case <-ctx.Done():
			return
		case <-r.opts.Clock.After(cfg.ConnectRetry):
		}
	}
}

// receiveOnce runs one connection. progressed reports that it received
// something (the retry counter restarts).
func (r *Replica) receiveOnce(ctx context.Context, cfg Config) (progressed bool, err error) {
	settings := r.Settings()
	timeout := settings.NetTimeout
	r.setIOState("Connecting to source")
	cctx, cancel := context.WithTimeout(ctx, timeout)
	conn, link, err := r.dialSource(cctx, cfg, &mysql.ConnParams{
		Host: cfg.Host, Port: cfg.Port, Uname: cfg.User, Pass: cfg.Password,
		ConnectTimeoutMs: uint64(timeout / time.Millisecond),
		SslMode:          cfg.SslMode(), SslCa: cfg.SSLCA, SslCert: cfg.SSLCert, SslKey: cfg.SSLKey,
		// The host as written: vitess would prefix an IP address with
		// "IP:", which no certificate names.
		ServerName: cfg.Host,
	}, timeout)
	cancel()
	if err != nil {
		var se *mysql.SQLError
		if errors.As(err, &se) && se.Number() == mysqlerr.ErAccessDenied {
			return false, ioErrorf(ErrSourceAccess, false, "error connecting to source '%s@%s:%d' - retry-time: %d retries: %d message: %s", cfg.User, cfg.Host, cfg.Port, int(cfg.ConnectRetry.Seconds()), cfg.RetryCount, se.Message)
		}
		return false, ioErrorf(ErrSourceConnect, false, "error connecting to source '%s@%s:%d' - retry-time: %d retries: %d message: %v", cfg.User, cfg.Host, cfg.Port, int(cfg.ConnectRetry.Seconds()), cfg.RetryCount, err)
	}
	defer conn.Close()
	sock := conn.Conn
	if link != nil {
		defer link.Close()
		sock = link.src
	}
	// The connection dies with the thread.
	stop := context.AfterFunc(ctx, func() { conn.Conn.Close() })
	defer stop()
	conn.Conn.SetDeadline(time.Now().Add(timeout))
	if settings.TCP != (tcptune.Options{}) {
		tuneSocket(r.opts.Logger, sock, settings.TCP)
	}

	hb := cfg.Heartbeat(timeout)
	setup := []string{
		"SET @source_binlog_checksum = 'CRC32', @master_binlog_checksum = 'CRC32'",
		fmt.Sprintf("SET @source_heartbeat_period = %d, @master_heartbeat_period = %d", hb.Nanoseconds(), hb.Nanoseconds()),
		fmt.Sprintf("SET @replica_uuid = '%s', @slave_uuid = '%s'", r.opts.ServerUUID, r.opts.ServerUUID),
	}
	semiOn := settings.SemiSync
	if semiOn {
		setup = append(setup, "SET @rpl_semi_sync_replica = 1, @rpl_semi_sync_slave = 1")
	}
	for _, q := range setup {
		if _, err := conn.ExecuteFetch(q, 0, false); err != nil {
			return false, ioErrorf(ErrNetRead, false, "source refused %q: %v", q, err)
		}
	}
	res, err := conn.ExecuteFetch("SELECT UNIX_TIMESTAMP(), @@GLOBAL.server_id, @@GLOBAL.server_uuid", 1, false)
	if err != nil || len(res.Rows) != 1 {
		return false, ioErrorf(ErrNetRead, false, "reading the source's identity: %v", err)
	}
	srcTS, _ := strconv.ParseFloat(res.Rows[0][0].ToString(), 64)
	srcID, _ := strconv.ParseUint(res.Rows[0][1].ToString(), 10, 32)
	srcUUID := res.Rows[0][2].ToString()
	if uint32(srcID) == r.opts.ServerID {
		return false, ioErrorf(ErrEqualServerIDs, true, "Fatal error: The replica I/O thread stops because source and replica have equal MySQL server ids; these ids must be different for replication to work (or the --replicate-same-server-id option must be used on replica but this does not always make sense; please check the manual before using it).")
	}
	if r.opts.Sink != nil {
		if err := r.opts.Sink.Connected(srcUUID); err != nil {
			return false, sinkError(err)
		}
	}
	r.mu.Lock()
	r.sourceID, r.sourceUUID = uint32(srcID), srcUUID
	r.clockDiff = r.opts.Clock.Now().Sub(time.Unix(0, int64(srcTS*1e9))).Truncate(time.Second)
	r.heartbeat = hb
	r.mu.Unlock()

	raw := conn.Conn
	br := bufio.NewReaderSize(raw, 256<<10)
	pc := &packetConn{conn: raw, br: br, timeout: timeout}
	r.setIOState("Registering replica on source")
	var host string
	var port uint16
	if r.opts.ReportAddr != nil {
		host, port = r.opts.ReportAddr()
	}
	if err := pc.register(r.opts.ServerID, host, port); err != nil {
		return false, err
	}
	var from string
	if cfg.AutoPosition || r.opts.Sink != nil {
		want := r.opts.Log.Executed()
		want.AddSet(r.relay.retrievedSet())
		if err := pc.dumpGTID(r.opts.ServerID, want); err != nil {
			return false, err
		}
		from = "after " + want.String()
	} else {
		// The relay log ends with whole transactions at this position:
		// nothing before it is missing, nothing after it is held.
		p := r.relay.position()
		if err := pc.dumpFile(r.opts.ServerID, p.File, max(p.Pos, 4)); err != nil {
			return false, err
		}
		from = fmt.Sprintf("at %s:%d", p.File, max(p.Pos, 4))
	}
	r.mu.Lock()
	r.ioConnected = true
	r.ioErr = threadError{} // the link works again
	r.connects++
	r.lastHeard = r.opts.Clock.Now()
	r.mu.Unlock()
	r.failoverLinkUp()
	r.setIOState("Waiting for source to send event")
	r.opts.Logger.Info("replica: streaming from source", "source", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)), "source_server_id", srcID, "requested", from)

	// The relay log is synced in the background while the link is up
	// (and once more as it ends); a failed sync ends the link, fatally.
	syncCtx, stopSyncer := context.WithCancel(ctx)
	syncErr := make(chan error, 1)
	go func() {
		err := r.relay.runSyncer(syncCtx, r.opts.Clock, relaySyncInterval)
		if err != nil {
			raw.Close() // wake the read below
		}
		syncErr <- err
	}()
	defer func() {
		r.mu.Lock()
		r.semiActive = false
		r.mu.Unlock()
	}()
	progressed, err = r.stream(ctx, pc, br, semiOn, timeout)
	stopSyncer()
	if serr := <-syncErr; serr != nil {
		return progressed, ioErrorf(ErrRelayLogFailure, true, "relay log sync failed: %v", serr)
	}
	return progressed, err
}

// relaySyncInterval bounds how long a written relay log transaction waits
// for its fdatasync when acknowledgements do not wait for it
// (rpl_semi_sync_replica_ack_after=RELAY_WRITE).
const relaySyncInterval = 10 * time.Millisecond

// stream receives events until the link fails: whole transactions go to
// the relay log, and at the end of each burst the last acknowledgement
// asked for is sent, once the relay log holds the transaction as
// rpl_semi_sync_replica_ack_after says (written, or synced).
func (r *Replica) stream(ctx context.Context, pc *packetConn, br *bufio.Reader, semiOn bool, timeout time.Duration) (progressed bool, err error) {
	raw := pc.conn
	var txn *pendingTxn
	var ackPending *semisync.Pos
	for {
		raw.SetReadDeadline(time.Now().Add(timeout))
		payload, err := pc.read()
		if err != nil {
			if ctx.Err() != nil {
				return progressed, ctx.Err()
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return progressed, ioErrorf(ErrNetRead, false, "no event or heartbeat from the source for %s (replica_net_timeout): reconnecting", timeout)
			}
			if ie := (*ioError)(nil); errors.As(err, &ie) {
				return progressed, ie
			}
			return progressed, ioErrorf(ErrNetRead, false, "lost the link to the source: %v", err)
		}
		ev := payload[1:]
		ackReq := false
		if semiOn && len(ev) >= 2 && ev[0] == semisync.Magic {
			// Semi-sync header: magic, ack-request flag.
			ackReq = ev[1]&semisync.AckRequest != 0
			ev = ev[2:]
			r.mu.Lock()
			r.semiActive = true
			r.mu.Unlock()
		}
		progressed = true
		txn, err = r.receiveEvent(ev, txn)
		if err != nil {
			return progressed, err
		}
		if ackReq && len(ev) >= binlog.HeaderLen {
			r.mu.Lock()
			ackPending = &semisync.Pos{File: r.sourceFile, Off: uint64(binary.LittleEndian.Uint32(ev[13:]))}
			r.mu.Unlock()
		}
		if br.Buffered() == 0 {
			// A burst ended: one acknowledgement for the last transaction
			// asked for (acks are cumulative). With RELAY_SYNC, after one
			// fsync for everything the burst brought; with RELAY_WRITE at
			// once (the background syncer follows within 10 ms).
			burst := r.Settings()
			r.relay.syncEvery.Store(burst.SyncRelayLog)
			if r.opts.Sink != nil {
				if err := r.opts.Sink.Sync(burst.AckAfter == AckRelaySync); err != nil {
					return progressed, ioErrorf(ErrRelayLogFailure, true, "relay: binary log sync failed: %v", err)
				}
			} else if burst.AckAfter == AckRelaySync {
				if err := r.relay.sync(); err != nil {
					return progressed, ioErrorf(ErrRelayLogFailure, true, "relay log sync failed: %v", err)
				}
			}
			if ackPending != nil {
				if err := pc.write(semisync.EncodeAck(*ackPending)); err != nil {
					return progressed, ioErrorf(ErrNetRead, false, "sending a semi-sync acknowledgement: %v", err)
				}
				r.mu.Lock()
				r.acksSent++
				r.mu.Unlock()
				ackPending = nil
			}
		}
	}
}

// pendingTxn collects one transaction's events until it is whole; only
// whole transactions reach the relay log.
type pendingTxn struct {
	gtid   base.GTID
	orig   time.Time
	events [][]byte
	inTxn  bool // BEGIN seen
}

// knownEvents are the event types the applier understands; others must
// carry the ignorable flag.
var knownEvents = map[byte]bool{
	binlog.QueryEvent: true, binlog.StopEvent: true, binlog.RotateEvent: true,
	binlog.FormatDescriptionEvent: true, binlog.XIDEvent: true, binlog.TableMapEvent: true,
	binlog.HeartbeatEvent: true, binlog.RowsQueryEvent: true,
	binlog.WriteRowsEventV2: true, binlog.UpdateRowsEventV2: true, binlog.DeleteRowsEventV2: true,
	binlog.GTIDEvent: true, binlog.AnonymousGTIDEvent: true, binlog.PreviousGTIDsEvent: true,
	binlog.TransactionPayloadEvent: true, // kept compressed in the relay log
}

const ignorableFlag = 0x80

// receiveEvent checks one event and files it: heartbeats update liveness,
// transaction events are gathered, whole transactions go to the relay log.
func (r *Replica) receiveEvent(ev []byte, txn *pendingTxn) (*pendingTxn, error) {
	now := r.opts.Clock.Now()
	h, err := binlog.ParseHeader(ev)
	if err != nil {
		if len(ev) >= binlog.HeaderLen && int(binary.LittleEndian.Uint32(ev[9:])) == len(ev) {
			return nil, ioErrorf(ErrEventChecksum, false, "Replication event checksum verification failed while reading from network (event type %d, source position %d)", ev[4], binary.LittleEndian.Uint32(ev[13:]))
		}
		return nil, ioErrorf(ErrEventChecksum, false, "malformed event from the source: %v", err)
	}
	r.mu.Lock()
	r.lastHeard = now
	if h.NextPos > 0 && h.Flags&binlog.ArtificialFlag == 0 {
		r.sourcePos = uint64(h.NextPos)
	}
	r.mu.Unlock()
	if !knownEvents[h.Type] {
		if h.Flags&ignorableFlag != 0 {
			return txn, nil
		}
		return nil, ioErrorf(ErrUnknownEvent, true, "the source sent event type %d, which this replica does not understand, at source position %d; the partial transaction was discarded", h.Type, h.NextPos)
	}
	switch h.Type {
	case binlog.HeartbeatEvent:
		r.mu.Lock()
		r.heartbeats++
		r.sourceFile = string(binlog.Body(ev))
		r.sourcePos = uint64(h.NextPos)
		r.mu.Unlock()
		return txn, nil
	case binlog.RotateEvent:
		pos, name, err := binlog.ParseRotate(binlog.Body(ev))
		if err != nil {
			return nil, ioErrorf(ErrEventChecksum, false, "bad ROTATE event: %v", err)
		}
		r.mu.Lock()
		r.sourceFile, r.sourcePos = name, pos
		r.mu.Unlock()
		// Kept in the relay log: it names the source's file (position.go).
		return nil, r.keepHeader(ev)
	case binlog.FormatDescriptionEvent, binlog.PreviousGTIDsEvent, binlog.StopEvent:
		if txn != nil {
			// The stream restarted mid-transaction: drop the partial one.
			txn = nil
		}
		return nil, r.keepHeader(ev)
	case binlog.GTIDEvent:
		g, err := binlog.ParseGTID(binlog.Body(ev))
		if err != nil {
			return nil, ioErrorf(ErrEventChecksum, false, "bad GTID event: %v", err)
		}
		return &pendingTxn{gtid: g.GTID, orig: g.OrigTime, events: [][]byte{ev}}, nil
	}
	if txn == nil {
		return nil, nil // not in a GTID transaction (anonymous): ignored
	}
	txn.events = append(txn.events, ev)
	done := false
	switch h.Type {
	case binlog.QueryEvent:
		q, err := binlog.ParseQuery(binlog.Body(ev))
		if err != nil {
			return nil, ioErrorf(ErrEventChecksum, false, "bad QUERY event: %v", err)
		}
		if q.Query == "BEGIN" {
			txn.inTxn = true
		} else if !txn.inTxn {
			done = true
		}
	case binlog.XIDEvent, binlog.TransactionPayloadEvent:
		done = true
	}
	if !done {
		return txn, nil
	}
	if err := r.keepTxn(txn.events, txn.gtid); err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.receivedTxns++
	r.lastRecvOrig = txn.orig
	r.mu.Unlock()
	return nil, nil
}

// packetConn speaks the replication commands on the raw connection once
// vitess has authenticated it.
type packetConn struct {
	conn    net.Conn
	br      *bufio.Reader
	seq     byte
	timeout time.Duration // for each write
}

func (p *packetConn) write(payload []byte) error {
	p.conn.SetWriteDeadline(time.Now().Add(p.timeout))
	p.seq = 0
	hdr := []byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), p.seq}
	p.seq++
	_, err := p.conn.Write(append(hdr, payload...))
	return err
}

// read returns one packet's payload; an ERR packet becomes an ioError.
func (p *packetConn) read() ([]byte, error) {
	var out []byte
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(p.br, hdr[:]); err != nil {
			return nil, err
		}
		n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
		start := len(out)
		out = append(out, make([]byte, n)...)
		if _, err := io.ReadFull(p.br, out[start:]); err != nil {
			return nil, err
		}
		if n < 1<<24-1 {
			break
		}
	}
	if len(out) == 0 {
		return nil, ioErrorf(ErrNetRead, false, "empty packet from the source")
	}
	switch out[0] {
	case 0xff:
		var se *mysql.SQLError
		if !errors.As(mysql.ParseErrorPacket(out), &se) {
			return nil, ioErrorf(ErrNetRead, false, "malformed error packet from the source")
		}
		if se.Number() == mysqlerr.ErMasterFatalReadingLog {
			return nil, ioErrorf(ErrSourceFatal, true, "Got fatal error %d from source when reading data from binary log: '%s'", se.Number(), se.Message)
		}
		if se.Number() == mysqlerr.ErSpecificAccessDenied || se.Number() == mysqlerr.ErAccessDenied {
			return nil, ioErrorf(ErrSourceAccess, false, "the source refused replication for this user: %s", se.Message)
		}
		return nil, ioErrorf(ErrNetRead, false, "source error %d: %s", se.Number(), se.Message)
	case 0xfe:
		if len(out) < 9 {
			return nil, ioErrorf(ErrNetRead, false, "the source ended the binlog stream")
		}
	}
	return out, nil
}

// register sends COM_REGISTER_SLAVE: the host and port the replica
// reports (SHOW REPLICAS on the source lists them: how `petrel proxy`
// discovers replicas).
func (p *packetConn) register(serverID uint32, host string, port uint16) error {
	b := []byte{0x15}
	b = binary.LittleEndian.AppendUint32(b, serverID)
	host = host[:min(len(host), 255)]
	b = append(b, byte(len(host)))
	b = append(b, host...) // report_host
	b = append(b, 0)       // report_user
	b = append(b, 0)       // report_password
	b = binary.LittleEndian.AppendUint16(b, port)
	b = binary.LittleEndian.AppendUint32(b, 0) // rank
	b = binary.LittleEndian.AppendUint32(b, 0) // source id
	if err := p.write(b); err != nil {
		return ioErrorf(ErrNetRead, false, "registering on the source: %v", err)
	}
	if _, err := p.read(); err != nil {
		return err
	}
	return nil
}

// dumpFile sends COM_BINLOG_DUMP for everything from file:pos (file ""
// is the source's first file).
func (p *packetConn) dumpFile(serverID uint32, file string, pos uint64) error {
	b := []byte{0x12}
	b = binary.LittleEndian.AppendUint32(b, uint32(pos))
	b = binary.LittleEndian.AppendUint16(b, 0) // flags
	b = binary.LittleEndian.AppendUint32(b, serverID)
	b = append(b, file...)
	if err := p.write(b); err != nil {
		return ioErrorf(ErrNetRead, false, "requesting the binlog stream: %v", err)
	}
	return nil
}

// dumpGTID sends COM_BINLOG_DUMP_GTID for everything after have.
func (p *packetConn) dumpGTID(serverID uint32, have *base.GTIDSet) error {
	data := have.Encode()
	b := []byte{0x1e}
	b = binary.LittleEndian.AppendUint16(b, 0x04) // BINLOG_THROUGH_GTID
	b = binary.LittleEndian.AppendUint32(b, serverID)
	b = binary.LittleEndian.AppendUint32(b, 0) // no file name
	b = binary.LittleEndian.AppendUint64(b, 4)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	if err := p.write(b); err != nil {
		return ioErrorf(ErrNetRead, false, "requesting the binlog stream: %v", err)
	}
	return nil
}

// tuneSocket applies the replication socket options; a failure costs the
// link its tuning, not the link, and is logged.
func tuneSocket(log *slog.Logger, c net.Conn, o tcptune.Options) {
	res, err := tcptune.Apply(c, o)
	switch {
	case err != nil:
		log.Warn("replica: cannot set the replication socket's TCP options", "error", err)
	case res.Fallback:
		log.Warn("replica: TCP congestion control not set on the replication socket", "wanted", o.CongestionControl, "using", res.CongestionControl, "error", res.Reason)
	}
}
