package clone

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/vttls"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/internal/tcptune"
	"petrel/storage"
)

// StagingDir is where a recipient collects a clone, under the datadir.
const StagingDir = "clone-staging"

// completeMarker, in the staging directory, says every file is there,
// verified and synced: its presence is the clone's commit point.
const completeMarker = "CLONE-COMPLETE"

// FetchOptions configures Fetch. Zero values take the defaults noted.
type FetchOptions struct {
	// Host and Port of the donor; User and Password log in there (the
	// user needs BACKUP_ADMIN). Required.
	Host     string
	Port     int
	User     string
	Password string
	// Datadir receives the clone in Datadir/clone-staging; created if
	// missing. Required.
	Datadir string
	// Destination names the target in the status ("LOCAL INSTANCE" for
	// CLONE INSTANCE); default Datadir.
	Destination string
	// MaxBandwidth is read before each chunk: bytes per second, <= 0
	// unlimited (clone_max_data_bandwidth, so a SET GLOBAL applies to a
	// clone under way). Default unlimited.
	MaxBandwidth func() int64
	// NoStream pulls with CLONE READ (each chunk a result set on the SQL
	// connections) even when the donor offers a data stream; default off:
	// the stream when the donor offers one (see stream.go).
	NoStream bool
	// ChunkSize is the size of each CLONE READ; default 4 MiB, at most
	// MaxChunk.
	ChunkSize int
	// Parallel is how many connections pull at once (MySQL's
	// clone_max_concurrency); default 4. They overlap the round trips and
	// the copies at both ends.
	Parallel int
	// DataConn, when set, wraps each data connection as dialled (a seam
	// for tests to cut or corrupt the stream); default none.
	DataConn func(net.Conn) net.Conn
	// rangeSize is the most one stream request asks for; StreamRange
	// (tests make it small to split small files).
	rangeSize int64
	// Timeout bounds the connection and each statement; default 60s (the
	// donor's snapshot flushes a memtable).
	Timeout time.Duration
	// SSLMode is how the connections to the donor use TLS: "preferred"
	// (default: TLS when the donor offers it, as MySQL's clone without a
	// REQUIRE clause), "required" (REQUIRE SSL: no clone over a plain
	// link) or "disabled" (REQUIRE NO SSL). The donor's certificate is not
	// verified (MySQL's clone checks it only with clone_ssl_ca).
	SSLMode string
	// Compress asks the donor for zstd-compressed chunks
	// (clone_enable_compression): less network, more CPU at both ends.
	Compress bool
	// TCP are the socket settings of the connections to the donor (the
	// server passes replication's: replication_tcp_congestion_control,
	// keepalives, TCP_NODELAY); nil leaves the sockets as dialled.
	TCP func() tcptune.Options
	// Progress receives the clone's status; default a private one.
	Progress *Progress
	// Logger; default slog.Default(). Clock; default the wall clock.
	Logger *slog.Logger
	Clock  base.Clock
}

