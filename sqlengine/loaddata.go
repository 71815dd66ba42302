package sqlengine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
)

// LOAD DATA's input read as MySQL reads it. GMS's reader split lines at
// every line terminator and fields at every field terminator, escaped or
// enclosed ones too, dropped every escape character (a tab written \t
// was read as 't'), refused any field not enclosed when FIELDS
// ENCLOSED BY was given (OPTIONALLY ignored), read the text NULL as
// NULL and an empty number field as its default. Here, per MySQL's
// documented format:
//   - the escape character (ESCAPED BY, '\' by default) makes the next
//     character literal, and \0 \b \n \r \t \Z are NUL, backspace,
//     newline, return, tab and Ctrl-Z; an unenclosed field that is \N
//     alone is NULL, as is the word NULL unenclosed when ENCLOSED BY is
//     given;
//   - a field that starts with the ENCLOSED BY character ends at that
//     character followed by a field or line terminator; a doubled one
//     inside is one; terminators inside are data;
//   - LINES STARTING BY skips to after the prefix, and a line without it
//     is skipped; IGNORE n LINES skips the first n lines;
//   - a line with too few fields gives the missing columns their zero
//     value, 0 or '' (warning 1261 for each); one with too many drops
//     the rest (1262);
//     in strict mode, without IGNORE or LOCAL, either is the error;
//   - an empty field is the empty string, converted as an INSERT
//     converts '' (error 1366 for a number in strict mode).
// The fixed-width forms (empty FIELDS or LINES TERMINATED BY) and
// multi-character ENCLOSED BY or ESCAPED BY stay GMS's.

// ldField is one field read from the input.
type ldField struct {
	val  string
	null bool
}

// ldReader reads LOAD DATA records from r.
type ldReader struct {
	r                          *bufio.Reader
	fieldTerm, lineTerm, start string
	enc, esc                   byte // 0: none
	hasEnc, hasEsc             bool
}

// peekIs reports whether the input continues with s.
func (l *ldReader) peekIs(s string) bool {
	b, err := l.r.Peek(len(s))
	return err == nil && string(b) == s
}

// skipLine discards the input up to and including the next line
// terminator; false at the end of the input.
func (l *ldReader) skipLine() (bool, error) {
	for {
		if l.peekIs(l.lineTerm) {
			_, err := l.r.Discard(len(l.lineTerm))
			return true, err
		}
		if _, err := l.r.ReadByte(); err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
	}
}

// findStart moves past the next LINES STARTING BY prefix, skipping
// lines without one; false at the end of the input.
func (l *ldReader) findStart() (bool, error) {
	for {
		if l.peekIs(l.start) {
			_, err := l.r.Discard(len(l.start))
			return true, err
		}
		if l.peekIs(l.lineTerm) {
			if _, err := l.r.Discard(len(l.lineTerm)); err != nil {
				return false, err
			}
			continue
		}
		if _, err := l.r.ReadByte(); err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
	}
}

// unescape is the character c written after the escape character.
func unescape(c byte) byte {
	switch c {
	case '0':
		return 0
	case 'b':
		return '\b'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'Z':
		return 26
	}
	return c
}

