package sqlengine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"

	"petrel/internal/mysqlerr"
	"petrel/storage"
)

// Table options of CREATE TABLE that change storage: ROW_FORMAT,
// KEY_BLOCK_SIZE and COMPRESSION (storage/compress.go says what each
// changes). GMS parses them into the CreateTable node's TableOpts but
// hands the table creator only the comment, so the exec override checks
// them (refusing what InnoDB in strict mode refuses) and leaves them on
// the session for Database.createTable, keyed by the table's name.
// SHOW CREATE TABLE prints them back in MySQL's place (after COLLATE,
// before COMMENT) and information_schema.TABLES reports the table's
// files: DATA_LENGTH and INDEX_LENGTH are Pebble's estimate of the bytes
// its rows and index entries take on disk after compression.
//
// ALTER TABLE cannot change them: the SQL parser GMS uses drops ALTER
// TABLE's table options (even COMMENT) without a trace. A rebuilding
// ALTER keeps them (the new definition is the old one's copy).

// tableOptions are the storage options of a CREATE TABLE in progress.
type tableOptions struct {
	db, name     string
	rowFormat    string
	keyBlockSize int
	compression  string
}

// errIllegalHA is MySQL's 1031, what InnoDB in strict mode answers to an
// option value it cannot honour.
func errIllegalHA(table string) error {
	return mysqlerr.New(mysqlerr.ErIllegalHA, "Table storage engine for '%s' doesn't have this option", table)
}

// parseTableOptions checks the storage options among a CREATE TABLE's
// table options (GMS's TableOpts: lower-case names, values as written).
func parseTableOptions(table string, opts map[string]any) (tableOptions, error) {
	var o tableOptions
	str := func(k string) string {
		s, _ := opts[k].(string)
		return strings.Trim(s, "'\"")
	}
	if rf := strings.ToUpper(str("row_format")); rf != "" && rf != "DEFAULT" {
		if !slices.Contains(storage.RowFormats, rf) {
			return o, errIllegalHA(table)
		}
		o.rowFormat = rf
	}
	if kbs := str("key_block_size"); kbs != "" {
		n, err := strconv.Atoi(kbs)
		if err != nil || (n != 0 && !slices.Contains(storage.KeyBlockSizes, n)) {
			return o, errIllegalHA(table)
		}
		// InnoDB (strict): a KEY_BLOCK_SIZE goes with compressed rows only.
		if n != 0 && o.rowFormat != "" && o.rowFormat != storage.RowFormatCompressed {
			return o, errIllegalHA(table)
		}
		o.keyBlockSize = n
	}
	if c := strings.ToLower(str("compression")); c != "" {
		if !slices.Contains(storage.Compressions, c) {
			return o, mysqlerr.New(mysqlerr.ErWrongArguments, "Incorrect arguments to COMPRESSION")
		}
		o.compression = c
	}
	return o, nil
}

// noteTableOptions is the exec override of CREATE TABLE: it checks the
// storage options and leaves them for createTable; GMS then runs the
// statement. CREATE TABLE ... LIKE does not copy them (MySQL does): GMS
// builds it as a plain CREATE TABLE from the source's columns and
// indexes, with nothing left that names the source.
func (e *Engine) noteTableOptions(ctx *sql.Context, n *plan.CreateTable) error {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return nil
	}
	s.tableOpts = nil
	o, err := parseTableOptions(n.Name(), n.TableOpts)
	if err != nil {
		return err
	}
	if o == (tableOptions{}) {
		return nil
	}
	if n.Db != nil {
		o.db = n.Db.Name()
	}
	o.name = n.Name()
	s.tableOpts = &o
	return nil
}

// takeTableOptions sets def's storage options from the CREATE TABLE that
// is creating it (none for any other table).
func takeTableOptions(ctx *sql.Context, def *storage.TableDef) {
	s, ok := ctx.Session.(*Session)
	if !ok || s.tableOpts == nil {
		return
	}
	o := s.tableOpts
	if !strings.EqualFold(o.db, def.Database) || !strings.EqualFold(o.name, def.Name) {
		return
	}
	s.tableOpts = nil
	def.RowFormat, def.KeyBlockSize, def.Compression = o.rowFormat, o.keyBlockSize, o.compression
}

// createOptions is the table options' text as SHOW CREATE TABLE prints
// it (with a leading space; "" for none).
func createOptions(d *storage.TableDef) string {
	var b strings.Builder
	if d.RowFormat != "" {
		b.WriteString(" ROW_FORMAT=" + d.RowFormat)
	}
	if d.KeyBlockSize != 0 {
		b.WriteString(" KEY_BLOCK_SIZE=" + strconv.Itoa(d.KeyBlockSize))
	}
	if d.Compression != "" {
		b.WriteString(" COMPRESSION='" + d.Compression + "'")
	}
	return b.String()
}

