package sqlengine

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/storage"
)

// ALTER TABLE ... CONVERT TO CHARACTER SET cs [COLLATE c]: every
// character column (CHAR, VARCHAR, TEXT, ENUM, SET) takes the collation,
// as does the table's default, and the rows are rewritten, as MODIFY
// COLUMN rewrites them. A value stays the characters it is (Petrel keeps
// every character string as UTF-8), checked against the new set as a
// write is (a character the set lacks: 1366) and keyed by the new
// collation's weights. GMS parses the statement as ALTER TABLE ...
// COLLATE, so ModifyDefaultCollation tells them apart (charset.go).

// convertCharset is ModifyStoredCollation's work.
func (t *Table) convertCharset(ctx *sql.Context, c sql.CollationID) error {
	if err := implementedCollation(c); err != nil {
		return err
	}
	if err := t.alter(ctx, func(td *storage.TableDef) error {
		td.Collation = uint16(c)
		return nil
	}); err != nil {
		return err
	}
	oldSch := t.PrimaryKeySchema()
	newCols := oldSch.Schema.Copy()
	changed := false
	for _, col := range newCols {
		wc, ok := col.Type.(sql.TypeWithCollation)
		if !ok || wc.Collation() == sql.Collation_binary || !(types.IsText(col.Type) || types.IsEnum(col.Type) || types.IsSet(col.Type)) {
			continue
		}
		nt, err := wc.WithNewCollation(c)
		if err != nil {
			return err
		}
		col.Type = nt
		changed = true
	}
	if !changed {
		return nil
	}
	newSch := sql.NewPrimaryKeySchema(newCols, oldSch.PkOrdinals...)
	ins, err := t.RewriteInserter(ctx, oldSch, newSch, nil, nil, nil)
	if err != nil {
		return err
	}
	parts, err := t.Partitions(ctx)
	if err != nil {
		_ = ins.Close(ctx)
		return err
	}
	rows := sql.NewTableRowIter(ctx, t, parts)
	for {
		r, err := rows.Next(ctx)
		if err == io.EOF {
			break
		}
		if err == nil {
			err = ins.Insert(ctx, r)
		}
		if err != nil {
			_ = rows.Close(ctx)
			_ = ins.DiscardChanges(ctx, err)
			_ = ins.Close(ctx)
			return err
		}
	}
	if err := rows.Close(ctx); err != nil {
		_ = ins.Close(ctx)
		return err
	}
	return ins.Close(ctx)
}
