package binlog

import (
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/binlog/rowenc"
	"petrel/internal/base"
	"petrel/storage"
)

// rowsEventTarget is where a rows event is cut (binlog_row_event_max_size).
const rowsEventTarget = 8192

// Rows event flags.
const stmtEndFlag = 0x0001

// columnCache maps a published storage table to its binlog column
// descriptions; DDL publishes a new *storage.Table, so entries never go
// stale, and a bounded size keeps dropped tables from accumulating.
var columnCache sync.Map // *storage.Table -> tableCols

type tableCols struct {
	cols []rowenc.Column
	// jsonText lists JSON columns logged as LONGTEXT (see jsonAsText).
	jsonText []int
}

// JSON columns are logged as utf8mb4 LONGTEXT holding the JSON text, not
// as MySQL's binary JSON: MariaDB (replicas, mariadb-binlog) cannot read
// MySQL's JSON type at all, while every reader handles text, and a MariaDB
// JSON column is LONGTEXT. Petrel's own readers convert it back.
func tableColumns(t *storage.Table) (tableCols, error) {
	if v, ok := columnCache.Load(t); ok {
		return v.(tableCols), nil
	}
	tc := tableCols{cols: make([]rowenc.Column, len(t.Schema))}
	for i, c := range t.Schema {
		col, err := rowenc.ColumnFor(c.Type, c.Nullable)
		if err != nil {
			return tc, fmt.Errorf("binlog: table %s column %s: %w", t.Def.Name, c.Name, err)
		}
		if col.Type == rowenc.TypeJSON {
			col = rowenc.Column{Type: rowenc.TypeBlob, Meta: 4, Nullable: c.Nullable, Charset: utf8mb4Common}
			tc.jsonText = append(tc.jsonText, i)
		}
		col.Charset = portableCollation(col.Charset)
		tc.cols[i] = col
	}
	columnCache.Store(t, tc)
	return tc, nil
}

// loggedRow returns row as logged: JSON values as their text.
func (tc tableCols) loggedRow(row sql.Row) (sql.Row, error) {
	if len(tc.jsonText) == 0 || row == nil {
		return row, nil
	}
	out := append(sql.Row(nil), row...)
	for _, i := range tc.jsonText {
		if out[i] == nil {
			continue
		}
		if w, ok := out[i].(sql.JSONWrapper); ok {
			// The same text SELECT returns for the value.
			s, err := types.JsonToMySqlString(w)
			if err != nil {
				return nil, err
			}
			out[i] = []byte(s)
		} else {
			out[i] = rowenc.AppendJSONText(nil, out[i])
		}
	}
	return out, nil
}

// portableCollation maps MySQL 8.0's utf8mb4_0900 collations, which MariaDB
// does not know, to the utf8mb4 collations both servers share: replicas
// and tools of either kind must be able to read the log.
func portableCollation(id uint16) uint16 {
	switch {
	case id == 255 || (id >= 256 && id <= 308 && id != 309):
		return 45 // utf8mb4_general_ci
	case id == 309:
		return 46 // utf8mb4_bin
	}
	return id
}

// TableMapBody builds a TABLE_MAP_EVENT body.
func TableMapBody(tableID uint64, db, table string, cols []rowenc.Column) []byte {
	b := appendTableID(nil, tableID)
	b = binary.LittleEndian.AppendUint16(b, 1) // TM_BIT_LEN_EXACT_F
	b = append(b, byte(len(db)))
	b = append(b, db...)
	b = append(b, 0, byte(len(table)))
	b = append(b, table...)
	b = append(b, 0)
	b = appendPackedInt(b, uint64(len(cols)))
	for _, c := range cols {
		b = append(b, c.Type)
	}
	var meta []byte
	for _, c := range cols {
		meta = rowenc.AppendMeta(meta, c)
	}
	b = appendPackedInt(b, uint64(len(meta)))
	b = append(b, meta...)
	nulls := make([]byte, (len(cols)+7)/8)
	for i, c := range cols {
		if c.Nullable {
			nulls[i/8] |= 1 << (i % 8)
		}
	}
	b = append(b, nulls...)
	return append(b, rowenc.OptionalMetadata(cols)...)
}

func appendTableID(b []byte, id uint64) []byte {
	return append(b, byte(id), byte(id>>8), byte(id>>16), byte(id>>24), byte(id>>32), byte(id>>40))
}

// rowsHeader starts a v2 rows event body for n columns, all present.
func rowsHeader(tableID uint64, flags uint16, n int, update bool) []byte {
	b := appendTableID(nil, tableID)
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = binary.LittleEndian.AppendUint16(b, 2) // extra data length: none
	b = appendPackedInt(b, uint64(n))
	present := make([]byte, (n+7)/8)
	for i := 0; i < n; i++ {
		present[i/8] |= 1 << (i % 8)
	}
	b = append(b, present...)
	if update {
		b = append(b, present...)
	}
	return b
}

