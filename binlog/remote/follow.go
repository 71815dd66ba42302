package remote

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"petrel/binlog"
)

// FollowOptions says what to read and when to stop, with mysqlbinlog's
// meanings.
type FollowOptions struct {
	// File is the file to start from. Required.
	File string
	// Start is the offset in File to start at (--start-position);
	// default 4, the first event.
	Start uint64
	// ToLastLog goes on through the files after File until the end of the
	// log as it was when the dump started (--to-last-log). Without it,
	// the dump stops at the end of File.
	ToLastLog bool
	// StopNever follows the log forever (--stop-never): until ctx ends or
	// the link fails.
	StopNever bool
}

// Event is one event of the stream.
type Event struct {
	// File and At locate the event in the server's log; At is 0 for
	// events the server made up for the stream (Artificial).
	File string
	At   uint64
	Data []byte
	// Artificial: a ROTATE the server sent to say where the stream is
	// (LOG_EVENT_ARTIFICIAL_F), or a HEARTBEAT.
	Artificial bool
}

// Type is the event's type code.
func (e Event) Type() byte { return e.Data[4] }

// Follow dumps the log and calls fn for each event, verified (checksum),
// in order, until the end FollowOptions sets, ctx ends (returns ctx's
// error), the link fails, or fn fails. It returns the position it
// reached: the end of the last event it passed to fn.
func Follow(ctx context.Context, s *Stream, o FollowOptions, fn func(Event) error) (binlog.Position, error) {
	if o.File == "" {
		return binlog.Position{}, errors.New("remote: a binlog file name is required (the first is listed by SHOW BINARY LOGS)")
	}
	if o.Start == 0 {
		o.Start = 4
	}
	pos := binlog.Position{File: o.File, Pos: o.Start}
	files, err := s.Files()
	if err != nil {
		return pos, err
	}
	var end binlog.Position // where a dump that does not follow forever stops
	found := false
	for _, f := range files {
		if f.Name == o.File {
			found = true
			end = binlog.Position{File: f.Name, Pos: f.Size}
		}
	}
	if !found {
		return pos, fmt.Errorf("remote: %s has no binlog file %q (SHOW BINARY LOGS)", s.opts.Addr(), o.File)
	}
	if o.ToLastLog && len(files) > 0 {
		last := files[len(files)-1]
		end = binlog.Position{File: last.Name, Pos: last.Size}
	}
	reached := func() bool {
		if o.StopNever {
			return false
		}
		return pos.File == end.File && pos.Pos >= end.Pos || fileNumber(pos.File) > fileNumber(end.File)
	}
	if err := s.Dump(o.File, o.Start, !o.StopNever); err != nil {
		return pos, err
	}
	for !reached() {
		ev, err := s.Next()
		if errors.Is(err, ErrEnd) && !o.StopNever {
			return pos, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return pos, ctx.Err()
			}
			return pos, err
		}
		h, err := binlog.ParseHeader(ev)
		if err != nil {
			return pos, fmt.Errorf("remote: event from %s after %s: %w", s.opts.Addr(), pos, err)
		}
		artificial := h.Flags&binlog.ArtificialFlag != 0
		switch {
		case h.Type == binlog.HeartbeatEvent:
			if err := fn(Event{File: pos.File, Data: ev, Artificial: true}); err != nil {
				return pos, err
			}
			continue
		case h.Type == binlog.RotateEvent && (artificial || h.NextPos == 0):
			rpos, name, err := binlog.ParseRotate(binlog.Body(ev))
			if err != nil {
				return pos, fmt.Errorf("remote: ROTATE from %s: %w", s.opts.Addr(), err)
			}
			pos = binlog.Position{File: name, Pos: rpos}
			if err := fn(Event{File: name, Data: ev, Artificial: true}); err != nil {
				return pos, err
			}
			continue
		}
		at := uint64(h.NextPos) - uint64(len(ev))
		if h.NextPos == 0 {
			// A FORMAT_DESCRIPTION sent out of place (the dump starts
			// mid-file): it is the file's first event.
			at = 4
		}
		if err := fn(Event{File: pos.File, At: at, Data: ev}); err != nil {
			return pos, err
		}
		if h.NextPos > 0 {
			pos.Pos = uint64(h.NextPos)
		}
		if h.Type == binlog.RotateEvent {
			// The file ended.
			if !o.ToLastLog && !o.StopNever {
				return pos, nil
			}
			rpos, name, err := binlog.ParseRotate(binlog.Body(ev))
			if err != nil {
				return pos, fmt.Errorf("remote: ROTATE from %s: %w", s.opts.Addr(), err)
			}
			pos = binlog.Position{File: name, Pos: rpos}
		}
	}
	return pos, nil
}

// fileNumber is the number in a binlog file name ("binlog.000012" -> 12).
func fileNumber(name string) int {
	n, err := strconv.Atoi(name[strings.LastIndexByte(name, '.')+1:])
	if err != nil {
		return -1
	}
	return n
}
