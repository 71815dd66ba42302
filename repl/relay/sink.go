package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/internal/fsutil"
)

// sourceFile names the file, in the datadir, holding the server_uuid of
// the source the relay follows (written at the first connection, removed
// by RESET REPLICA).
const sourceFile = "relay-source"

// Options configures a Sink.
type Options struct {
	// Log is the relay's binary log. Required.
	Log *binlog.Log
	// Dir holds the followed source's identity (the datadir). Required.
	Dir string
	// Logger; default slog.Default().
	Logger *slog.Logger
	// ApplyQuery, when set, is handed each statement event of a relayed
	// transaction (BEGIN excepted) once the transaction is in the log:
	// the node applies the account statements among them to the relay's
	// own accounts, as MySQL's blackhole relay does, so that the accounts
	// of the primary (the replication account among them) work on the
	// relay too. Its error is logged, not returned: the transaction is
	// relayed whatever becomes of it here.
	ApplyQuery func(db, query string, g base.GTID) error
}

// Sink keeps what the receiver gets in the relay's binary log. It is the
// receiver's sink in place of the relay log (repl/replica.Sink). Safe for
// concurrent use (the receiver calls it from one goroutine; RESET REPLICA
// from another).
type Sink struct {
	opts Options

	mu     sync.Mutex
	source string // server_uuid followed, "" for none yet
	clock  clockMap
}

// New reads the followed source's identity.
func New(o Options) (*Sink, error) {
	if o.Log == nil || o.Dir == "" {
		return nil, errors.New("relay: Options.Log and Options.Dir are required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Sink{opts: o}
	b, err := os.ReadFile(filepath.Join(o.Dir, sourceFile))
	switch {
	case err == nil:
		s.source = strings.TrimSpace(string(b))
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("relay: %w", err)
	}
	return s, nil
}

// Connected checks the source's server_uuid at each connection and
// remembers the first one, durably.
func (s *Sink) Connected(uuid string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := CheckSource(s.source, uuid); err != nil {
		return err
	}
	if s.source == "" {
		if err := fsutil.WriteFileAtomic(filepath.Join(s.opts.Dir, sourceFile), []byte(uuid+"\n"), 0o640); err != nil {
			return fmt.Errorf("relay: remembering the source: %w", err)
		}
		s.source = uuid
		s.opts.Logger.Info("relay: following source", "source_uuid", uuid)
	}
	s.clock.sourceFile()
	return nil
}

// Header sees an event outside transactions: a FORMAT_DESCRIPTION or
// ROTATE starts a source file (or a new dump); the relay's own files have
// their own headers, so nothing is written.
func (s *Sink) Header(ev []byte) error {
	if len(ev) > 4 && (ev[4] == binlog.FormatDescriptionEvent || ev[4] == binlog.RotateEvent) {
		s.mu.Lock()
		s.clock.sourceFile()
		s.mu.Unlock()
	}
	return nil
}

// Txn writes one whole received transaction (GTID event first, every
// event's checksum verified by the receiver), or refuses it (CheckFollows)
// writing nothing.
func (s *Sink) Txn(events [][]byte, g base.GTID) error {
	info, err := binlog.ParseGTID(binlog.Body(events[0]))
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := CheckFollows(s.opts.Log.Logged(), g); err != nil {
		return err
	}
	_, err = s.opts.Log.AppendRelayed(binlog.Relayed{Events: events, GTID: g,
		LastCommitted: func(file string, seq int64) int64 {
			return s.clock.lastCommitted(info.LastCommitted, info.SeqNo, file, seq)
		}})
	if err == nil && s.opts.ApplyQuery != nil {
		s.applyQueries(events[1:], g)
	}
	return err
}

// applyQueries hands the statement events of a relayed transaction to
// Options.ApplyQuery.
func (s *Sink) applyQueries(events [][]byte, g base.GTID) {
	for _, ev := range events {
		if len(ev) <= 4 || ev[4] != binlog.QueryEvent {
			continue
		}
		q, err := binlog.ParseQuery(binlog.Body(ev))
		if err != nil || q.Query == "BEGIN" {
			continue
		}
		if err := s.opts.ApplyQuery(q.Database, q.Query, g); err != nil {
			s.opts.Logger.Warn("relay: statement not applied to the relay's accounts", "gtid", g.String(), "error", err)
		}
	}
}

// Sync makes what Txn wrote durable: with force always (an
// acknowledgement that waits for it), else as sync_binlog says.
func (s *Sink) Sync(force bool) error {
	return s.opts.Log.SyncWritten(context.Background(), force)
}

// Reset forgets the followed source (RESET REPLICA): the next connection
// may be to another server.
func (s *Sink) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Remove(filepath.Join(s.opts.Dir, sourceFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("relay: %w", err)
	}
	s.source = ""
	s.clock = clockMap{}
	return nil
}