func (o *FetchOptions) setDefaults() error {
	if o.Host == "" || o.Port <= 0 || o.Port > 65535 || o.Datadir == "" {
		return errors.New("clone: the donor's host and port, and a datadir, are required")
	}
	if o.Destination == "" {
		o.Destination = o.Datadir
	}
	if o.MaxBandwidth == nil {
		o.MaxBandwidth = func() int64 { return 0 }
	}
	switch o.SSLMode {
	case "":
		o.SSLMode = string(vttls.Preferred)
	case string(vttls.Preferred), string(vttls.Required), string(vttls.Disabled):
	default:
		return fmt.Errorf("clone: SSL mode %q: want preferred, required or disabled", o.SSLMode)
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = 4 << 20
	}
	o.ChunkSize = min(o.ChunkSize, MaxChunk)
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.rangeSize <= 0 {
		o.rangeSize = StreamRange
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Progress == nil {
		o.Progress = NewProgress()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Clock = base.ClockOr(o.Clock)
	return nil
}

// DonorError is an error the donor answered with, or the client's error
// reaching it (2003 and friends): its MySQL number is passed on.
type DonorError struct {
	Num   int
	State string
	Msg   string
}

func (e *DonorError) Error() string { return fmt.Sprintf("Clone Donor Error: %d : %s", e.Num, e.Msg) }

// ProtocolError: the donor's answer was not what a Petrel donor sends, or
// the data failed its checks (ER_CLONE_PROTOCOL).
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "clone: unexpected response from the donor: " + e.Msg }

// FormatError: the donor's clone format is not this build's
// (ER_CLONE_DONOR_VERSION).
type FormatError struct {
	Donor, Recipient int
	DonorVersion     string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("clone: the donor (%s) sends clone format %d, this server reads format %d", e.DonorVersion, e.Donor, e.Recipient)
}

// SpaceError: the target's filesystem has less room than the snapshot
// (ER_CLONE_DISK_SPACE).
type SpaceError struct{ Need, Free int64 }

func (e *SpaceError) Error() string {
	return fmt.Sprintf("clone: the snapshot is %d bytes, the target has %d free", e.Need, e.Free)
}

// checkSpace refuses a clone the target's filesystem cannot hold, before
// anything is copied (dir, or the nearest directory above it that exists).
func checkSpace(dir string, need int64) error {
	for {
		if free, ok := freeSpace(dir); ok {
			if free < need {
				return &SpaceError{Need: need, Free: free}
			}
			return nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil
		}
		dir = up
	}
}

// Result is what a finished Fetch staged.
type Result struct {
	Manifest *Manifest
	Bytes    int64
	Elapsed  time.Duration
}

// safeName: snapshot file names are relative, slash-separated, plain
// (and equal to their path.Clean); safeID: a snapshot id.
var (
	safeName = regexp.MustCompile(`^(data|binlog)/[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$`)
	safeID   = regexp.MustCompile(`^[0-9a-f]{1,32}$`)
)

// Fetch pulls a snapshot of the donor into Datadir/clone-staging and
// commits it there (see the package comment); Install switches it in. A
// failed or cancelled Fetch removes what it staged.
func Fetch(ctx context.Context, opts FetchOptions) (res *Result, err error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	clk, p, log := opts.Clock, opts.Progress, opts.Logger
	addr := net.JoinHostPort(opts.Host, strconv.Itoa(opts.Port))
	p.start(clk.Now(), addr, opts.Destination)
	staging := filepath.Join(opts.Datadir, StagingDir)
	defer func() {
		if err != nil {
			num := 0
			var de *DonorError
			if errors.As(err, &de) {
				num = de.Num
			}
			p.fail(clk.Now(), num, err.Error())
			os.RemoveAll(staging)
			log.Warn("clone: failed; nothing of it is kept", "donor", addr, "error", err)
		}
	}()
	if _, err := os.Stat(staging); err == nil {
		log.Warn("clone: removing the staging directory of an earlier, interrupted clone", "dir", staging)
		if err := os.RemoveAll(staging); err != nil {
			return nil, fmt.Errorf("clone: %w", err)
		}
	}
	c, err := dial(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer c.close()
	p.stage(clk.Now(), StageFileCopy, 0)
	man, err := c.snapshot()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.endQuietly(man.ID) // else the donor holds it until its lease passes
		}
	}()
	p.setLog(man)
	if err := checkSpace(opts.Datadir, man.Bytes()); err != nil {
		return nil, err
	}
	p.stage(clk.Now(), StageFileCopy, man.Bytes())
	_, tlsOn := c.conn.Conn.(*tls.Conn)
	start := clk.Now()
	if err := os.MkdirAll(staging, 0o750); err != nil {
		return nil, fmt.Errorf("clone: %w", err)
	}
	var g *streamGrant
	if !opts.NoStream {
		if g, err = c.stream(man.ID); err != nil && !errors.Is(err, errNoDataPort) {
			return nil, err
		}
	}
	if g != nil {
		log.Info("clone: copying over the data stream", "donor", addr, "data_port", g.port, "files", len(man.Files), "bytes", man.Bytes(), "gtid_executed", man.GTIDs, "tls", tlsOn, "compressed", opts.Compress)
		err = copyStream(ctx, g, man, staging, opts)
		if errors.Is(err, errNoDataPort) && ctx.Err() == nil {
			log.Warn("clone: the donor's data port does not answer; pulling with CLONE READ instead", "error", err)
			g = nil
		} else if err != nil {
			return nil, err
		}
	}
	if g == nil {
		log.Info("clone: copying with CLONE READ", "donor", addr, "files", len(man.Files), "bytes", man.Bytes(), "gtid_executed", man.GTIDs, "tls", tlsOn, "compressed", opts.Compress)
		if err := copyFiles(ctx, c, man, staging, opts); err != nil {
			return nil, err
		}
	}
	// Released before the local work: the donor's links can go.
	if err := c.end(man.ID); err != nil {
		log.Warn("clone: could not release the donor's snapshot (its lease will)", "error", err)
	}
	p.stage(clk.Now(), StageFileSync, man.Bytes())
	if err := commitStaging(staging, man, opts, p); err != nil {
		return nil, err
	}
	el := clk.Now().Sub(start)
	log.Info("clone: staged and verified", "dir", staging, "bytes", man.Bytes(), "elapsed", el, "MB/s", float64(man.Bytes())/1e6/max(el.Seconds(), 1e-9))
	return &Result{Manifest: man, Bytes: man.Bytes(), Elapsed: el}, nil
}

