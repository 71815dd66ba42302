package sqlengine

import (
	"slices"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Connection attributes (CLIENT_CONNECT_ATTRS): the name-value pairs a
// client sends in its handshake response (_client_name, _os, _pid,
// program_name, an application's own), kept with the connection and
// shown as MySQL shows them, in performance_schema.session_connect_attrs
// (every connection) and session_account_connect_attrs (the connections
// of the querying session's account). vitess reads past them and keeps
// nothing, so the connection wrapper takes them from the response it
// already checks (handshake.go).

type connAttr struct{ name, value string }

// MySQL's column widths: longer names and values are cut to them.
const (
	maxAttrName  = 32
	maxAttrValue = 1024
)

// parseConnAttrs returns a HandshakeResponse41's (payload p) connection
// attributes in the order sent; a block that ends early yields the
// attributes before it.
func parseConnAttrs(p []byte) []connAttr {
	if len(p) < 4 || (uint32(p[0])|uint32(p[1])<<8|uint32(p[2])<<16|uint32(p[3])<<24)&0x100000 == 0 {
		return nil
	}
	pos := handshakeAttrsAt(p)
	if pos < 0 {
		return nil
	}
	l, next, ok := lenEnc(p, pos)
	if !ok || l > uint64(len(p)-next) {
		return nil
	}
	blk := p[next : next+int(l)]
	var out []connAttr
	for len(blk) > 0 {
		name, rest, ok := lenEncBytes(blk)
		if !ok {
			break
		}
		value, rest, ok := lenEncBytes(rest)
		if !ok {
			break
		}
		out = append(out, connAttr{cutRunes(name, maxAttrName), cutRunes(value, maxAttrValue)})
		blk = rest
	}
	return out
}

// lenEncBytes splits a length-encoded string off the front of b.
func lenEncBytes(b []byte) (s, rest []byte, ok bool) {
	l, next, ok := lenEnc(b, 0)
	if !ok || l > uint64(len(b)-next) {
		return nil, nil, false
	}
	return b[next : next+int(l)], b[next+int(l):], true
}

// cutRunes copies b into a string of at most n characters (bytes that
// are not UTF-8 count one each).
func cutRunes(b []byte, n int) string {
	i := 0
	for k := 0; k < n && i < len(b); k++ {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return string(b[:i])
}

// registerConnectAttrs registers the two performance_schema tables.
func (e *Engine) registerConnectAttrs() {
	sch := func() sql.Schema {
		col := func(name string, t sql.Type) *sql.Column { return &sql.Column{Name: name, Type: t, Nullable: false} }
		return sql.Schema{
			col("PROCESSLIST_ID", types.Uint64),
			col("ATTR_NAME", types.MustCreateStringWithDefaults(sqltypes.VarChar, maxAttrName)),
			col("ATTR_VALUE", types.MustCreateStringWithDefaults(sqltypes.VarChar, maxAttrValue)),
			col("ORDINAL_POSITION", types.Int32),
		}
	}
	e.RegisterSystemTable(SystemTable{Name: "session_connect_attrs", Schema: sch(),
		Rows: func(ctx *sql.Context) ([]sql.Row, error) { return e.connectAttrRows(ctx, false), nil }})
	e.RegisterSystemTable(SystemTable{Name: "session_account_connect_attrs", Schema: sch(),
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
			rows = append(rows, sql.Row{uint64(s.ID()), a.name, a.value, int32(i)})
		}
	}
	return rows
}