func changeKind(c storage.RowChange) byte {
	switch {
	case c.Before == nil:
		return WriteRowsEventV2
	case c.After == nil:
		return DeleteRowsEventV2
	}
	return UpdateRowsEventV2
}

// encodeTransaction turns a commit record into framed events (next
// positions are patched by the caller): GTID, then either one QUERY per
// DDL statement, or BEGIN, TABLE_MAPs, rows events and XID.
func encodeTransaction(o Options, rec *storage.CommitRecord, gtid base.GTID, lastCommitted, seqNo int64) ([][]byte, error) {
	ts := uint32(rec.Time.Unix())
	sid := o.ServerID
	orig := rec.Time
	if rec.Origin != nil {
		// A replicated transaction keeps its first server's id and commit
		// time (MySQL's original_commit_timestamp), so lag can be measured
		// at every hop and circular topologies can filter their own events.
		if rec.Origin.ServerID != 0 {
			sid = rec.Origin.ServerID
		}
		if !rec.Origin.CommitTime.IsZero() {
			orig = rec.Origin.CommitTime
			ts = uint32(orig.Unix())
		}
	}
	o.ServerID = sid
	var evs [][]byte
	if len(rec.Queries) > 0 {
		// DDL is logged as statements; the rows a rewrite copied are not.
		for _, q := range rec.Queries {
			evs = append(evs, frame(QueryEvent, 0, sid, ts, 0, queryBody(0, q.Database, q.SQL, 0)))
		}
		return withGTID(o, evs, gtid, false, lastCommitted, seqNo, rec.Time, orig), nil
	}
	evs = append(evs, frame(QueryEvent, 0, sid, ts, 0, queryBody(0, "", "BEGIN", 0)))
	mapped := map[*storage.Table]bool{}
	for _, c := range rec.Changes {
		if mapped[c.Table] {
			continue
		}
		tc, err := tableColumns(c.Table)
		if err != nil {
			return nil, err
		}
		mapped[c.Table] = true
		evs = append(evs, frame(TableMapEvent, 0, sid, ts, 0, TableMapBody(uint64(c.Table.Def.ID), c.Table.Def.Database, c.Table.Def.Name, tc.cols)))
	}
	// Consecutive changes of one kind to one table share a rows event.
	var (
		body  []byte
		kind  byte
		table *storage.Table
	)
	flush := func(last bool) {
		if body == nil {
			return
		}
		if last {
			binary.LittleEndian.PutUint16(body[6:], stmtEndFlag)
		}
		evs = append(evs, frame(kind, 0, sid, ts, 0, body))
		body = nil
	}
	for _, c := range rec.Changes {
		k := changeKind(c)
		if body != nil && (k != kind || c.Table != table || len(body) >= rowsEventTarget) {
			flush(false)
		}
		tc, err := tableColumns(c.Table)
		if err != nil {
			return nil, err
		}
		if body == nil {
			kind, table = k, c.Table
			body = rowsHeader(uint64(c.Table.Def.ID), 0, len(tc.cols), k == UpdateRowsEventV2)
		}
		for _, row := range []sql.Row{c.Before, c.After} {
			if row == nil {
				continue
			}
			lr, err := tc.loggedRow(row)
			if err == nil {
				body, err = rowenc.AppendRowImage(body, tc.cols, lr)
			}
			if err != nil {
				return nil, fmt.Errorf("binlog: %s.%s: %w", c.Table.Def.Database, c.Table.Def.Name, err)
			}
		}
	}
	flush(true)
	evs = append(evs, frame(XIDEvent, 0, sid, ts, 0, xidBody(uint64(gtid.GNO))))
	return withGTID(o, evs, gtid, true, lastCommitted, seqNo, rec.Time, orig), nil
}

// withGTID prepends the GTID event; its transaction_length covers the
// whole transaction including itself.
func withGTID(o Options, evs [][]byte, gtid base.GTID, rbrOnly bool, lastCommitted, seqNo int64, t, orig time.Time) [][]byte {
	total := 0
	for _, e := range evs {
		total += len(e)
	}
	ver := serverVersionNumber(o.ServerVersion)
	var g []byte
	// The GTID event's own size depends on the length field's width.
	for n := 0; n < 3; n++ {
		g = frame(GTIDEvent, 0, o.ServerID, uint32(orig.Unix()), 0, gtidBody(gtid, rbrOnly, lastCommitted, seqNo, t, orig, uint64(total+len(g)), ver))
	}
	return append([][]byte{g}, evs...)
}

// serverVersionNumber turns "8.0.40-petrel" into 80040.
func serverVersionNumber(v string) uint32 {
	var a, b, c uint32
	fmt.Sscanf(v, "%d.%d.%d", &a, &b, &c)
	return a*10000 + b*100 + c
}