// client is the recipient's connection to the donor.
type client struct {
	opts FetchOptions
	conn *mysql.Conn
	stop func() bool
}

func dial(ctx context.Context, opts FetchOptions) (*client, error) {
	cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	connect := func(mode vttls.SslMode) (*mysql.Conn, error) {
		return mysql.Connect(cctx, &mysql.ConnParams{
			Host: opts.Host, Port: opts.Port, Uname: opts.User, Pass: opts.Password,
			ConnectTimeoutMs: uint64(opts.Timeout / time.Millisecond), SslMode: mode,
		})
	}
	mode := vttls.SslMode(opts.SSLMode)
	if mode == vttls.Preferred {
		// vitess's client starts TLS in "preferred" mode even when the
		// server does not offer it; "required" says so cleanly first.
		mode = vttls.Required
	}
	conn, err := connect(mode)
	var se *mysql.SQLError
	if err != nil && opts.SSLMode == string(vttls.Preferred) && errors.As(err, &se) && se.Num == mysqlerr.CrSSLConnectionError {
		conn, err = connect(vttls.Disabled)
	}
	if err != nil {
		return nil, donorError(err)
	}
	if opts.TCP != nil {
		if res, err := tcptune.Apply(conn.Conn, opts.TCP()); err != nil {
			opts.Logger.Warn("clone: TCP settings not applied", "error", err)
		} else if res.Fallback {
			opts.Logger.Warn("clone: congestion control not available; the kernel's default is used", "using", res.CongestionControl, "reason", res.Reason)
		}
	}
	c := &client{opts: opts, conn: conn}
	c.stop = context.AfterFunc(ctx, func() { conn.Conn.Close() })
	return c, nil
}

func (c *client) close() {
	c.stop()
	c.conn.Close()
}

// exec runs one statement under the per-statement deadline and returns
// its rows (a NULL reads as empty).
func (c *client) exec(q string, maxRows int) ([][][]byte, error) {
	c.conn.Conn.SetDeadline(time.Now().Add(c.opts.Timeout))
	res, err := c.conn.ExecuteFetch(q, maxRows, false)
	if err != nil {
		return nil, donorError(err)
	}
	out := make([][][]byte, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = make([][]byte, len(r))
		for j, v := range r {
			out[i][j] = v.Raw()
		}
	}
	return out, nil
}

// strs is a row as strings.
func strs(r [][]byte) []string {
	out := make([]string, len(r))
	for i, v := range r {
		out[i] = string(v)
	}
	return out
}

func donorError(err error) error {
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return &DonorError{Num: se.Num, State: se.State, Msg: se.Message}
	}
	return &DonorError{Num: mysqlerr.CrServerLost, State: mysqlerr.State(mysqlerr.CrServerLost), Msg: err.Error()}
}