// record reads the next record's fields; nil at the end of the input.
func (l *ldReader) record() ([]ldField, error) {
	if _, err := l.r.Peek(1); err == io.EOF {
		return nil, nil
	}
	if l.start != "" {
		ok, err := l.findStart()
		if err != nil || !ok {
			return nil, err
		}
	}
	var fields []ldField
	var b strings.Builder
	for {
		b.Reset()
		enclosed := false
		if l.hasEnc {
			if c, err := l.r.Peek(1); err == nil && c[0] == l.enc {
				enclosed = true
				_, _ = l.r.Discard(1)
			}
		}
		escapedN := false
		endRecord := false
		for {
			if !enclosed {
				if l.peekIs(l.fieldTerm) {
					_, _ = l.r.Discard(len(l.fieldTerm))
					break
				}
				if l.peekIs(l.lineTerm) {
					_, _ = l.r.Discard(len(l.lineTerm))
					endRecord = true
					break
				}
			}
			c, err := l.r.ReadByte()
			if err == io.EOF {
				endRecord = true
				break
			}
			if err != nil {
				return nil, err
			}
			switch {
			case l.hasEsc && c == l.esc:
				n, err := l.r.ReadByte()
				if err == io.EOF {
					b.WriteByte(c)
					continue
				}
				if err != nil {
					return nil, err
				}
				if n == 'N' && !enclosed && b.Len() == 0 {
					escapedN = true
				}
				b.WriteByte(unescape(n))
			case enclosed && c == l.enc:
				if next, err := l.r.Peek(1); err == nil && next[0] == l.enc {
					_, _ = l.r.Discard(1)
					b.WriteByte(c)
					continue
				}
				if l.peekIs(l.fieldTerm) {
					_, _ = l.r.Discard(len(l.fieldTerm))
					enclosed = false
					goto fieldDone
				}
				if l.peekIs(l.lineTerm) {
					_, _ = l.r.Discard(len(l.lineTerm))
					endRecord = true
					goto fieldDone
				}
				if _, err := l.r.Peek(1); err == io.EOF {
					endRecord = true
					goto fieldDone
				}
				b.WriteByte(c) // not followed by a terminator: data
			default:
				b.WriteByte(c)
			}
		}
		if escapedN && b.String() == "N" {
			fields = append(fields, ldField{null: true})
		} else if !enclosed && l.hasEnc && b.String() == "NULL" {
			fields = append(fields, ldField{null: true})
		} else {
			fields = append(fields, ldField{val: b.String()})
		}
		if endRecord {
			return fields, nil
		}
		continue
	fieldDone:
		fields = append(fields, ldField{val: b.String()})
		if endRecord {
			return fields, nil
		}
	}
}

// buildLoadData builds n's rows from MySQL's format; false leaves n to
// GMS (the fixed-width forms).
func (e *Engine) buildLoadData(ctx *sql.Context, n *plan.LoadData) (sql.RowIter, bool, error) {
	if n.FieldsTerminatedBy == "" || n.LinesTerminatedBy == "" || len(n.FieldsEnclosedBy) > 1 || len(n.FieldsEscapedBy) > 1 {
		return nil, false, nil
	}
	var reader io.ReadCloser
	if n.Local {
		_, v, _ := sql.SystemVariables.GetGlobal("local_infile")
		if on, _ := v.(int8); on == 0 {
			return nil, true, mysqlerr.New(3948, "Loading local data is disabled; this must be enabled on both the client and server sides")
		}
		r, err := ctx.LoadInfile(n.File)
		if err != nil {
			return nil, true, err
		}
		reader = r
	} else {
		if _, dir, _ := sql.SystemVariables.GetGlobal("secure_file_priv"); dir != nil {
			if d, ok := dir.(string); ok && d != "" && !strings.HasPrefix(n.File, strings.TrimSuffix(d, "/")+"/") {
				return nil, true, mysqlerr.New(mysqlerr.ErOptionPreventsStatement, "The MySQL server is running with the --secure-file-priv option so it cannot execute this statement")
			}
		}
		f, err := os.Open(n.File)
		if err != nil {
			return nil, true, sql.ErrLoadDataCannotOpen.New(err.Error())
		}
		reader = f
	}
	l := &ldReader{r: bufio.NewReaderSize(reader, 1<<16), fieldTerm: n.FieldsTerminatedBy, lineTerm: n.LinesTerminatedBy, start: n.LinesStartingBy}
	if n.FieldsEnclosedBy != "" {
		l.enc, l.hasEnc = n.FieldsEnclosedBy[0], true
	}
	if n.FieldsEscapedBy != "" {
		l.esc, l.hasEsc = n.FieldsEscapedBy[0], true
	}
	for i := int64(0); i < n.IgnoreNum; i++ {
		ok, err := l.skipLine()
		if err != nil {
			reader.Close()
			return nil, true, err
		}
		if !ok {
			break
		}
	}
	sch := n.Schema()
	colNames := n.ColNames
	if len(colNames) == 0 {
		for _, c := range sch {
			colNames = append(colNames, c.Name)
		}
	}
	source := ""
	if len(sch) > 0 {
		source = sch[0].Source
	}
	// The field each column's value comes from, or a user variable (-1).
	fieldToCol := make([]int, len(n.UserVars))
	for f, c := 0, 0; f < len(n.UserVars) && c < len(colNames); f++ {
		if n.UserVars[f] != nil {
			fieldToCol[f] = -1
			continue
		}
		fieldToCol[f] = sch.IndexOf(colNames[c], source)
		c++
	}
	return &loadDataIter{l: l, reader: reader, n: n, fieldToCol: fieldToCol}, true, nil
}