// showCreateTable is SHOW CREATE TABLE with the storage options: GMS's
// statement with them put where MySQL prints them, before the COMMENT
// that GMS ends the statement with.
func (e *Engine) showCreateTable(ctx *sql.Context, n *plan.ShowCreateTable, row sql.Row) (sql.RowIter, error) {
	if n.IsView {
		return nil, nil
	}
	rt, ok := n.Child.(*plan.ResolvedTable)
	if !ok {
		return nil, nil
	}
	tb, ok := petrelTable(rt.Table)
	if !ok {
		return nil, nil
	}
	opts := createOptions(&tb.t.Def)
	comment := ""
	if c := tb.Comment(); c != "" {
		comment = " COMMENT='" + strings.ReplaceAll(c, "'", "''") + "'"
	}
	return gmsRows(ctx, n, row, func(r sql.Row) error {
		if len(r) < 2 {
			return nil
		}
		stmt, ok := r[1].(string)
		if !ok || !strings.HasSuffix(stmt, comment) {
			return fmt.Errorf("sqlengine: SHOW CREATE TABLE %s: GMS's statement does not end with its comment", tb.Name())
		}
		text := floatTypesText(&tb.t.Def, timeTypesText(&tb.t.Def, stmt[:len(stmt)-len(comment)]+opts+comment))
		if !e.opts.GMSCreateText {
			text = defaultNullText(tb.t.Schema, text)
			text = enumDefaultText(tb.t.Schema, text)    // enumdefault.go
			text = decimalDefaultText(tb.t.Schema, text) // decdefault.go
		}
		r[1] = text
		return nil
	})
}

// Column ordinals of GMS's information_schema.TABLES rows.
const (
	isTablesSchema, isTablesName, isTablesRowFormat, isTablesRows   = 1, 2, 6, 7
	isTablesAvgRow, isTablesData, isTablesIndex, isTablesCreateOpts = 8, 9, 11, 19
)

// installTableSizes makes cat's information_schema.TABLES report each
// Petrel table's files (tableSizes). GMS's table keeps its row source in
// an exported field of an unexported type, reached by reflection as
// installCardinality does; TestTableCompressionSQL fails if a GMS
// upgrade moves it.
func (e *Engine) installTableSizes(cat *analyzer.Catalog) error {
	return rewriteInfoSchemaRows(cat, information_schema.TablesTableName, e.tableSizes)
}

// tableFiles is what information_schema.TABLES and SHOW TABLE STATUS
// report of a Petrel table's storage.
type tableFiles struct {
	data, index              uint64 // bytes in files (Pebble's estimate)
	rowFormat, createOptions string
}

// tableFilesOf is db.name's tableFiles; ok is false for a table that is
// not Petrel's (a view, information_schema's own). DATA_LENGTH and
// INDEX_LENGTH are Pebble's estimate of the table's files (rows still
// only in the memtable count once flushed); ROW_FORMAT and the options
// are as declared, Dynamic (InnoDB's default) when none is.
func (e *Engine) tableFilesOf(db, name string) (f tableFiles, ok bool, err error) {
	tb := e.store.Catalog().Table(db, name)
	if tb == nil {
		return f, false, nil
	}
	if f.data, f.index, err = e.store.TableDiskUsage(tb); err != nil {
		return f, false, err
	}
	d := &tb.Def
	f.rowFormat = "Dynamic"
	switch {
	case d.RowFormat != "":
		f.rowFormat = d.RowFormat[:1] + strings.ToLower(d.RowFormat[1:])
	case d.KeyBlockSize != 0:
		f.rowFormat = "Compressed"
	}
	var opts []string
	if d.RowFormat != "" {
		opts = append(opts, "row_format="+d.RowFormat)
	}
	if d.KeyBlockSize != 0 {
		opts = append(opts, "KEY_BLOCK_SIZE="+strconv.Itoa(d.KeyBlockSize))
	}
	if d.Compression != "" {
		opts = append(opts, `COMPRESSION="`+d.Compression+`"`)
	}
	f.createOptions = strings.Join(opts, " ")
	return f, true, nil
}

// tableSizes fills one information_schema.TABLES row of a Petrel table
// (tableFilesOf; AVG_ROW_LENGTH from DATA_LENGTH).
func (e *Engine) tableSizes(r sql.Row) error {
	if len(r) <= isTablesCreateOpts {
		return nil
	}
	db, _ := r[isTablesSchema].(string)
	name, _ := r[isTablesName].(string)
	f, ok, err := e.tableFilesOf(db, name)
	if err != nil || !ok {
		return err
	}
	r[isTablesData], r[isTablesIndex] = f.data, f.index
	if rows, ok := r[isTablesRows].(uint64); ok && rows > 0 {
		r[isTablesAvgRow] = f.data / rows
	}
	r[isTablesRowFormat], r[isTablesCreateOpts] = f.rowFormat, f.createOptions
	return nil
}

// Column ordinals of GMS's SHOW TABLE STATUS rows.
const (
	statusName, statusRowFormat, statusRows, statusAvgRow = 0, 3, 4, 5
	statusData, statusIndex, statusCreateOpts             = 6, 8, 16
)

// showTableStatus is SHOW TABLE STATUS with what information_schema.TABLES
// reports (GMS's rows say Fixed, an estimate of 128 bytes a row and no
// index length).
func (e *Engine) showTableStatus(ctx *sql.Context, n *plan.ShowTableStatus, row sql.Row) (sql.RowIter, error) {
	it, err := rowexec.DefaultBuilder.Build(ctx, n, row)
	if err != nil {
		return nil, err
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, err
	}
	db := n.Database().Name()
	for _, r := range rows {
		if len(r) <= statusCreateOpts {
			continue
		}
		name, _ := r[statusName].(string)
		f, ok, err := e.tableFilesOf(db, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		r[statusData], r[statusIndex] = f.data, int64(f.index)
		if rows, ok := r[statusRows].(uint64); ok && rows > 0 {
			r[statusAvgRow] = f.data / rows
		}
		r[statusRowFormat], r[statusCreateOpts] = f.rowFormat, f.createOptions
	}
	return sql.RowsToRowIter(rows...), nil
}
