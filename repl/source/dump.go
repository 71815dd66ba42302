package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"petrel/binlog"
	"petrel/semisync"
)

// EventWriter sends events to one replica. Flush pushes buffered events to
// the network. ackRequest asks a semi-sync replica to acknowledge the
// transaction ev ends.
type EventWriter interface {
	WriteEvent(ev []byte, ackRequest bool) error
	Flush() error
}

// dumper streams one replica's events.
type dumper struct {
	s   *Source
	w   EventWriter
	req Request
	sp  startPoint

	file     string
	r        *binlog.Reader
	skipping bool // inside a transaction the replica already has
	inTxn    bool // between BEGIN and XID
	lastSent time.Time
	semi     bool // semi-sync stream: transaction ends ask for acks
}

func (d *dumper) run(ctx context.Context) error {
	defer func() {
		if d.r != nil {
			d.r.Close()
		}
	}()
	sid := d.s.opts.ServerID
	if err := d.open(d.sp.file); err != nil {
		return err
	}
	if err := d.w.WriteEvent(binlog.ArtificialRotate(sid, d.sp.file, d.sp.pos), false); err != nil {
		return err
	}
	if d.sp.pos > 4 {
		// Starting mid-file: the replica still needs the file's format
		// description, sent with position 0 so it does not move.
		ev, _, err := d.r.Next()
		if err != nil {
			return fatalf("reading the format description of %s: %v", d.file, err)
		}
		if err := d.w.WriteEvent(binlog.WithoutInUse(binlog.WithNextPos(ev, 0)), false); err != nil {
			return err
		}
		if err := d.r.Seek(d.sp.pos); err != nil {
			return err
		}
	}
	d.lastSent = d.s.opts.Clock.Now()
	log := d.s.opts.Log
	for {
		changed := log.Changed()
		moved, err := d.sendAvailable()
		if err != nil {
			return err
		}
		if err := d.w.Flush(); err != nil {
			return err
		}
		if moved {
			continue
		}
		if err := d.idle(ctx, changed); err != nil {
			return err
		}
	}
}

// open starts reading a file from its beginning.
func (d *dumper) open(name string) error {
	if d.r != nil {
		d.r.Close()
		d.r = nil
	}
	p, ok := d.s.opts.Log.Path(name)
	if !ok {
		return fatalf("Could not open log file: %s is no longer in the binary log index (purged or reset)", name)
	}
	r, err := binlog.OpenReader(p)
	if err != nil {
		return fatalf("Could not open log file %s: %v", name, err)
	}
	d.r, d.file = r, name
	d.s.setReading(d.req.ConnID, name)
	return nil
}

// limit returns how far the current file may be read: its sendable end
// (binlog.Log.SendablePosition) if it is the log's current file, else all
// of it (-1). next names the file after it, if any.
func (d *dumper) limit() (limit int64, next string, err error) {
	end := d.s.opts.Log.SendablePosition()
	if end.File == d.file {
		return int64(end.Pos), "", nil
	}
	files := d.s.opts.Log.Files()
	for i, f := range files {
		if f.Name == d.file {
			if i+1 < len(files) {
				next = files[i+1].Name
			}
			return -1, next, nil
		}
	}
	return 0, "", fatalf("binary log %s was purged or reset while a replica was reading it", d.file)
}

// sendAvailable sends every durable event not yet sent. moved reports that
// the dump switched files (call again at once).
func (d *dumper) sendAvailable() (moved bool, err error) {
	limit, next, err := d.limit()
	if err != nil {
		return false, err
	}
	d.r.SetLimit(limit)
	for limit < 0 || int64(d.r.Pos()) < limit {
		ev, at, err := d.r.Next()
		if errors.Is(err, io.EOF) && limit < 0 {
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return false, fatalf("binary log %s ends inside an event at offset %d", d.file, at)
			}
			return false, fatalf("bogus data in log event: %v", err)
		}
		switch ev[4] {
		case binlog.RotateEvent:
			if err := d.send(ev); err != nil {
				return false, err
			}
			_, name, perr := binlog.ParseRotate(binlog.Body(ev))
			if perr != nil {
				return false, fatalf("bad ROTATE event in %s at %d: %v", d.file, at, perr)
			}
			return true, d.open(name)
		case binlog.GTIDEvent:
			d.skipping = false
			if d.sp.skip != nil {
				g, err := binlog.ParseGTID(binlog.Body(ev))
				if err != nil {
					return false, fatalf("bad GTID event in %s at %d: %v", d.file, at, err)
				}
				d.skipping = d.sp.skip.Contains(g.GTID)
			}
		case binlog.FormatDescriptionEvent:
			d.skipping = false
			ev = binlog.WithoutInUse(ev)
		case binlog.PreviousGTIDsEvent, binlog.StopEvent:
			d.skipping = false
		}
		if d.skipping {
			continue
		}
		if ev[4] == binlog.TransactionPayloadEvent && d.req.MariaDB {
			return false, fatalf("Cannot send the transaction at %s:%d to a MariaDB replica: it was written with binlog_transaction_compression=ON (a TRANSACTION_PAYLOAD event), which MariaDB cannot read. Replicate from a source whose log has binlog_transaction_compression=OFF for the transactions this replica needs", d.file, at)
		}
		if d.semi && d.endsTxn(ev) && d.s.semiEnabled() {
			end := semisync.Pos{File: d.file, Off: at + uint64(len(ev))}
			d.s.opts.Semi.Sent(d.req.ConnID, end)
			d.lastSent = d.s.opts.Clock.Now()
			if err := d.w.WriteEvent(ev, true); err != nil {
				return false, err
			}
			continue
		}
		if err := d.send(ev); err != nil {
			return false, err
		}
	}
	if limit < 0 {
		// The file ended without a ROTATE (the server restarted): go on in
		// the next file, telling the replica.
		if next == "" {
			return false, nil
		}
		if err := d.send(binlog.ArtificialRotate(d.s.opts.ServerID, next, 4)); err != nil {
			return false, err
		}
		return true, d.open(next)
	}
	return false, nil
}

func (d *dumper) send(ev []byte) error {
	d.lastSent = d.s.opts.Clock.Now()
	return d.w.WriteEvent(ev, false)
}

// endsTxn reports whether ev ends a transaction (XID, or a statement
// outside BEGIN ... COMMIT: DDL), tracking BEGIN.
func (d *dumper) endsTxn(ev []byte) bool {
	switch ev[4] {
	case binlog.XIDEvent, binlog.TransactionPayloadEvent:
		d.inTxn = false
		return true
	case binlog.QueryEvent:
		q, err := binlog.ParseQuery(binlog.Body(ev))
		if err != nil {
			return false
		}
		if q.Query == "BEGIN" {
			d.inTxn = true
			return false
		}
		return !d.inTxn
	}
	return false
}

// idle waits for the log to grow, sending heartbeats at the replica's
// period while nothing else is sent.
func (d *dumper) idle(ctx context.Context, changed <-chan struct{}) error {
	var hb <-chan time.Time
	if p := d.req.HeartbeatPeriod; p > 0 {
		wait := p - d.s.opts.Clock.Now().Sub(d.lastSent)
		if wait < 0 {
			wait = 0
		}
		hb = d.s.opts.Clock.After(wait)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-changed:
		return nil
	case <-hb:
		if err := d.send(binlog.Heartbeat(d.s.opts.ServerID, d.file, d.r.Pos())); err != nil {
			return err
		}
		if err := d.w.Flush(); err != nil {
			return fmt.Errorf("heartbeat: %w", err)
		}
		return nil
	}
}
