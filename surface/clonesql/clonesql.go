package clonesql

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/binlog"
	"petrel/clone"
	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/internal/sqlstr"
	"petrel/internal/tcptune"
	"petrel/sqlengine"
	"petrel/storage"
	"petrel/surface/sysvar"
)

// Settings are clone's settings, typed (surface/sysvar): the donor and
// the recipient read them through Vars.
type Settings struct {
	// MaxBandwidth is clone_max_data_bandwidth in bytes per second (0:
	// unlimited); default 0.
	MaxBandwidth int64
	// Compression is clone_enable_compression: the recipient asks for
	// compressed chunks; default OFF.
	Compression bool
}

// Vars are clone's variables.
type Vars struct{ set *sysvar.Set[Settings] }

// Variables defines clone's system variables; node calls it before the
// config is applied.
func Variables(g *sqlengine.Globals) *Vars {
	v := &Vars{set: sysvar.New(Settings{})}
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	g.Add([]sql.SystemVariable{
		// MySQL's: the clone's transfer rate cap, MiB per second, 0 =
		// unlimited. Petrel applies it on both sides: a recipient paces
		// what it pulls, a donor what it serves.
		sysvar.Global(v.set, &sql.MysqlSystemVariable{Name: "clone_max_data_bandwidth", Scope: global, Dynamic: true,
			Type: types.NewSystemUintType("clone_max_data_bandwidth", 0, 1048576), Default: uint64(0)},
			func(s *Settings, x any) error { s.MaxBandwidth = sysvar.Int(x) << 20; return nil }),
		// MySQL's: the recipient asks for compressed chunks (zstd here).
		sysvar.Global(v.set, &sql.MysqlSystemVariable{Name: "clone_enable_compression", Scope: global, Dynamic: true,
			Type: types.NewSystemBoolType("clone_enable_compression"), Default: int8(0)},
			func(s *Settings, x any) error { s.Compression = sysvar.Bool(x); return nil }),
	}...)
	return v
}

// Settings returns the current settings.
func (v *Vars) Settings() Settings { return v.set.Get() }

// MaxBandwidth is clone_max_data_bandwidth in bytes per second (0:
// unlimited), as SET GLOBAL last left it: node gives it to the donor
// (clone.DonorOptions), which reads it before each chunk.
func (v *Vars) MaxBandwidth() int64 { return v.set.Get().MaxBandwidth }

// Options are what Register wires.
type Options struct {
	// Donor serves snapshots (nil: the instance cannot be a donor, e.g.
	// without a binary log).
	Donor *clone.Donor
	// Store and Log are the instance's (Log nil without a binary log):
	// CLONE INSTANCE refuses a recipient that holds data.
	Store *storage.Engine
	Log   *binlog.Log
	// Datadir receives a clone; Restart asks the process to restart on it.
	Datadir string
	Restart func()
	// Refuse, when set, is why this instance neither gives nor takes
	// clones (a relay): every clone statement answers it (3869).
	Refuse string
	// TCP are the recipient's socket settings (replication's).
	TCP func() tcptune.Options
	// Vars are clone's settings (Variables); required unless Refuse is set.
	Vars   *Vars
	Logger *slog.Logger
	Clock  base.Clock
}

