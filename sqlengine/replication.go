package sqlengine

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"petrel/sqlengine/sqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/sqlengine/wire"
	"petrel/storage"
)

// The source side of replication plugs in here: sqlengine authenticates
// and authorises the replica and collects what its session announced; the
// registered ReplicationSource streams the log.

// ReplicaInfo describes a registered replica (SHOW REPLICAS).
type ReplicaInfo struct {
	ConnID      uint32
	ServerID    uint32
	Host        string
	Port        uint16
	User        string
	ReplicaUUID string
}

// DumpRequest is a replica's request to stream the binary log.
type DumpRequest struct {
	ConnID   uint32
	ServerID uint32
	User     string
	// File and Pos start a file/position dump; with AutoPosition the
	// source starts after GTIDs instead.
	File         string
	Pos          uint64
	AutoPosition bool
	GTIDs        *base.GTIDSet
	// HeartbeatPeriod is what the replica asked for (0: none).
	HeartbeatPeriod time.Duration
	// ChecksumAware: the replica announced it reads CRC32 trailers.
	ChecksumAware bool
	// SemiSync: the replica announced it acknowledges transactions.
	SemiSync bool
	// MariaDB: the replica set @mariadb_slave_capability (MariaDB's
	// replicas do, before the dump).
	MariaDB     bool
	ReplicaUUID string
	// Conn is the connection, owned by the dump until it returns.
	Conn net.Conn
}

// ReplicationSource serves replicas.
type ReplicationSource interface {
	Register(ReplicaInfo) error
	Dump(ctx context.Context, req DumpRequest) error
	Disconnected(connID uint32)
}

// SetReplicationSource installs the source side (before Listen).
func (e *Engine) SetReplicationSource(s ReplicationSource) { e.repl = s }

// ComRegisterReplica implements mysql.BinlogReplicaHandler.
func (h *errHandler) ComRegisterReplica(c *mysql.Conn, _ string, _ uint16, _ string, _ string) error {
	cc, ok := c.Conn.(*wire.Conn)
	if !ok || h.e.repl == nil {
		return mysqlerr.New(mysqlerr.ErUnknownCom, "replication is not available on this server")
	}
	_, end, err := h.begin(context.Background(), c)
	if err != nil {
		return err
	}
	defer end()
	r, err := cc.TakeRegister()
	if err != nil {
		return mysqlerr.New(mysqlerr.ErMalformedPacket, "%s", err.Error())
	}
	s, sctx, err := h.replSession(c)
	if err != nil {
		return err
	}
	info := ReplicaInfo{ConnID: c.ConnectionID, ServerID: r.ServerID, Host: r.Host, Port: r.Port, User: s.Client().User, ReplicaUUID: userVarString(sctx, s, "slave_uuid", "replica_uuid")}
	if info.Host == "" {
		if host, _, err := net.SplitHostPort(c.RemoteAddr().String()); err == nil {
			info.Host = host
		}
	}
	return h.e.repl.Register(info)
}

