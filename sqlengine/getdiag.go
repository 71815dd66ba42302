package sqlengine

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
)

// GET [CURRENT] DIAGNOSTICS, which vitess does not parse, answered from
// the session's diagnostics area (the previous statement's conditions,
// which it leaves in place, as MySQL does): statement items NUMBER and
// ROW_COUNT, and CONDITION n items MYSQL_ERRNO, MESSAGE_TEXT,
// RETURNED_SQLSTATE, CLASS_ORIGIN, SUBCLASS_ORIGIN and the name items
// (empty), into user variables. Stored programs' local variables and
// GET STACKED DIAGNOSTICS (handlers) are not offered: Petrel has no
// stored programs.

const getDiagnosticsPattern = `GET (?:CURRENT )?DIAGNOSTICS (.+)`

var (
	diagCondition = regexp.MustCompile(`(?i)^CONDITION (@?[A-Za-z0-9_]+) (.+)$`)
	diagItem      = regexp.MustCompile(`(?i)^@([A-Za-z0-9_$.]+|` + "`[^`]+`" + `) ?= ?([A-Z_]+)$`)
)

func (e *Engine) getDiagnostics(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	sctx := e.NewContext(ctx, s)
	spec := strings.TrimSpace(m[1])
	cond := 0
	if cm := diagCondition.FindStringSubmatch(spec); cm != nil {
		n, err := conditionNumber(sctx, cm[1])
		if err != nil {
			return nil, err
		}
		cond, spec = n, cm[2]
	}
	// The conditions in the order they were raised.
	conds := s.Warnings()
	if cond != 0 && (cond < 1 || cond > len(conds)) {
		// A condition of its own, not a failed statement (MySQL's and
		// MariaDB's); the variables keep their values.
		s.Warn(&sql.Warning{Level: "Error", Code: mysqlerr.ErDaInvalidConditionNumber, Message: "Invalid condition number"})
		return &AdminResult{}, nil
	}
	for _, item := range strings.Split(spec, ",") {
		im := diagItem.FindStringSubmatch(strings.TrimSpace(item))
		if im == nil {
			return nil, mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; GET DIAGNOSTICS item near '%s'", strings.TrimSpace(item))
		}
		name := strings.Trim(im[1], "`")
		what := strings.ToUpper(im[2])
		var v any
		var typ sql.Type = types.LongText
		if cond == 0 {
			switch what {
			case "NUMBER":
				v, typ = int64(len(conds)), types.Int64
			case "ROW_COUNT":
				v, typ = s.GetLastQueryInfoInt(sql.RowCount), types.Int64
			default:
				return nil, mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; %s is not a statement information item", what)
			}
		} else {
			w := conds[cond-1]
			state := mysqlerr.State(w.Code)
			switch what {
			case "MYSQL_ERRNO":
				v, typ = int64(w.Code), types.Int64
			case "MESSAGE_TEXT":
				v = w.Message
			case "RETURNED_SQLSTATE":
				v = state
			case "CLASS_ORIGIN", "SUBCLASS_ORIGIN":
				v = sqlstateOrigin(state, what == "SUBCLASS_ORIGIN")
			case "CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "CATALOG_NAME", "SCHEMA_NAME",
				"TABLE_NAME", "COLUMN_NAME", "CURSOR_NAME":
				v = ""
			default:
				return nil, mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; %s is not a condition information item", what)
			}
		}
		if err := s.SetUserVariable(sctx, name, v, typ); err != nil {
			return nil, err
		}
	}
	return &AdminResult{}, nil
}

// conditionNumber reads CONDITION's operand: a number or a user variable.
func conditionNumber(ctx *sql.Context, tok string) (int, error) {
	if strings.HasPrefix(tok, "@") {
		_, v, err := ctx.Session.GetUserVariable(ctx, tok[1:])
		if err != nil {
			return 0, err
		}
		n, ok := arith.ToInt64(v)
		if !ok {
			return -1, nil
		}
		return int(n), nil
	}
	n, err := strconv.Atoi(tok)
	if err != nil {
		return 0, mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; condition number %q", tok)
	}
	return n, nil
}

// sqlstateOrigin is CLASS_ORIGIN / SUBCLASS_ORIGIN: 'ISO 9075' for the
// standard's classes (and, for the subclass, subclass 000), else 'MySQL'.
func sqlstateOrigin(state string, subclass bool) string {
	if len(state) != 5 {
		return "MySQL"
	}
	std := func(c byte) bool { return c >= '0' && c <= '4' || c >= 'A' && c <= 'H' }
	if !std(state[0]) {
		return "MySQL"
	}
	if subclass && state[2:] != "000" {
		return "MySQL"
	}
	return "ISO 9075"
}