// Register adds the statements and tables to e.
func Register(e *sqlengine.Engine, o Options) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Clock = base.ClockOr(o.Clock)
	if o.Refuse != "" {
		refuse := func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
			return nil, mysqlerr.New(mysqlerr.ErCloneSysConfig, "Clone system configuration: %s", o.Refuse)
		}
		e.RegisterAdmin(`CLONE (SNAPSHOT|READ|STREAM|END|INSTANCE)( .*)?`, 0, refuse)
		return
	}
	r := &surface{e: e, o: o, progress: clone.NewProgress()}
	if st, ok := clone.LoadStatus(o.Datadir, o.Clock.Now()); ok {
		r.progress.Set(st)
	}
	e.RegisterAdmin(`CLONE SNAPSHOT`, 0, r.snapshot)
	e.RegisterAdmin(`CLONE READ '([0-9a-f]{1,32})' FILE '([A-Za-z0-9._/-]{1,512})' OFFSET ([0-9]{1,19}) LENGTH ([0-9]{1,9})( COMPRESSED)?`, 0, r.read)
	e.RegisterAdmin(`CLONE STREAM '([0-9a-f]{1,32})'( TLS)?`, 0, r.stream)
	e.RegisterAdmin(`CLONE END '([0-9a-f]{1,32})'`, 0, r.end)
	e.RegisterAdmin(`CLONE INSTANCE FROM '([^'@]*)' ?@ ?'([^']*)' ?: ?([0-9]{1,5}) IDENTIFIED BY '((?:[^'\\]|\\.|'')*)'(?: DATA DIRECTORY ?=? ?'([^']*)')?( REQUIRE (NO )?SSL)?`, 0, r.cloneInstance)
	// The rest of MySQL's CLONE grammar (CLONE LOCAL DATA DIRECTORY): a
	// clear refusal rather than a syntax error.
	e.RegisterAdmin(`CLONE (LOCAL|INSTANCE)( .*)?`, 0, func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
		return nil, mysqlerr.New(mysqlerr.ErNotSupportedYet, "This version of Petrel doesn't yet support 'this form of CLONE': use CLONE INSTANCE FROM 'user'@'host':port IDENTIFIED BY 'password' [DATA DIRECTORY 'dir']")
	})
	registerPerfSchema(e, r.progress)
}

type surface struct {
	e        *sqlengine.Engine
	o        Options
	progress *clone.Progress
	running  atomic.Bool
}

// denied is MySQL's 1227 for a missing privilege.
func denied(priv string) error {
	return mysqlerr.New(mysqlerr.ErSpecificAccessDenied, "Access denied; you need (at least one of) the %s privilege(s) for this operation", priv)
}

// may reports whether the session's user holds the dynamic privilege
// priv (SUPER holds them all).
func (r *surface) may(ctx context.Context, s *sqlengine.Session, priv ...string) bool {
	return r.e.HasGlobalPrivilege(r.e.NewContext(ctx, s), sql.PrivilegeType_Super, priv...)
}

// mayDonate: a donor's user needs BACKUP_ADMIN, which MySQL's CLONE_ADMIN
// includes (GMS's GRANT takes CLONE_ADMIN, not yet BACKUP_ADMIN).
func (r *surface) mayDonate(ctx context.Context, s *sqlengine.Session) bool {
	return r.may(ctx, s, "backup_admin", "clone_admin")
}

// snapshot answers CLONE SNAPSHOT: the manifest, one row per file.
func (r *surface) snapshot(ctx context.Context, s *sqlengine.Session, _ []string) (*sqlengine.AdminResult, error) {
	if !r.mayDonate(ctx, s) {
		return nil, denied("BACKUP_ADMIN")
	}
	if r.o.Donor == nil {
		return nil, sqlError(clone.ErrNoLog)
	}
	m, err := r.o.Donor.Begin()
	if err != nil {
		return nil, sqlError(err)
	}
	res := &sqlengine.AdminResult{Columns: []string{"ID", "FORMAT", "VERSION", "GTID_EXECUTED", "BINLOG_FILE", "BINLOG_POSITION", "FILE", "SIZE"}}
	for _, f := range m.Files {
		res.Rows = append(res.Rows, []*string{sqlengine.Str(m.ID), sqlengine.Str(strconv.Itoa(m.Format)), sqlengine.Str(sqlengine.Version),
			sqlengine.Str(m.GTIDs), sqlengine.Str(m.Binlog), sqlengine.Str(strconv.FormatUint(m.HeaderEnd, 10)),
			sqlengine.Str(f.Name), sqlengine.Str(strconv.FormatInt(f.Size, 10))})
	}
	return res, nil
}

// read answers CLONE READ: one chunk and its CRC-32C.
func (r *surface) read(ctx context.Context, s *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
	if !r.mayDonate(ctx, s) {
		return nil, denied("BACKUP_ADMIN")
	}
	if r.o.Donor == nil {
		return nil, sqlError(clone.ErrNoLog)
	}
	off, _ := strconv.ParseInt(m[3], 10, 64)
	n, _ := strconv.Atoi(m[4])
	if err := r.o.Donor.Pace(ctx, int64(n)); err != nil {
		return nil, err
	}
	data, sum, err := r.o.Donor.Read(m[1], m[2], off, n)
	if err != nil {
		return nil, sqlError(err)
	}
	if m[5] != "" {
		data = clone.Compress(data) // the checksum stays the raw bytes'
	}
	return &sqlengine.AdminResult{Columns: []string{"DATA", "CRC32C"},
		Rows: [][]*string{{sqlengine.Str(string(data)), sqlengine.Str(strconv.FormatUint(uint64(sum), 10))}}}, nil
}