// snapshot asks the donor for a snapshot: one row per file, the
// snapshot's fields repeated (ID, FORMAT, VERSION, GTID_EXECUTED,
// BINLOG_FILE, BINLOG_POSITION, FILE, SIZE).
func (c *client) snapshot() (*Manifest, error) {
	raw, err := c.exec("CLONE SNAPSHOT", 1<<20)
	if err != nil {
		return nil, err
	}
	rows := make([][]string, len(raw))
	for i, r := range raw {
		rows[i] = strs(r)
	}
	if len(rows) == 0 || len(rows[0]) != 8 {
		return nil, &ProtocolError{Msg: "CLONE SNAPSHOT returned no manifest"}
	}
	r0 := rows[0]
	format, err := strconv.Atoi(r0[1])
	if err != nil {
		return nil, &ProtocolError{Msg: "bad clone format " + r0[1]}
	}
	m := &Manifest{ID: r0[0], Format: format, GTIDs: r0[3], Binlog: r0[4]}
	if format != Format {
		c.exec("CLONE END '"+m.ID+"'", 0)
		return nil, &FormatError{Donor: format, Recipient: Format, DonorVersion: r0[2]}
	}
	if m.HeaderEnd, err = strconv.ParseUint(r0[5], 10, 64); err != nil {
		return nil, &ProtocolError{Msg: "bad binlog position " + r0[5]}
	}
	if _, err := base.ParseGTIDSet(m.GTIDs); err != nil {
		return nil, &ProtocolError{Msg: "bad GTID set " + m.GTIDs}
	}
	if !safeID.MatchString(m.ID) || !safeName.MatchString("binlog/"+m.Binlog) {
		return nil, &ProtocolError{Msg: "bad snapshot id or binlog name"}
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if len(r) != 8 || r[0] != m.ID {
			return nil, &ProtocolError{Msg: "inconsistent manifest rows"}
		}
		size, err := strconv.ParseInt(r[7], 10, 64)
		if err != nil || size < 0 || !safeName.MatchString(r[6]) || path.Clean(r[6]) != r[6] || seen[r[6]] {
			return nil, &ProtocolError{Msg: fmt.Sprintf("bad file %q of size %q", r[6], r[7])}
		}
		seen[r[6]] = true
		m.Files = append(m.Files, File{Name: r[6], Size: size})
	}
	if !seen["binlog/"+m.Binlog] || !seen["binlog/binlog.index"] {
		return nil, &ProtocolError{Msg: "the manifest lacks the binary log"}
	}
	return m, nil
}

func (c *client) end(id string) error {
	_, err := c.exec("CLONE END '"+id+"'", 0)
	return err
}

// endQuietly releases a snapshot after a failure, briefly: the link may
// be what failed.
func (c *client) endQuietly(id string) {
	c.conn.Conn.SetDeadline(time.Now().Add(2 * time.Second))
	c.conn.ExecuteFetch("CLONE END '"+id+"'", 0, false)
}

// commitStaging makes the staged copy a datadir's storage and log, syncs
// it, and writes the marker.
func commitStaging(staging string, man *Manifest, opts FetchOptions, p *Progress) error {
	// The staged storage records the donor's last transaction at its
	// position in the donor's log and the donor's own GNOs, which the
	// recipient (another server UUID, a log holding only the header of
	// the donor's next file) would take for lost transactions. It is
	// repointed at the end of the staged log's header: recovery replays
	// nothing and gtid_executed is the header's PREVIOUS_GTIDS.
	st, err := storage.Open(storage.Options{Dir: filepath.Join(staging, "data"), Logger: opts.Logger, Clock: opts.Clock,
		LogIsWAL: true, ReserveSize: -1, CacheSize: 8 << 20})
	if err != nil {
		return &ProtocolError{Msg: fmt.Sprintf("the cloned storage does not open: %v", err)}
	}
	err = st.SetSinkPos(binlog.EncodeSinkPos(man.Binlog, man.HeaderEnd, 0))
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("clone: prepare the cloned storage: %w", err)
	}
	h, err := binlog.ReadFileHeader(filepath.Join(staging, "binlog", man.Binlog))
	if err != nil {
		return &ProtocolError{Msg: fmt.Sprintf("the cloned binary log: %v", err)}
	}
	want, _ := base.ParseGTIDSet(man.GTIDs)
	if !h.PreviousGTIDs.Equal(want) {
		return &ProtocolError{Msg: fmt.Sprintf("the cloned binary log starts at %q, the donor announced %q", h.PreviousGTIDs, man.GTIDs)}
	}
	for _, d := range []string{"data", "binlog", "."} {
		if err := syncDir(filepath.Join(staging, d)); err != nil {
			return err
		}
	}
	// The status as the restart will find it: RESTART under way.
	p.stage(opts.Clock.Now(), StageRestart, 0)
	if err := writeStatus(filepath.Join(staging, StatusFile), p.Snapshot()); err != nil {
		return fmt.Errorf("clone: %w", err)
	}
	if err := writeSynced(filepath.Join(staging, completeMarker), []byte(man.GTIDs+"\n")); err != nil {
		return err
	}
	return syncDir(staging)
}

func writeSynced(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("clone: %w", err)
	}
	if _, err = f.Write(b); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("clone: write %s: %w", p, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("clone: %w", err)
	}
	err = d.Sync()
	d.Close()
	if err != nil {
		return fmt.Errorf("clone: sync %s: %w", dir, err)
	}
	return nil
}
