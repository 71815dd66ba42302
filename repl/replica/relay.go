package replica

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/internal/fsutil"
)

// relayLog holds what the receiver fetched and the applier has yet to
// apply: files in binlog format (magic, then the source's events), holding
// only whole transactions. Safe for concurrent use by one receiver and one
// applier.
type relayLog struct {
	dir     string
	maxSize uint64

	mu        sync.Mutex
	files     []string // oldest first; the last is written
	f         *os.File
	end       uint64 // end of the last whole transaction in the current file
	alloc     uint64 // bytes of the current file written so far, zeros past end
	dirty     bool   // appended since the last sync
	unsynced  int64  // events appended since the last sync
	syncs     uint64 // fdatasyncs done by sync
	retrieved *base.GTIDSet
	notify    chan struct{}

	// Background syncing (runSyncer): dirtied is signalled when the log
	// becomes dirty, due when sync_relay_log events are waiting.
	dirtied   chan struct{}
	due       chan struct{}
	syncEvery atomic.Int64 // sync_relay_log; 0: by time only
	syncMu    sync.Mutex   // one fdatasync at a time
	// track is the source position after the last event appended
	// (position.go).
	track posTracker
}

const relayPrefix = "relay."

// relayChunk is how far ahead of its end the current relay file is filled
// with zeros. The receiver acknowledges semi-sync transactions only after
// an fsync of the relay log; an fdatasync of a file written within its
// size needs no metadata journal commit and costs about a third less than
// one of a growing file. Readers stop at the end of the last whole
// transaction (binlog.Reader.SetLimit); a crash leaves zeros after it,
// which opening the relay log cuts like any torn tail.
const relayChunk = 4 << 20

// openRelay opens the relay log in dir: every file is checked, a torn tail
// (crash in the middle of a write) is cut, and writing continues in a new
// file.
func openRelay(dir string, maxSize uint64) (*relayLog, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	rl := &relayLog{dir: dir, maxSize: maxSize, retrieved: base.NewGTIDSet(), notify: make(chan struct{}),
		dirtied: make(chan struct{}, 1), due: make(chan struct{}, 1)}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), relayPrefix) {
			if _, err := strconv.Atoi(strings.TrimPrefix(e.Name(), relayPrefix)); err == nil {
				rl.files = append(rl.files, e.Name())
			}
		}
	}
	sort.Strings(rl.files)
	for _, name := range rl.files {
		p := filepath.Join(dir, name)
		res, err := binlog.ScanFile(p, true)
		if err != nil {
			return nil, fmt.Errorf("relay log %s: %w", name, err)
		}
		if res.Torn || res.ZeroTail > 0 {
			if err := os.Truncate(p, int64(res.ValidEnd)); err != nil {
				return nil, err
			}
		}
		rl.retrieved.AddSet(res.GTIDs)
		if err := scanPosition(p, &rl.track); err != nil {
			return nil, fmt.Errorf("relay log %s: %w", name, err)
		}
	}
	if err := rl.newFile(); err != nil {
		return nil, err
	}
	return rl, nil
}