// stream answers CLONE STREAM 'id' [TLS]: the data port and the token
// that authorises data connections for the snapshot (see package clone's
// stream.go).
func (r *surface) stream(ctx context.Context, s *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
	if !r.mayDonate(ctx, s) {
		return nil, denied("BACKUP_ADMIN")
	}
	if r.o.Donor == nil {
		return nil, sqlError(clone.ErrNoLog)
	}
	port, token, err := r.o.Donor.Stream(m[1], m[2] != "")
	if err != nil {
		return nil, sqlError(err)
	}
	return &sqlengine.AdminResult{Columns: []string{"PORT", "TOKEN"},
		Rows: [][]*string{{sqlengine.Str(strconv.Itoa(port)), sqlengine.Str(hex.EncodeToString(token))}}}, nil
}

func (r *surface) end(ctx context.Context, s *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
	if !r.mayDonate(ctx, s) {
		return nil, denied("BACKUP_ADMIN")
	}
	if r.o.Donor == nil {
		return nil, sqlError(clone.ErrNoLog)
	}
	if err := r.o.Donor.End(m[1]); err != nil {
		return nil, sqlError(err)
	}
	return &sqlengine.AdminResult{}, nil
}

// cloneInstance is CLONE INSTANCE FROM 'user'@'host':port IDENTIFIED BY
// 'password' [DATA DIRECTORY 'dir']. Without DATA DIRECTORY the clone is
// fetched and committed in the staging directory, the statement returns
// OK, and the server restarts on it. With it, the clone becomes a new
// datadir at dir (absolute, not existing), which `petrel server
// --datadir dir` starts; this server is left alone.
func (r *surface) cloneInstance(ctx context.Context, s *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
	if !r.may(ctx, s, "clone_admin") {
		return nil, denied("CLONE_ADMIN")
	}
	port, _ := strconv.Atoi(m[3])
	target, dest := r.o.Datadir, "LOCAL INSTANCE"
	if dir := m[5]; dir != "" {
		if !filepath.IsAbs(dir) {
			return nil, mysqlerr.New(mysqlerr.ErIncorrectValue, "Incorrect path value: '%s'", dir)
		}
		if _, err := os.Stat(dir); err == nil {
			return nil, mysqlerr.New(mysqlerr.ErDBCreateExists, "Can't create database '%s'; database exists", dir)
		}
		target, dest = dir, dir
	} else if err := r.checkEmpty(); err != nil {
		return nil, err
	}
	if !r.running.CompareAndSwap(false, true) {
		return nil, sqlError(clone.ErrBusy)
	}
	defer r.running.Store(false)
	// Registered as the session's operation, so KILL QUERY ends it (an
	// admin statement's context otherwise ends only with its connection).
	if sctx := r.e.NewContext(ctx, s); sctx.ProcessList != nil {
		if op, err := sctx.ProcessList.BeginOperation(sctx); err == nil {
			defer sctx.ProcessList.EndOperation(op)
			ctx = op
		}
	}
	ssl := "preferred"
	switch {
	case m[7] != "":
		ssl = "disabled"
	case m[6] != "":
		ssl = "required"
	}
	_, err := clone.Fetch(ctx, clone.FetchOptions{
		Host: m[2], Port: port, User: m[1], Password: sqlstr.Unescape(m[4], '\''), SSLMode: ssl,
		Datadir: target, Destination: dest,
		MaxBandwidth: r.o.Vars.MaxBandwidth, Compress: r.o.Vars.Settings().Compression, TCP: r.o.TCP, Progress: r.progress, Logger: r.o.Logger, Clock: r.o.Clock,
	})
	if err == nil && target != r.o.Datadir {
		_, err = clone.Install(target, r.o.Logger)
		if err == nil {
			r.progress.Set(finished(r.progress.Snapshot(), r.o.Clock.Now()))
		}
	}
	if err != nil {
		if target != r.o.Datadir {
			os.RemoveAll(target) // it did not exist
		}
		if ctx.Err() != nil {
			err = context.Canceled // KILL: whatever the links said then
		}
		return nil, sqlError(err)
	}
	if target != r.o.Datadir {
		return &sqlengine.AdminResult{}, nil
	}
	if r.o.Restart == nil {
		r.o.Logger.Warn("clone: staged; this server cannot restart itself: restart it to switch the clone in")
		return &sqlengine.AdminResult{}, nil
	}
	r.o.Logger.Info("clone: staged; restarting on the cloned data")
	r.o.Restart()
	return &sqlengine.AdminResult{}, nil
}

