package sqlengine

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"

	"petrel/sqlengine/sysschema"

	"petrel/sqlengine/auth"

	"petrel/sqlengine/sqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlcompress"
	"petrel/internal/mysqlerr"
	"petrel/sqlengine/wire"
)

// registerConnectAttrs registers the two performance_schema tables.
func (e *Engine) registerConnectAttrs() {
	sch := func() sql.Schema {
		col := func(name string, t sql.Type) *sql.Column { return &sql.Column{Name: name, Type: t, Nullable: false} }
		return sql.Schema{
			col("PROCESSLIST_ID", types.Uint64),
			col("ATTR_NAME", types.MustCreateStringWithDefaults(sqltypes.VarChar, wire.MaxAttrName)),
			col("ATTR_VALUE", types.MustCreateStringWithDefaults(sqltypes.VarChar, wire.MaxAttrValue)),
			col("ORDINAL_POSITION", types.Int32),
		}
	}
	e.RegisterSystemTable(sysschema.Table{Name: "session_connect_attrs", Schema: sch(),
		Rows: func(ctx *sql.Context) ([]sql.Row, error) { return e.connectAttrRows(ctx, false), nil }})
	e.RegisterSystemTable(sysschema.Table{Name: "session_account_connect_attrs", Schema: sch(),
		Rows: func(ctx *sql.Context) ([]sql.Row, error) { return e.connectAttrRows(ctx, true), nil }})
}

// connectAttrRows lists the attributes of every client session (only
// those of the querying session's account when ownAccount), by
// connection id and then in the order the client sent them.
func (e *Engine) connectAttrRows(ctx *sql.Context, ownAccount bool) []sql.Row {
	me := ctx.Session.Client()
	e.sessMu.Lock()
	sessions := make([]*Session, 0, len(e.sessions))
	for _, s := range e.sessions {
		if len(s.attrs) > 0 {
			sessions = append(sessions, s)
		}
	}
	e.sessMu.Unlock()
	slices.SortFunc(sessions, func(a, b *Session) int { return int(a.ID()) - int(b.ID()) })
	var rows []sql.Row
	for _, s := range sessions {
		if c := s.Client(); ownAccount && (c.User != me.User || c.Address != me.Address) {
			continue
		}
		for i, a := range s.attrs {
			rows = append(rows, sql.Row{uint64(s.ID()), a.Name, a.Value, int32(i)})
		}
	}
	return rows
}

// connAccount is the account a login matched and whether it holds SUPER
// or CONNECTION_ADMIN.
func (e *Engine) connAccount(user, host string) (string, bool) {
	udb := e.gms.Analyzer.Catalog.MySQLDb
	if !udb.Enabled() {
		return user + "@" + host, true
	}
	rd := udb.Reader()
	defer rd.Close()
	u := udb.GetUser(rd, user, host, false)
	if u == nil {
		return user + "@" + host, false
	}
	admin := u.IsSuperUser || u.PrivilegeSet.Has(sql.PrivilegeType_Super) || u.PrivilegeSet.HasDynamic("connection_admin")
	return u.User + "@" + u.Host, admin
}

// gatedAuth counts a connection against the limits once its password
// checked out (vitess then sends the ERR packet of a refusal).
type gatedAuth struct {
	mysql.AuthMethod
	gate *wire.Gate
}

func (m gatedAuth) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, addr net.Addr) (mysql.Getter, error) {
	ud, err := m.AuthMethod.HandleAuthPluginData(c, user, serverData, clientData, addr)
	if err != nil {
		return ud, err
	}
	if u, ok := ud.(sql.MysqlConnectionUser); ok && m.gate.RequiresSSL(u.User, u.Host) {
		if cc, ok := c.Conn.(*wire.Conn); !ok || cc.TLSState() == nil {
			// REQUIRE SSL over plaintext: refused as a wrong password is.
			return nil, auth.AccessDenied(user, addr, len(clientData) > 0)
		}
	}
	if err := m.gate.Admit(c, ud); err != nil {
		return nil, err
	}
	return ud, nil
}

