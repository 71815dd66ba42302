package sqlengine

import (
	"context"
	"strconv"
	"strings"
)

// SHOW ERRORS [LIMIT [offset,] n], SHOW COUNT(*) ERRORS and SHOW
// COUNT(*) WARNINGS, which GMS refused (1105 "unsupported feature"):
// the previous statement's conditions of level Error (a failed
// statement's error among them, diagnostics.go), and the counts
// @@error_count and @@warning_count read. Like SHOW WARNINGS they leave
// the conditions as they are.

const (
	showErrorsPattern      = `SHOW ERRORS(?: LIMIT (\d+)(?: ?, ?(\d+))?)?`
	showCountErrorsPattern = `SHOW COUNT\( ?\* ?\) (ERRORS|WARNINGS)`
)

func (e *Engine) registerDiagnosticStatements() {
	e.RegisterAdmin(showErrorsPattern, 0, e.showErrors)
	e.RegisterAdmin(showCountErrorsPattern, 0, e.showCountConditions)
}

// showErrors answers SHOW ERRORS [LIMIT [offset,] n].
func (e *Engine) showErrors(_ context.Context, s *Session, m []string) (*AdminResult, error) {
	offset, limit := 0, -1
	if m[1] != "" {
		limit, _ = strconv.Atoi(m[1])
		if m[2] != "" {
			offset, limit = limit, 0
			limit, _ = strconv.Atoi(m[2])
		}
	}
	res := &AdminResult{Columns: []string{"Level", "Code", "Message"}}
	i := 0
	for _, w := range s.Warnings() {
		if w.Level != "Error" {
			continue
		}
		if i >= offset && (limit < 0 || len(res.Rows) < limit) {
			res.Rows = append(res.Rows, []*string{Str(w.Level), Str(strconv.Itoa(w.Code)), Str(w.Message)})
		}
		i++
	}
	return res, nil
}

// showCountConditions answers SHOW COUNT(*) ERRORS and SHOW COUNT(*)
// WARNINGS, as MySQL names their columns.
func (e *Engine) showCountConditions(_ context.Context, s *Session, m []string) (*AdminResult, error) {
	nerr, all := 0, 0
	for _, w := range s.Warnings() {
		all++
		if w.Level == "Error" {
			nerr++
		}
	}
	if strings.EqualFold(m[1], "ERRORS") {
		return &AdminResult{Columns: []string{"@@session.error_count"}, Rows: [][]*string{{Str(strconv.Itoa(nerr))}}}, nil
	}
	return &AdminResult{Columns: []string{"@@session.warning_count"}, Rows: [][]*string{{Str(strconv.Itoa(all))}}}, nil
}
