package clone

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/storage"
)

// Format is the clone format: what a snapshot holds and how it is laid
// out (a Pebble checkpoint under data/, the binlog header under binlog/).
// A recipient refuses a donor of another format (ER_CLONE_DONOR_VERSION).
const Format = 1

// MaxChunk bounds one CLONE READ (the reply is one row held in memory).
const MaxChunk = 16 << 20

// DonorDir is where a donor keeps its snapshots, under the datadir.
const DonorDir = "clone-donor"

// DonorOptions configures a Donor. Zero values take the defaults noted.
type DonorOptions struct {
	// Datadir: snapshots live in Datadir/clone-donor (same filesystem as
	// storage, so checkpoints are hard links). Required.
	Datadir string
	// Store and Log are the instance's storage and binary log. Required.
	Store *storage.Engine
	Log   *binlog.Log
	// Lease: a snapshot not read for this long is dropped (its recipient
	// died or gave up); default 2 minutes.
	Lease time.Duration
	// MaxSnapshots held at once (ER_CLONE_IN_PROGRESS beyond); default 4.
	MaxSnapshots int
	// DataAddress is where the data port listens (host:port, port 0 for
	// any), opened at the first CLONE STREAM; default "": no data stream,
	// recipients pull with CLONE READ.
	DataAddress string
	// TLS is the server's certificate for data connections whose SQL
	// connection used TLS; nil: such recipients pull with CLONE READ.
	TLS *tls.Config
	// MaxBandwidth is read before each chunk or frame served: bytes per
	// second over all clones, <= 0 unlimited (clone_max_data_bandwidth on
	// the donor); default unlimited.
	MaxBandwidth func() int64
	// Logger; default slog.Default(). Clock; default the wall clock.
	Logger *slog.Logger
	Clock  base.Clock
}

// Manifest describes a snapshot.
type Manifest struct {
	ID     string
	Format int
	// GTIDs is the snapshot's gtid_executed; Binlog the binary log file
	// (header only) the snapshot's log consists of, and HeaderEnd its size.
	GTIDs     string
	Binlog    string
	HeaderEnd uint64
	Files     []File
}

// File is one file of a snapshot: its path under the datadir (slash
// separated: "data/000012.sst", "binlog/binlog.000007") and size.
type File struct {
	Name string
	Size int64
}

// Bytes is the total size of the snapshot's files.
func (m *Manifest) Bytes() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// Donor serves snapshots of one instance. Safe for concurrent use. Its
// goroutines (the data port's) end in Close.
type Donor struct {
	opts DonorOptions
	// ctx ends at Close (paced frames stop waiting).
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	pace   sharedPacer
	mu     struct {
		sync.Mutex
		snaps  map[string]*snapshot
		closed bool
		// ln is the data port (nil until a stream is asked for); conns
		// its open connections.
		ln    net.Listener
		conns map[net.Conn]struct{}
	}
}

type snapshot struct {
	dir      string
	man      *Manifest
	sizes    map[string]int64
	lastUsed time.Time
	pause    time.Duration // how long Begin held commits
	// open files, kept while the snapshot lives (reads go in order).
	files map[string]*os.File
	// token authorises data connections (nil until CLONE STREAM); tls:
	// they must use TLS.
	token []byte
	tls   bool
}

// Errors a donor's SQL surface maps to MySQL numbers.
var (
	// ErrBusy: MaxSnapshots are held (ER_CLONE_IN_PROGRESS).
	ErrBusy = errors.New("clone: too many clones in progress on the donor")
	// ErrNoSnapshot: the id is unknown or its lease passed.
	ErrNoSnapshot = errors.New("clone: no such snapshot (it ended, or was not read for longer than its lease)")
	// ErrNoLog: the donor runs without a binary log, so it has no GTID
	// set to give.
	ErrNoLog = errors.New("clone: the donor runs without a binary log (log_bin=OFF): it has no GTID set to give a clone")
)

