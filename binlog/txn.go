package binlog

import (
	"encoding/binary"
	"fmt"
	"slices"
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

// Rows event flags. noForeignKeyChecksFlag goes on the rows events of
// tables in a foreign key: the source already checked the constraints
// and logged every row a cascade changed, so a replica must apply the
// rows as logged, neither checking nor cascading again (a MySQL or
// MariaDB replica skips both with the flag set).
const (
	stmtEndFlag            = 0x0001
	noForeignKeyChecksFlag = 0x0002
)

// rowsFlags is the flags a rows event of t starts with.
func rowsFlags(t *storage.Table) uint16 {
	if t.InForeignKey() {
		return noForeignKeyChecksFlag
	}
	return 0
}

// setStmtEnd marks the rows event at ev (its common header first) as its
// statement's last, keeping its other flags.
func setStmtEnd(ev []byte) {
	f := binary.LittleEndian.Uint16(ev[HeaderLen+6:])
	binary.LittleEndian.PutUint16(ev[HeaderLen+6:], f|stmtEndFlag)
}

// colCache maps a published storage table to its binlog column
// descriptions. DDL publishes a new *storage.Table, so entries never go
// stale; a full cache starts over, so dropped tables do not accumulate.
// Each Log owns one. Safe for concurrent use; a nil cache caches nothing.
type colCache struct {
	mu sync.RWMutex
	m  map[*storage.Table]tableCols
}

// colCacheMax bounds a colCache's entries.
const colCacheMax = 4096

func (c *colCache) get(t *storage.Table) (tableCols, error) {
	if c == nil {
		return tableColumns(t)
	}
	c.mu.RLock()
	tc, ok := c.m[t]
	c.mu.RUnlock()
	if ok {
		return tc, nil
	}
	tc, err := tableColumns(t)
	if err != nil {
		return tc, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= colCacheMax {
		c.m = make(map[*storage.Table]tableCols)
	}
	c.m[t] = tc
	c.mu.Unlock()
	return tc, nil
}

// size is how many tables the cache holds.
func (c *colCache) size() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

type tableCols struct {
	cols []rowenc.Column
	// mapBody is the table's TABLE_MAP event body.
	mapBody []byte
	// jsonText lists JSON columns logged as LONGTEXT (see jsonAsText).
	jsonText []int
}

// JSON columns are logged as utf8mb4 LONGTEXT holding the JSON text, not
// as MySQL's binary JSON: MariaDB (replicas, mariadb-binlog) cannot read
// MySQL's JSON type at all, while every reader handles text, and a MariaDB
// JSON column is LONGTEXT. Petrel's own readers convert it back.
func tableColumns(t *storage.Table) (tableCols, error) {
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
	tc.mapBody = TableMapBody(uint64(t.Def.ID), t.Def.Database, t.Def.Name, tc.cols)
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

// appendRowsHeader starts a v2 rows event body for n columns, all present.
func appendRowsHeader(b []byte, tableID uint64, flags uint16, n int, update bool) []byte {
	b = appendTableID(b, tableID)
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = binary.LittleEndian.AppendUint16(b, 2) // extra data length: none
	b = appendPackedInt(b, uint64(n))
	images := 1
	if update {
		images = 2
	}
	for range images {
		for i := 0; i < n; i += 8 {
			b = append(b, byte(1<<min(n-i, 8)-1))
		}
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

// encodedTxn is a transaction's events, encoded before its commit turn
// (Log.Prepare) into one buffer: the GTID event first, then the rest,
// back to back. What only the turn decides (the GNO of a local
// transaction, the logical clock, the XID, every event's next-position
// and so its checksum) is left zero and filled in by place.
type encodedTxn struct {
	by   *Log     // the log that encoded them (its server id and version)
	sid  base.SID // the GTID's source id they were encoded for
	buf  []byte
	ends []int // end offset of each event in buf
	xid  bool  // the last event is an XID event
	// ws is the transaction's write set (nil: not extracted, under
	// COMMIT_ORDER tracking).
	ws *writeset
	// compressed: the events after the GTID event are one
	// TRANSACTION_PAYLOAD event, compressing rawSize bytes.
	compressed bool
	rawSize    int
	// file and seq are where Append placed it (the file's index in the
	// log, its sequence number there).
	file int
	seq  int64
	// A transaction whose cache spilled to a file (txncache.go): buf
	// holds its GTID, BEGIN and TABLE_MAP events, spill's spillLen bytes
	// of rows events follow, then trailer (the XID event).
	spill    *txnCache
	spillLen int64
	trailer  []byte
	stamp    [2]uint32 // the spilled events' server id and timestamp
}

// GTID event body offsets of the fields place fills in.
const (
	gtidGNOAt           = HeaderLen + 1 + 16
	gtidLastCommittedAt = gtidGNOAt + 8 + 1
	gtidSeqNoAt         = gtidLastCommittedAt + 8
	// gtidEventMax bounds a GTID event: header, body (flags, SID, GNO,
	// typecode, two clock fields, two 7-byte timestamps, a packed length
	// of at most 9 bytes, server version) and checksum.
	gtidEventMax = HeaderLen + 1 + 16 + 8 + 1 + 8 + 8 + 7 + 7 + 9 + 4 + ChecksumLen
)

// beginBody is the QUERY event body of every row transaction's BEGIN.
var beginBody = queryBody(0, "", "BEGIN", 0)

// startEvent appends an event header (size, next position and checksum
// are written by endEvent and place) and returns the event's offset.
func startEvent(b []byte, typ byte, serverID, ts uint32) ([]byte, int) {
	at := len(b)
	var h [HeaderLen]byte
	binary.LittleEndian.PutUint32(h[0:], ts)
	h[4] = typ
	binary.LittleEndian.PutUint32(h[5:], serverID)
	return append(b, h[:]...), at
}

// endEvent reserves the checksum and sets the size of the event at at.
func (x *encodedTxn) endEvent(at int) {
	x.buf = append(x.buf, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(x.buf[at+9:], uint32(len(x.buf)-at))
	x.ends = append(x.ends, len(x.buf))
}

func (x *encodedTxn) event(typ byte, serverID, ts uint32, body []byte) {
	var at int
	x.buf, at = startEvent(x.buf, typ, serverID, ts)
	x.buf = append(x.buf, body...)
	x.endEvent(at)
}

// encodeTransaction encodes a commit record for a transaction whose GTID
// has source id sid: GTID, then either one QUERY per DDL statement, or
// BEGIN, TABLE_MAPs, rows events and XID. It reads nothing that changes
// with the commit order.
func encodeTransaction(o Options, cols *colCache, rec *storage.CommitRecord, sid base.SID) (*encodedTxn, error) {
	return encodeCompressed(o, cols, rec, sid, 0, 0)
}

// encodeCompressed is encodeTransaction with binlog transaction
// compression: with level > 0 a row transaction's events after the GTID
// event become one TRANSACTION_PAYLOAD event (zstd at level) whose XID is
// xid. DDL stays uncompressed.
func encodeCompressed(o Options, cols *colCache, rec *storage.CommitRecord, sid base.SID, level int, xid uint64) (*encodedTxn, error) {
	serverID, ts, orig := eventStamp(o, rec)
	size := gtidEventMax + 256
	for _, c := range rec.Changes {
		size += 64 + 64*max(len(c.Before), len(c.After))
	}
	ver := o.versionNumber()
	x := &encodedTxn{sid: sid, buf: make([]byte, gtidEventMax, size), ends: make([]int, 0, 8)}
	if len(rec.Queries) > 0 {
		// DDL is logged as statements; the rows a rewrite copied are not.
		for _, q := range rec.Queries {
			var flags2 uint32
			if q.NoForeignKeyChecks {
				flags2 = optionNoForeignKeyChecks
			}
			x.event(QueryEvent, serverID, ts, queryBodyFlags(0, q.Database, q.SQL, 0, flags2))
		}
		x.prependGTID(serverID, ver, false, rec.Time, orig)
		return x, nil
	}
	x.event(QueryEvent, serverID, ts, beginBody)
	var mapped []*storage.Table
	for _, c := range rec.Changes {
		if slices.Contains(mapped, c.Table) {
			continue
		}
		tc, err := cols.get(c.Table)
		if err != nil {
			return nil, err
		}
		mapped = append(mapped, c.Table)
		x.event(TableMapEvent, serverID, ts, tc.mapBody)
	}
	// Consecutive changes of one kind to one table share a rows event.
	var (
		open  = -1 // offset of the rows event being filled
		kind  byte
		table *storage.Table
	)
	flush := func(last bool) {
		if open < 0 {
			return
		}
		if last {
			setStmtEnd(x.buf[open:])
		}
		x.endEvent(open)
		open = -1
	}
	for _, c := range rec.Changes {
		k := changeKind(c)
		if open >= 0 && (k != kind || c.Table != table || len(x.buf)-open-HeaderLen >= rowsEventTarget) {
			flush(false)
		}
		tc, err := cols.get(c.Table)
		if err != nil {
			return nil, err
		}
		if open < 0 {
			kind, table = k, c.Table
			x.buf, open = startEvent(x.buf, k, serverID, ts)
			x.buf = appendRowsHeader(x.buf, uint64(c.Table.Def.ID), rowsFlags(c.Table), len(tc.cols), k == UpdateRowsEventV2)
		}
		for _, row := range []sql.Row{c.Before, c.After} {
			if row == nil {
				continue
			}
			lr, err := tc.loggedRow(row)
			if err == nil {
				x.buf, err = rowenc.AppendRowImage(x.buf, tc.cols, lr)
			}
			if err != nil {
				return nil, fmt.Errorf("binlog: %s.%s: %w", c.Table.Def.Database, c.Table.Def.Name, err)
			}
		}
	}
	flush(true)
	x.event(XIDEvent, serverID, ts, make([]byte, 8)) // the XID (the GNO) is placed later
	x.xid = true
	if level > 0 {
		x.compressTxn(serverID, ts, level, xid)
	}
	x.prependGTID(serverID, ver, true, rec.Time, orig)
	return x, nil
}

// eventStamp is the server id and timestamp of rec's events, and its
// original commit time.
func eventStamp(o Options, rec *storage.CommitRecord) (serverID, ts uint32, orig time.Time) {
	ts = uint32(rec.Time.Unix())
	serverID = o.ServerID
	orig = rec.Time
	if rec.Origin != nil {
		// A replicated transaction keeps its first server's id and commit
		// time (MySQL's original_commit_timestamp), so lag can be measured
		// at every hop and circular topologies can filter their own events.
		if rec.Origin.ServerID != 0 {
			serverID = rec.Origin.ServerID
		}
		if !rec.Origin.CommitTime.IsZero() {
			orig = rec.Origin.CommitTime
			ts = uint32(orig.Unix())
		}
	}
	return serverID, ts, orig
}

// prependGTID writes the GTID event in front of the others (in the room
// left for it); its transaction_length covers the whole transaction
// including itself. GNO and logical clock are left for place.
func (x *encodedTxn) prependGTID(serverID, ver uint32, rbrOnly bool, t, orig time.Time) {
	total := len(x.buf) - gtidEventMax + int(x.spillLen) + len(x.trailer)
	sid := base.GTID{SID: x.sid}
	// The GTID event's size depends on the width of its own length field:
	// measure it with a one-byte field, then settle the width.
	var scratch [gtidEventMax]byte
	fixed := len(appendGTIDBody(scratch[:0], sid, rbrOnly, 0, 0, t, orig, 0, ver)) - 1 + HeaderLen + ChecksumLen
	n := 1
	for packedIntLen(uint64(total+fixed+n)) != n {
		n = packedIntLen(uint64(total + fixed + n))
	}
	size := fixed + n
	off := gtidEventMax - size
	g, _ := startEvent(x.buf[off:off], GTIDEvent, serverID, uint32(orig.Unix()))
	g = appendGTIDBody(g, sid, rbrOnly, 0, 0, t, orig, uint64(total+size), ver)
	g = append(g, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(g[9:], uint32(size))
	x.buf = x.buf[off:]
	for i := range x.ends {
		x.ends[i] -= off
	}
	x.ends = append([]int{size}, x.ends...)
}

// place fills in what the commit turn decided, for events starting at
// file offset start, and computes every checksum.
func (x *encodedTxn) place(gno, lastCommitted, seqNo int64, start uint64) {
	b := x.buf
	binary.LittleEndian.PutUint64(b[gtidGNOAt:], uint64(gno))
	binary.LittleEndian.PutUint64(b[gtidLastCommittedAt:], uint64(lastCommitted))
	binary.LittleEndian.PutUint64(b[gtidSeqNoAt:], uint64(seqNo))
	if x.xid {
		binary.LittleEndian.PutUint64(b[len(b)-ChecksumLen-8:], uint64(gno))
	}
	prev := 0
	for _, end := range x.ends {
		setNextPos(b[prev:end], uint32(start+uint64(end)))
		prev = end
	}
}

// versionNumber is ServerVersion as a number (set by setDefaults).
func (o Options) versionNumber() uint32 {
	if o.versionNum == 0 {
		return serverVersionNumber(o.ServerVersion)
	}
	return o.versionNum
}

// serverVersionNumber turns "8.0.40-petrel" into 80040.
func serverVersionNumber(v string) uint32 {
	var a, b, c uint32
	fmt.Sscanf(v, "%d.%d.%d", &a, &b, &c)
	return a*10000 + b*100 + c
}
