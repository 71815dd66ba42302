package sqlengine

import (
	"context"
	"errors"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// errHandler wraps GMS's protocol handler so every error a client sees
// passes through clientError, the one place where error codes are fixed
// up to what MySQL clients expect.
type errHandler struct {
	mysql.Handler
	e *Engine
}

func (e *Engine) wrapHandler(h mysql.Handler) (mysql.Handler, error) {
	return &errHandler{Handler: h, e: e}, nil
}

func (h *errHandler) ConnectionClosed(c *mysql.Conn) {
	h.Handler.ConnectionClosed(c)
	h.e.connectionClosed(c.ConnectionID)
}

func (h *errHandler) ComInitDB(c *mysql.Conn, schema string) error {
	return clientError(h.Handler.ComInitDB(c, schema))
}

func (h *errHandler) ComQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) error {
	return clientError(h.Handler.ComQuery(ctx, c, q, cb))
}

func (h *errHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) (string, error) {
	rest, err := h.Handler.ComMultiQuery(ctx, c, q, cb)
	return rest, clientError(err)
}

func (h *errHandler) ComPrepare(ctx context.Context, c *mysql.Conn, q string, p *mysql.PrepareData) ([]*querypb.Field, error) {
	f, err := h.Handler.ComPrepare(ctx, c, q, p)
	if err == nil && p != nil && p.ParamsCount == 1 {
		if s := h.e.session(c.ConnectionID); s != nil {
			if plan := h.e.planPointSelect(s, q, f); plan != nil {
				h.e.fast.put(c.ConnectionID, q, plan)
			}
		}
	}
	return f, clientError(err)
}

func (h *errHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, p *mysql.PrepareData, cb func(*sqltypes.Result) error) error {
	if plan := h.e.fast.get(c.ConnectionID, p.PrepareStmt); plan != nil {
		if s := h.e.session(c.ConnectionID); s != nil {
			if ok, err := h.e.execPointSelect(ctx, s, plan, p.BindVars, cb); ok {
				return clientError(err)
			}
		}
	}
	return clientError(h.Handler.ComStmtExecute(ctx, c, p, cb))
}

func (h *errHandler) ComParsedQuery(ctx context.Context, c *mysql.Conn, q string, parsed ast.Statement, cb mysql.ResultSpoolFn) error {
	if x, ok := h.Handler.(mysql.ExtendedHandler); ok {
		return clientError(x.ComParsedQuery(ctx, c, q, parsed, cb))
	}
	return clientError(h.Handler.ComQuery(ctx, c, q, cb))
}

func (h *errHandler) ComPrepareParsed(ctx context.Context, c *mysql.Conn, q string, parsed ast.Statement, p *mysql.PrepareData) (mysql.ParsedQuery, []*querypb.Field, error) {
	if x, ok := h.Handler.(mysql.ExtendedHandler); ok {
		pq, f, err := x.ComPrepareParsed(ctx, c, q, parsed, p)
		return pq, f, clientError(err)
	}
	return nil, nil, errors.New("prepare of parsed statements is not supported")
}

func (h *errHandler) ComExecuteBound(ctx context.Context, c *mysql.Conn, q string, bound mysql.BoundQuery, cb mysql.ResultSpoolFn) error {
	if x, ok := h.Handler.(mysql.ExtendedHandler); ok {
		return clientError(x.ComExecuteBound(ctx, c, q, bound, cb))
	}
	return errors.New("execute of bound statements is not supported")
}

func (h *errHandler) ComBind(ctx context.Context, c *mysql.Conn, q string, pq mysql.ParsedQuery, p *mysql.PrepareData) (mysql.BoundQuery, []*querypb.Field, error) {
	if x, ok := h.Handler.(mysql.ExtendedHandler); ok {
		bq, f, err := x.ComBind(ctx, c, q, pq, p)
		return bq, f, clientError(err)
	}
	return nil, nil, errors.New("bind is not supported")
}

// clientError fixes the codes GMS reports as 1105 (unknown error) where
// MySQL has a specific one clients act on.
func clientError(err error) error {
	if err == nil {
		return nil
	}
	err = toMySQLError(err)
	var se *mysql.SQLError
	if !errors.As(err, &se) || se.Num != mysql.ERUnknownError {
		return err
	}
	msg := se.Message
	switch {
	case strings.HasPrefix(msg, "syntax error"):
		return mysql.NewSQLError(1064 /* ER_PARSE_ERROR */, "42000", "You have an error in your SQL syntax; %s", escape(msg))
	case strings.Contains(msg, "database not found"):
		return mysql.NewSQLError(mysql.ERBadDb, "42000", "%s", escape(msg))
	case strings.Contains(msg, "table not found"):
		return mysql.NewSQLError(mysql.ERNoSuchTable, "42S02", "%s", escape(msg))
	case strings.HasPrefix(msg, "command denied to user"):
		return mysql.NewSQLError(1142 /* ER_TABLEACCESS_DENIED_ERROR */, "42000", "%s", escape(msg))
	case strings.HasPrefix(msg, "Access denied for user"):
		return mysql.NewSQLError(mysql.ERDBAccessDenied, "42000", "%s", escape(msg))
	case strings.Contains(msg, "packet too large") || strings.Contains(msg, "max_allowed_packet"):
		return mysql.NewSQLError(mysql.ERNetPacketTooLarge, mysql.SSNetError, "%s", escape(msg))
	}
	return err
}

func (h *errHandler) ComRegisterReplica(c *mysql.Conn, host string, port uint16, user, password string) error {
	if x, ok := h.Handler.(mysql.BinlogReplicaHandler); ok {
		return clientError(x.ComRegisterReplica(c, host, port, user, password))
	}
	return mysql.NewSQLError(mysql.ERUnknownComError, mysql.SSUnknownComError, "replication is not supported")
}

func (h *errHandler) ComBinlogDumpGTID(c *mysql.Conn, file string, pos uint64, set mysql.GTIDSet) error {
	if x, ok := h.Handler.(mysql.BinlogReplicaHandler); ok {
		return clientError(x.ComBinlogDumpGTID(c, file, pos, set))
	}
	return mysql.NewSQLError(mysql.ERUnknownComError, mysql.SSUnknownComError, "replication is not supported")
}