// NewDonor removes the snapshots a previous run left (a crash or a kill)
// and returns a Donor.
func NewDonor(opts DonorOptions) (*Donor, error) {
	if opts.Datadir == "" || opts.Store == nil {
		return nil, errors.New("clone: DonorOptions.Datadir and Store are required")
	}
	if opts.Lease <= 0 {
		opts.Lease = 2 * time.Minute
	}
	if opts.MaxSnapshots <= 0 {
		opts.MaxSnapshots = 4
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxBandwidth == nil {
		opts.MaxBandwidth = func() int64 { return 0 }
	}
	opts.Clock = base.ClockOr(opts.Clock)
	root := filepath.Join(opts.Datadir, DonorDir)
	if _, err := os.Stat(root); err == nil {
		opts.Logger.Info("clone: removing the snapshots of a previous run", "dir", root)
		if err := os.RemoveAll(root); err != nil {
			return nil, fmt.Errorf("clone: remove %s: %w", root, err)
		}
	}
	d := &Donor{opts: opts}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.mu.snaps = map[string]*snapshot{}
	d.mu.conns = map[net.Conn]struct{}{}
	return d, nil
}

// Begin takes a snapshot (see the package comment) and returns its
// manifest.
func (d *Donor) Begin() (*Manifest, error) {
	if d.opts.Log == nil {
		return nil, ErrNoLog
	}
	d.mu.Lock()
	if d.mu.closed {
		d.mu.Unlock()
		return nil, errors.New("clone: the donor is shutting down")
	}
	d.expireLocked()
	if len(d.mu.snaps) >= d.opts.MaxSnapshots {
		d.mu.Unlock()
		return nil, ErrBusy
	}
	id := newID()
	// Reserve the slot while the snapshot is taken outside the lock.
	d.mu.snaps[id] = &snapshot{lastUsed: d.opts.Clock.Now()}
	d.mu.Unlock()
	s, err := d.take(id)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil || d.mu.closed {
		delete(d.mu.snaps, id)
		if s != nil {
			s.remove()
		}
		if err == nil {
			err = errors.New("clone: the donor is shutting down")
		}
		return nil, err
	}
	s.lastUsed = d.opts.Clock.Now()
	d.mu.snaps[id] = s
	d.opts.Logger.Info("clone: snapshot taken", "id", id, "gtid_executed", s.man.GTIDs, "files", len(s.man.Files), "bytes", s.man.Bytes(), "commits_paused", s.pause)
	return s.man, nil
}

func (d *Donor) take(id string) (*snapshot, error) {
	dir := filepath.Join(d.opts.Datadir, DonorDir, id)
	if err := os.MkdirAll(filepath.Join(dir, "binlog"), 0o750); err != nil {
		return nil, fmt.Errorf("clone: %w", err)
	}
	s := &snapshot{dir: dir, files: map[string]*os.File{}}
	man := &Manifest{ID: id, Format: Format}
	pause, err := d.opts.Store.SnapshotTo(filepath.Join(dir, "data"), func() error {
		// Commits are paused and storage holds every logged transaction:
		// the new file's PREVIOUS_GTIDS is storage's GTID set.
		if err := d.opts.Log.Rotate(); err != nil {
			return fmt.Errorf("clone: rotate the binary log: %w", err)
		}
		pos := d.opts.Log.Current()
		man.GTIDs = d.opts.Log.Executed().String()
		man.Binlog, man.HeaderEnd = pos.File, pos.Pos
		src, ok := d.opts.Log.Path(pos.File)
		if !ok {
			return fmt.Errorf("clone: binlog file %s vanished", pos.File)
		}
		return copyPrefix(src, filepath.Join(dir, "binlog", pos.File), int64(pos.Pos))
	})
	if err != nil {
		s.remove()
		return nil, err
	}
	s.pause = pause // the flush of what came since the first, the rotation, the links
	if err := os.WriteFile(filepath.Join(dir, "binlog", "binlog.index"), []byte("./"+man.Binlog+"\n"), 0o640); err != nil {
		s.remove()
		return nil, fmt.Errorf("clone: %w", err)
	}
	s.sizes = map[string]int64{}
	err = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		st, err := e.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		man.Files = append(man.Files, File{Name: rel, Size: st.Size()})
		s.sizes[rel] = st.Size()
		return nil
	})
	if err != nil {
		s.remove()
		return nil, fmt.Errorf("clone: list the snapshot: %w", err)
	}
	sort.Slice(man.Files, func(i, j int) bool { return man.Files[i].Name < man.Files[j].Name })
	s.man = man
	return s, nil
}