// ComBinlogDumpGTID implements mysql.BinlogReplicaHandler; wire.Conn routes
// COM_BINLOG_DUMP here too. It returns when the stream ends.
func (h *errHandler) ComBinlogDumpGTID(c *mysql.Conn, _ string, _ uint64, _ mysql.GTIDSet) error {
	cc, ok := c.Conn.(*wire.Conn)
	if !ok || h.e.repl == nil {
		return mysqlerr.New(mysqlerr.ErUnknownCom, "replication is not available on this server")
	}
	// A dump runs until CloseDumps, after the client connections closed:
	// it is not a statement shutdown waits for.
	if cs, ok := c.ClientData.(*connState); ok {
		cs.dump.Store(true)
	}
	ctx, end, err := h.begin(context.Background(), c)
	if err != nil {
		return err
	}
	defer end()
	d, err := cc.TakeDump()
	if err != nil {
		return mysqlerr.New(mysqlerr.ErMasterFatalReadingLog, "%s", err.Error())
	}
	s, sctx, err := h.replSession(c)
	if err != nil {
		return err
	}
	req := DumpRequest{
		ConnID: c.ConnectionID, ServerID: d.ServerID, User: s.Client().User,
		File: d.File, Pos: d.Pos, AutoPosition: d.GTIDs != nil, GTIDs: d.GTIDs,
		ReplicaUUID: userVarString(sctx, s, "slave_uuid", "replica_uuid"),
		Conn:        cc.Detach(),
	}
	if ns, err := strconv.ParseFloat(userVarString(sctx, s, "master_heartbeat_period", "source_heartbeat_period"), 64); err == nil && ns > 0 {
		req.HeartbeatPeriod = time.Duration(ns)
	}
	switch strings.ToUpper(userVarString(sctx, s, "master_binlog_checksum", "source_binlog_checksum")) {
	case "CRC32":
		req.ChecksumAware = true
	}
	req.MariaDB = userVarString(sctx, s, "mariadb_slave_capability") != ""
	for _, v := range []string{"rpl_semi_sync_slave", "rpl_semi_sync_replica"} {
		if x := userVarString(sctx, s, v); x != "" && x != "0" {
			req.SemiSync = true
		}
	}
	if err := h.e.repl.Dump(ctx, req); err != nil {
		return sqlerr.ToMySQL(err)
	}
	return nil
}

// replSession returns the connection's session after checking it holds
// REPLICATION SLAVE.
func (h *errHandler) replSession(c *mysql.Conn) (*Session, *sql.Context, error) {
	s, err := h.e.connSession(context.Background(), c, "")
	if err != nil {
		return nil, nil, err
	}
	sctx := h.e.NewContext(context.Background(), s)
	udb := h.e.gms.Analyzer.Catalog.MySQLDb
	if udb.Enabled() && !udb.UserHasPrivileges(sctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{}, sql.PrivilegeType_ReplicationSlave)) {
		return nil, nil, mysqlerr.New(mysqlerr.ErSpecificAccessDenied,
			"Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this operation")
	}
	return s, sctx, nil
}

// userVarString reads the first set user variable of names as text.
func userVarString(ctx *sql.Context, s *Session, names ...string) string {
	for _, n := range names {
		_, v, err := s.GetUserVariable(ctx, n)
		if err == nil && v != nil {
			switch x := v.(type) {
			case []byte:
				return string(x)
			default:
				return fmt.Sprint(x)
			}
		}
	}
	return ""
}

// ExecReplicated runs one statement replicated from another server (DDL
// from a QUERY event) in database db, as the applier: read_only does not
// apply, the commit is logged under the origin's GTID, and with
// noFKChecks (the event's OPTION_NO_FOREIGN_KEY_CHECKS) it runs with
// foreign_key_checks=0, as it ran on its source.
func (e *Engine) ExecReplicated(ctx context.Context, db, query string, noFKChecks bool, o storage.Origin) error {
	s := e.NewInternalSession()
	s.origin = &o
	sctx := e.NewContext(ctx, s)
	if noFKChecks {
		if err := s.SetSessionVariable(sctx, "foreign_key_checks", int8(0)); err != nil {
			return err
		}
	}
	sctx = sctx.WithQuery(query)
	if db != "" {
		sctx.SetCurrentDatabase(db)
	}
	if err := s.CommandBegin(); err != nil {
		return err
	}
	defer s.SessionEnd()
	defer s.CommandEnd()
	if m := alterRequireRE.FindStringSubmatch(query); m != nil {
		// GMS does not parse it (requiressl.go).
		return sqlerr.ToMySQL(e.alterRequire(ctx, s, query, m))
	}
	if isRoutineStatement(query) { // storedfuncs.go: vitess does not parse it
		return e.routineStatement(sctx, s, query)
	}
	return e.queryToEnd(sctx, query)
}