// newFile starts the next relay file. Caller holds mu (or is opening).
func (rl *relayLog) newFile() error {
	n := 1
	if len(rl.files) > 0 {
		n, _ = strconv.Atoi(strings.TrimPrefix(rl.files[len(rl.files)-1], relayPrefix))
		n++
	}
	name := fmt.Sprintf("%s%06d", relayPrefix, n)
	f, err := os.OpenFile(filepath.Join(rl.dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	head := binlog.Magic
	if rl.track.pos.File != "" {
		// The position reached so far: it survives the purge of the
		// files before this one.
		head = append(append([]byte(nil), head...), relayMarker(rl.track.pos)...)
	}
	if _, err := f.Write(head); err != nil {
		f.Close()
		return err
	}
	if rl.f != nil {
		if err := rl.finishFile(); err != nil {
			f.Close()
			return err
		}
	}
	rl.f, rl.end, rl.alloc = f, uint64(len(head)), uint64(len(head))
	rl.markDirty(0) // the magic
	rl.files = append(rl.files, name)
	return nil
}

// append writes whole events: one transaction (gtid set) or events
// outside transactions (gtid nil). Not durable until sync.
func (rl *relayLog) append(evs [][]byte, gtid *base.GTID) error {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.f == nil {
		return fmt.Errorf("relay log is closed")
	}
	if rl.end >= rl.maxSize && gtid != nil {
		if err := rl.newFile(); err != nil {
			return err
		}
	}
	var buf []byte
	for _, ev := range evs {
		buf = append(buf, ev...)
	}
	if err := fsutil.WriteAhead(rl.f, buf, rl.end, &rl.alloc, relayChunk); err != nil {
		// Cut what was partly written, so the file holds whole events.
		fsutil.CutBack(rl.f, rl.end, &rl.alloc)
		return fmt.Errorf("relay log write: %w", err)
	}
	rl.end += uint64(len(buf))
	rl.markDirty(int64(len(evs)))
	for _, ev := range evs {
		rl.track.observe(ev)
	}
	if gtid != nil {
		rl.retrieved.Add(*gtid)
	}
	close(rl.notify)
	rl.notify = make(chan struct{})
	return nil
}

// finishFile cuts the zeros after the current file's end, syncs and
// closes it. Caller holds mu.
func (rl *relayLog) finishFile() error {
	err := fsutil.Finish(rl.f, rl.end, &rl.alloc)
	if cerr := rl.f.Close(); err == nil {
		err = cerr
	}
	rl.f = nil
	return err
}

// markDirty records n events appended and wakes the background syncer:
// at the first write since the last sync (its interval starts), and when
// sync_relay_log events are waiting. Caller holds mu.
func (rl *relayLog) markDirty(n int64) {
	if !rl.dirty {
		signal(rl.dirtied)
	}
	rl.dirty = true
	rl.unsynced += n
	if every := rl.syncEvery.Load(); every > 0 && rl.unsynced >= every {
		signal(rl.due)
	}
}

// signal wakes whoever waits on a one-slot channel, never blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// sync makes everything appended durable. With nothing appended since
// the last sync it does nothing: an fdatasync of a clean file may still
// cost a disk cache flush, and the receiver asks after every burst of
// packets, including heartbeats and transactions still incomplete.
func (rl *relayLog) sync() error {
	rl.syncMu.Lock()
	defer rl.syncMu.Unlock()
	rl.mu.Lock()
	f, dirty := rl.f, rl.dirty
	rl.dirty, rl.unsynced = false, 0
	rl.mu.Unlock()
	if f == nil || !dirty {
		return nil
	}
	err := fsutil.DataSync(f)
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if err != nil && rl.f != f && errors.Is(err, os.ErrClosed) {
		// Rotated meanwhile: finishing the file synced it.
		err = nil
	}
	rl.syncs++
	if err != nil {
		rl.dirty = true
	}
	return err
}

// runSyncer makes what is appended durable in the background, within
// interval of the first write after a sync, or as soon as sync_relay_log
// events wait: with rpl_semi_sync_replica_ack_after=RELAY_WRITE the
// receiver acknowledges after the write and no commit waits for this
// fdatasync. At ctx's end it syncs once more and returns; a failed sync
// ends it with the error.
func (rl *relayLog) runSyncer(ctx context.Context, clock base.Clock, interval time.Duration) error {
	for {
		select {
		case <-ctx.Done():
			return rl.sync()
		case <-rl.dirtied:
		case <-rl.due:
		}
		select {
		case <-ctx.Done():
			return rl.sync()
		case <-clock.After(interval):
		case <-rl.due:
		}
		if err := rl.sync(); err != nil {
			return err
		}
	}
}

// syncCount is how many fdatasyncs sync has done (Petrel_relay_log_syncs).
func (rl *relayLog) syncCount() uint64 {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.syncs
}

// changed is closed at the next append.
func (rl *relayLog) changed() <-chan struct{} {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.notify
}

// limit is how far name may be read: the end of its whole transactions if
// it is being written, else all of it (-1, with the next file's name).
func (rl *relayLog) limit(name string) (limit int64, next string, ok bool) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	for i, f := range rl.files {
		if f != name {
			continue
		}
		if i == len(rl.files)-1 {
			return int64(rl.end), "", true
		}
		return -1, rl.files[i+1], true
	}
	return 0, "", false
}

// first is the oldest relay file.
func (rl *relayLog) first() string {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.files[0]
}

func (rl *relayLog) path(name string) string { return filepath.Join(rl.dir, name) }

// current is the file being written and its end.
func (rl *relayLog) current() (string, uint64) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.files[len(rl.files)-1], rl.end
}

// purge removes an applied file that is no longer written.
func (rl *relayLog) purge(name string) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if len(rl.files) < 2 || rl.files[0] != name {
		return
	}
	os.Remove(rl.path(name))
	rl.files = rl.files[1:]
}

// space is Relay_Log_Space: the bytes of all relay files.
func (rl *relayLog) space() uint64 {
	rl.mu.Lock()
	files := append([]string(nil), rl.files...)
	rl.mu.Unlock()
	var n uint64
	for _, f := range files[:len(files)-1] {
		if st, err := os.Stat(rl.path(f)); err == nil {
			n += uint64(st.Size())
		}
	}
	_, end := rl.current()
	return n + end
}

// retrievedSet is Retrieved_Gtid_Set.
func (rl *relayLog) retrievedSet() *base.GTIDSet {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.retrieved.Clone()
}

// reset removes every relay file and starts afresh (RESET REPLICA).
func (rl *relayLog) reset() error {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.f != nil {
		rl.f.Close()
		rl.f = nil
	}
	for _, f := range rl.files {
		if err := os.Remove(rl.path(f)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	rl.files = nil
	rl.retrieved = base.NewGTIDSet()
	rl.track = posTracker{}
	return rl.newFile()
}

func (rl *relayLog) close() error {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.f == nil {
		return nil
	}
	return rl.finishFile()
}