// loadDataIter gives a row per record, as GMS's LOAD DATA rows are made
// (the columns' values in the statement's column order, user variables
// set, SET expressions applied), from the fields ldReader reads.
type loadDataIter struct {
	l          *ldReader
	reader     io.ReadCloser
	n          *plan.LoadData
	fieldToCol []int
	rowNum     int
}

func (it *loadDataIter) Next(ctx *sql.Context) (sql.Row, error) {
	fields, err := it.l.record()
	if err != nil {
		return nil, err
	}
	if fields == nil {
		return nil, io.EOF
	}
	it.rowNum++
	n := it.n
	exprs := make([]sql.Expression, len(n.DestSch))
	fieldRow := make(sql.Row, len(fields))
	for i, f := range fields {
		if !f.null {
			fieldRow[i] = f.val
		}
	}
	want := len(n.UserVars)
	if want > 0 && len(fields) != want {
		// One warning per missing field, or one for the extra ones.
		code, msg, times := 1261, fmt.Sprintf("Row %d doesn't contain data for all columns", it.rowNum), want-len(fields)
		if len(fields) > want {
			code, msg, times = 1262, fmt.Sprintf("Row %d was truncated; it contained more data than there were input columns", it.rowNum), 1
		}
		if strictMode(ctx) && !n.IsIgnore {
			// Strict mode makes the warning the statement's error, as
			// for an INSERT's (LOCAL implies IGNORE).
			return nil, mysqlerr.New(code, "%s", msg)
		}
		for ; times > 0; times-- {
			ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: code, Message: msg})
		}
	}
	exprIdx := 0
	for f := 0; f < len(n.UserVars); f++ {
		if n.UserVars[f] != nil {
			if f < len(fields) {
				sf := n.UserVars[f].(*expression.SetField)
				uv := sf.LeftChild.(*expression.UserVar)
				val, err := sf.RightChild.Eval(ctx, fieldRow)
				if err != nil {
					return nil, err
				}
				if err := ctx.SetUserVariable(ctx, uv.Name, val, types.ApproximateTypeFromValue(val)); err != nil {
					return nil, err
				}
			}
			continue
		}
		if exprIdx >= len(exprs) {
			continue
		}
		switch {
		case f >= len(fields):
			// A missing field: the column's zero value (MySQL resets
			// the field: 0, '', not the column's DEFAULT).
			if c := it.fieldToCol[f]; c >= 0 && c < len(n.DestSch) {
				exprs[exprIdx] = expression.NewLiteral(n.DestSch[c].Type.Zero(), n.DestSch[c].Type)
			} else {
				exprs[exprIdx] = expression.NewLiteral(nil, types.Null)
			}
		case fields[f].null:
			exprs[exprIdx] = expression.NewLiteral(nil, types.Null)
		default:
			exprs[exprIdx] = expression.NewLiteral(fields[f].val, types.LongText)
		}
		exprIdx++
	}
	// SET col = expr replaces the column's value.
	for f, e := 0, 0; len(n.SetExprs) > 0 && f < len(it.fieldToCol) && e < len(exprs); f++ {
		c := it.fieldToCol[f]
		if c == -1 {
			continue
		}
		if se := n.SetExprs[c]; se != nil {
			v, err := se.Eval(ctx, fieldRow)
			if err != nil {
				return nil, err
			}
			exprs[e] = expression.NewLiteral(v, se.Type())
		}
		e++
	}
	if len(n.ColNames) == 0 {
		for i, ex := range exprs {
			if ex != nil {
				continue
			}
			col := n.DestSch[i]
			if !col.Nullable && col.Default == nil && !col.AutoIncrement {
				return nil, sql.ErrInsertIntoNonNullableDefaultNullColumn.New(col.Name)
			}
			exprs[i] = col.Default
		}
	}
	row := make(sql.Row, len(exprs))
	var later []int
	for i, ex := range exprs {
		if ex == nil {
			continue
		}
		if d, ok := ex.(*sql.ColumnDefaultValue); ok && !d.IsLiteral() {
			later = append(later, i) // may read other columns
			continue
		}
		if row[i], err = ex.Eval(ctx, row); err != nil {
			return nil, err
		}
	}
	for _, i := range later {
		if row[i], err = exprs[i].Eval(ctx, row); err != nil {
			return nil, err
		}
	}
	return row, nil
}

func (it *loadDataIter) Close(*sql.Context) error {
	if it.reader == nil {
		return nil
	}
	err := it.reader.Close()
	it.reader = nil
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