// Read returns up to n bytes of a snapshot's file at off and their
// CRC-32C (Castagnoli).
func (d *Donor) Read(id, name string, off int64, n int) ([]byte, uint32, error) {
	if n <= 0 || n > MaxChunk || off < 0 {
		return nil, 0, fmt.Errorf("clone: bad read of %d bytes at %d", n, off)
	}
	f, size, err := d.open(id, name)
	if err != nil {
		return nil, 0, err
	}
	if off > size {
		return nil, 0, fmt.Errorf("clone: read at %d past the end of %s (%d bytes)", off, name, size)
	}
	buf := make([]byte, min(int64(n), size-off))
	// A snapshot ended meanwhile closes f: the read fails, as it should.
	if _, err := f.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && len(buf) == 0) {
		return nil, 0, fmt.Errorf("clone: read %s: %w", name, err)
	}
	return buf, crc32.Checksum(buf, castagnoli), nil
}

// open returns a snapshot's file (opened once, kept while the snapshot
// lives) and its size, and renews the snapshot's lease.
func (d *Donor) open(id, name string) (*os.File, int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expireLocked()
	s, ok := d.mu.snaps[id]
	if !ok || s.man == nil {
		return nil, 0, ErrNoSnapshot
	}
	s.lastUsed = d.opts.Clock.Now()
	size, ok := s.sizes[name]
	if !ok {
		return nil, 0, fmt.Errorf("clone: the snapshot has no file %q", name)
	}
	f := s.files[name]
	if f == nil {
		var err error
		if f, err = os.Open(filepath.Join(s.dir, filepath.FromSlash(name))); err != nil {
			return nil, 0, fmt.Errorf("clone: %w", err)
		}
		s.files[name] = f
	}
	return f, size, nil
}

// fileName is the name of a snapshot's file by its manifest index.
func (d *Donor) fileName(id string, i uint32) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, ok := d.mu.snaps[id]
	if !ok || s.man == nil {
		return "", ErrNoSnapshot
	}
	if int(i) >= len(s.man.Files) {
		return "", fmt.Errorf("clone: the snapshot has no file number %d", i)
	}
	return s.man.Files[i].Name, nil
}

// End drops a snapshot.
func (d *Donor) End(id string) error {
	d.mu.Lock()
	s, ok := d.mu.snaps[id]
	if ok && s.man != nil {
		delete(d.mu.snaps, id)
	}
	d.mu.Unlock()
	if !ok || s.man == nil {
		return ErrNoSnapshot
	}
	s.remove()
	d.opts.Logger.Info("clone: snapshot released", "id", id)
	return nil
}

// Active is the number of snapshots held.
func (d *Donor) Active() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.mu.snaps)
}

// Close drops every snapshot, closes the data port and its connections
// and waits for their goroutines; later Begins fail.
func (d *Donor) Close() error {
	d.mu.Lock()
	d.mu.closed = true
	snaps := d.mu.snaps
	d.mu.snaps = map[string]*snapshot{}
	if d.mu.ln != nil {
		d.mu.ln.Close()
	}
	for c := range d.mu.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.cancel()
	d.wg.Wait()
	for _, s := range snaps {
		s.remove()
	}
	return os.RemoveAll(filepath.Join(d.opts.Datadir, DonorDir))
}

// expireLocked drops snapshots whose lease passed. Caller holds mu.
func (d *Donor) expireLocked() {
	now := d.opts.Clock.Now()
	for id, s := range d.mu.snaps {
		if s.man != nil && now.Sub(s.lastUsed) > d.opts.Lease {
			delete(d.mu.snaps, id)
			d.opts.Logger.Warn("clone: snapshot dropped: not read for longer than its lease (the recipient died or gave up)", "id", id, "lease", d.opts.Lease)
			s.remove()
		}
	}
}

func (s *snapshot) remove() {
	for _, f := range s.files {
		f.Close()
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// copyPrefix copies the first n bytes of src into a new file dst.
func copyPrefix(src, dst string, n int64) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("clone: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("clone: %w", err)
	}
	if _, err := io.CopyN(out, in, n); err != nil {
		out.Close()
		return fmt.Errorf("clone: copy %s: %w", src, err)
	}
	return out.Close()
}