// finished marks a clone into another directory done: no restart here,
// its recovery comes when a server starts on it.
func finished(st clone.Status, now time.Time) clone.Status {
	st.State, st.End = clone.StateCompleted, now
	for i := range st.Stages {
		if st.Stages[i].State == clone.StateInProgress {
			st.Stages[i].State, st.Stages[i].End = clone.StateCompleted, now
		}
	}
	return st
}

// checkEmpty refuses a recipient holding data (a database): CLONE
// INSTANCE replaces the whole instance, so it is for new servers
// (Petrel's rule; MySQL drops the recipient's data). Accounts made on the
// new server (and their GTIDs) are replaced by the donor's, as in MySQL.
func (r *surface) checkEmpty() error {
	dbs := r.o.Store.Catalog().Databases()
	if len(dbs) == 0 {
		return nil
	}
	return mysqlerr.New(mysqlerr.ErCloneDisallowed, "The clone operation cannot be executed when the recipient holds data: it has database '%s'. Clone into a new, empty Petrel", dbs[0].Name())
}

// size is a byte count as MySQL's clone prints it (1.23 GiB).
func size(n int64) string {
	f, units := float64(n), []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.2f %s", f, units[i])
}

// sqlError maps clone's errors to MySQL's numbers (the one place).
func sqlError(err error) error {
	var (
		de *clone.DonorError
		pe *clone.ProtocolError
		fe *clone.FormatError
		se *clone.SpaceError
	)
	switch {
	case errors.As(err, &de) && mysqlerr.IsClientError(de.Num):
		// The client's own error reaching the donor (2003: unreachable,
		// 2013: the link cut): MySQL's clone reports it as ER_CLONE_DONOR
		// (client numbers are not for servers to send; clients misread them).
		return mysqlerr.New(mysqlerr.ErCloneDonor, "Clone Donor Error: %d : %s.", de.Num, de.Msg)
	case errors.As(err, &de):
		state := de.State
		if state == "" {
			state = mysqlerr.State(de.Num)
		}
		return mysqlerr.Relay(de.Num, state, "Clone Donor Error: %d : %s.", de.Num, de.Msg)
	case errors.As(err, &pe):
		return mysqlerr.New(mysqlerr.ErCloneProtocol, "Clone received unexpected response from Donor : %s.", pe.Msg)
	case errors.As(err, &fe):
		return mysqlerr.New(mysqlerr.ErCloneDonorVersion, "Clone Donor clone format: %d (%s) is different from Recipient clone format %d.", fe.Donor, fe.DonorVersion, fe.Recipient)
	case errors.As(err, &se):
		return mysqlerr.New(mysqlerr.ErCloneDiskSpace, "Clone estimated database size is %s. Available space %s is not enough.", size(se.Need), size(se.Free))
	case errors.Is(err, clone.ErrBusy):
		return mysqlerr.New(mysqlerr.ErCloneInProgress, "Concurrent clone in progress. Please try after clone is complete.")
	case errors.Is(err, clone.ErrNoStream):
		return mysqlerr.New(mysqlerr.ErNotSupportedYet, "This version of Petrel doesn't yet support 'a clone data stream on this donor': use CLONE READ")
	case errors.Is(err, clone.ErrNoLog):
		return mysqlerr.New(mysqlerr.ErCloneSysConfig, "Clone system configuration: %s", err)
	case errors.Is(err, clone.ErrNoSnapshot):
		return mysqlerr.New(mysqlerr.ErCloneProtocol, "Clone received unexpected response from Donor : %s.", err)
	case errors.Is(err, context.Canceled):
		return mysqlerr.New(mysqlerr.ErQueryInterrupted, "Query execution was interrupted")
	}
	var be *base.Error
	if errors.As(err, &be) {
		return err // sqlengine maps storage's classes
	}
	return mysqlerr.New(mysqlerr.ErUnknown, "%s", err)
}