// ConnectionAborted implements mysql.Handler: a handshake response vitess
// could not parse gets ER_HANDSHAKE_ERROR (1043) before the connection
// closes, as in MySQL (vitess closes it without a word).
func (h *errHandler) ConnectionAborted(c *mysql.Conn, reason string) error {
	// GMS counts Aborted_connects: before the client hears of it.
	err := h.Handler.ConnectionAborted(c, reason)
	if strings.HasPrefix(reason, "Cannot parse client handshake response") ||
		strings.HasPrefix(reason, "Cannot parse post-SSL client handshake response") {
		if cc, ok := c.Conn.(*wire.Conn); ok {
			cc.RefuseHandshake(reason)
		}
	}
	return err
}

// registerConnStatus adds the gate's status variables.
func (e *Engine) registerConnStatus() {
	g := e.gate
	e.RegisterStatus("Petrel_connections_authenticating", func() any { return uint64(g.Handshaking()) })
	e.RegisterStatus("Petrel_connections_admitted", func() any { return uint64(g.Admitted()) })
	e.RegisterStatus("Petrel_packet_memory", func() any { n, _, _ := g.PacketMemory(); return uint64(n) })
	e.RegisterStatus("Petrel_packet_memory_waits", func() any { _, w, _ := g.PacketMemory(); return w })
	e.RegisterStatus("Petrel_packet_memory_refused", func() any { _, _, r := g.PacketMemory(); return r })
}

// checkPrepare is what COM_STMT_PREPARE's text must pass before vitess
// prepares it: vitess answers a statement that does not parse with 1105
// "Code: INVALID_ARGUMENT", and counts placeholders in 16 bits. It
// returns MySQL's error (1064 ER_PARSE_ERROR, 1390 ER_PS_MANY_PARAM) or
// nil.
func (h *errHandler) checkPrepare(c *mysql.Conn, q string) *mysql.SQLError {
	opts, err := h.Handler.ParserOptionsForConnection(c)
	if err != nil {
		return nil // vitess reports it
	}
	stmt, err := ast.ParseWithOptions(context.Background(), q, opts)
	if err != nil {
		var se *mysql.SQLError
		if errors.As(sqlerr.ClientError(mysqlerr.New(mysqlerr.ErUnknown, "%s", err.Error())), &se) {
			return se
		}
		return nil
	}
	n := 0
	_ = ast.Walk(func(node ast.SQLNode) (bool, error) {
		if v, ok := node.(*ast.SQLVal); ok && strings.HasPrefix(string(v.Val), ":v") {
			n++
		}
		return true, nil
	}, stmt)
	if n > wire.MaxParams {
		return mysqlerr.New(mysqlerr.ErPSManyParam, "Prepared statement contains too many placeholders")
	}
	return nil
}

// haveSSL is have_ssl: YES when the server has a certificate.
func haveSSL(o Options) string {
	if o.TLS != nil {
		return "YES"
	}
	return "DISABLED"
}

// noteCompression sets the session's compression status.
func noteCompression(s *Session, cc *wire.Conn) {
	algo, level := cc.Compression()
	if algo == mysqlcompress.None {
		return
	}
	ctx := sql.NewEmptyContext()
	_ = s.SetStatusVariable(ctx, "Compression", "ON")
	_ = s.SetStatusVariable(ctx, "Compression_algorithm", algo.String())
	if algo == mysqlcompress.Zstd {
		_ = s.SetStatusVariable(ctx, "Compression_level", uint64(level))
	}
}

// compressionStatus are the session status variables of protocol
// compression as MySQL shows them (GMS has Compression as a counter):
// Compression ON/OFF, Compression_algorithm, Compression_level.
func compressionStatus(m map[string]sql.StatusVarValue) {
	for name, def := range map[string]any{"Compression": "OFF", "Compression_algorithm": "", "Compression_level": uint64(0)} {
		m[name] = &sql.ImmutableStatusVarValue{
			Var: &sql.MySQLStatusVariable{Name: name, Scope: sql.StatusVariableScope_Session, Type: types.Text, Default: def},
			Val: def,
		}
	}
}
