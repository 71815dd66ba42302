package binlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	"petrel/internal/base"
)

// Event type codes (MySQL binlog v4).
const (
	QueryEvent             byte = 2
	StopEvent              byte = 3
	RotateEvent            byte = 4
	FormatDescriptionEvent byte = 15
	XIDEvent               byte = 16
	TableMapEvent          byte = 19
	WriteRowsEventV1       byte = 23
	UpdateRowsEventV1      byte = 24
	DeleteRowsEventV1      byte = 25
	HeartbeatEvent         byte = 27
	RowsQueryEvent         byte = 29
	WriteRowsEventV2       byte = 30
	UpdateRowsEventV2      byte = 31
	DeleteRowsEventV2      byte = 32
	GTIDEvent              byte = 33
	AnonymousGTIDEvent     byte = 34
	PreviousGTIDsEvent     byte = 35
)

// HeaderLen is the v4 common header length.
const HeaderLen = 19

// ChecksumLen is the CRC32 trailer length.
const ChecksumLen = 4

// Magic starts every binlog file.
var Magic = []byte{0xfe, 'b', 'i', 'n'}

// postHeaderLens is what a MySQL 8.0 FORMAT_DESCRIPTION event announces for
// event types 1..41; readers use it to find each event's body.
var postHeaderLens = []byte{
	56, 13, 0, 8, 0, 18, 0, 4, 4, 4, // 1-10
	4, 18, 0, 0, 98, 0, 4, 26, 8, 0, // 11-20
	0, 0, 8, 8, 8, 2, 0, 0, 0, 10, // 21-30
	10, 10, 42, 42, 0, 18, 52, 0, 10, 40, // 31-40
	0, // 41
}

// EventHeader is the common header of every event.
type EventHeader struct {
	Timestamp uint32
	Type      byte
	ServerID  uint32
	Size      uint32
	NextPos   uint32
	Flags     uint16
}

// ErrCorrupt classifies malformed or checksum-failed events.
var ErrCorrupt = errors.New("binlog: corrupt event")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// frame wraps body in a header and CRC32 trailer. nextPos is the file
// offset just past this event.
func frame(typ byte, flags uint16, serverID uint32, ts uint32, nextPos uint32, body []byte) []byte {
	size := HeaderLen + len(body) + ChecksumLen
	ev := make([]byte, HeaderLen, size)
	binary.LittleEndian.PutUint32(ev[0:], ts)
	ev[4] = typ
	binary.LittleEndian.PutUint32(ev[5:], serverID)
	binary.LittleEndian.PutUint32(ev[9:], uint32(size))
	binary.LittleEndian.PutUint32(ev[13:], nextPos)
	binary.LittleEndian.PutUint16(ev[17:], flags)
	ev = append(ev, body...)
	return binary.LittleEndian.AppendUint32(ev, checksumOf(ev))
}

// InUseFlag is LOG_EVENT_BINLOG_IN_USE_F: set in the FORMAT_DESCRIPTION of
// the file the log is writing, cleared when the file is finished (rotation,
// clean shutdown, recovery). Readers take a file that has it as possibly
// still growing: mysqlbinlog and `petrel binlog` then treat an event cut
// short at the end as the end of what is written so far. As in MySQL, the
// event's checksum is computed with the flag cleared, so clearing it is one
// byte written in place.
const InUseFlag uint16 = 0x1

// flagsAt is the offset of the flags in the common header.
const flagsAt = 17

// checksum is the CRC32 of ev without its trailer.
func checksum(ev []byte) uint32 { return checksumOf(ev[:len(ev)-ChecksumLen]) }

// checksumOf is the CRC32 of an event's bytes before the trailer; a
// FORMAT_DESCRIPTION's is computed as if InUseFlag were clear.
func checksumOf(b []byte) uint32 {
	if b[4] != FormatDescriptionEvent || b[flagsAt]&byte(InUseFlag) == 0 {
		return crc32.ChecksumIEEE(b)
	}
	c := crc32.Update(0, crc32.IEEETable, b[:flagsAt])
	c = crc32.Update(c, crc32.IEEETable, []byte{b[flagsAt] &^ byte(InUseFlag)})
	return crc32.Update(c, crc32.IEEETable, b[flagsAt+1:])
}

// setNextPos rewrites an event's next-position field and checksum.
func setNextPos(ev []byte, nextPos uint32) {
	binary.LittleEndian.PutUint32(ev[13:], nextPos)
	n := len(ev) - ChecksumLen
	binary.LittleEndian.PutUint32(ev[n:], checksum(ev))
}

// ParseHeader reads the common header and checks the size field against
// the bytes available and the checksum. ev must hold the whole event.
func ParseHeader(ev []byte) (EventHeader, error) {
	if len(ev) < HeaderLen {
		return EventHeader{}, corrupt("event of %d bytes is shorter than its header", len(ev))
	}
	h := EventHeader{
		Timestamp: binary.LittleEndian.Uint32(ev[0:]),
		Type:      ev[4],
		ServerID:  binary.LittleEndian.Uint32(ev[5:]),
		Size:      binary.LittleEndian.Uint32(ev[9:]),
		NextPos:   binary.LittleEndian.Uint32(ev[13:]),
		Flags:     binary.LittleEndian.Uint16(ev[17:]),
	}
	if int(h.Size) != len(ev) || h.Size < HeaderLen+ChecksumLen {
		return h, corrupt("event size field %d, have %d bytes", h.Size, len(ev))
	}
	n := len(ev) - ChecksumLen
	if got, want := checksum(ev), binary.LittleEndian.Uint32(ev[n:]); got != want {
		return h, corrupt("checksum mismatch in event type %d: computed %08x, stored %08x", h.Type, got, want)
	}
	return h, nil
}

// Body returns the event bytes between header and checksum.
func Body(ev []byte) []byte { return ev[HeaderLen : len(ev)-ChecksumLen] }

// formatDescription builds the FORMAT_DESCRIPTION_EVENT body.
func formatDescription(serverVersion string, created uint32) []byte {
	b := binary.LittleEndian.AppendUint16(nil, 4)
	v := make([]byte, 50)
	copy(v, serverVersion)
	b = append(b, v...)
	b = binary.LittleEndian.AppendUint32(b, created)
	b = append(b, HeaderLen)
	b = append(b, postHeaderLens...)
	return append(b, 1) // checksum algorithm: CRC32
}

// appendGTIDBody appends a MySQL 8.0 GTID_LOG_EVENT body to b, with the
// logical-clock fields replicas use to apply in parallel.
func appendGTIDBody(b []byte, g base.GTID, rbrOnly bool, lastCommitted, seqNo int64, commitTime, origTime time.Time, txnLen uint64, serverVersion uint32) []byte {
	// flags bit 0: the transaction may hold statement-based events (DDL).
	if rbrOnly {
		b = append(b, 0)
	} else {
		b = append(b, 1)
	}
	b = append(b, g.SID[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(g.GNO))
	b = append(b, 2) // logical timestamp typecode
	b = binary.LittleEndian.AppendUint64(b, uint64(lastCommitted))
	b = binary.LittleEndian.AppendUint64(b, uint64(seqNo))
	us := uint64(commitTime.UnixMicro())
	ous := uint64(origTime.UnixMicro())
	// 7-byte immediate commit timestamp; its top bit says an original
	// commit timestamp follows (else original == immediate).
	if ous != us {
		us |= 1 << 55
	}
	for i := 0; i < 7; i++ {
		b = append(b, byte(us>>(8*i)))
	}
	if ous != uint64(commitTime.UnixMicro()) {
		for i := 0; i < 7; i++ {
			b = append(b, byte(ous>>(8*i)))
		}
	}
	b = appendPackedInt(b, txnLen)
	// immediate server version; top bit clear: original == immediate.
	return binary.LittleEndian.AppendUint32(b, serverVersion&0x7fffffff)
}

// GTIDInfo is the decoded content of a GTID event.
type GTIDInfo struct {
	GTID          base.GTID
	LastCommitted int64
	SeqNo         int64
	CommitTime    time.Time // immediate_commit_timestamp
	OrigTime      time.Time // original_commit_timestamp
	TxnLen        uint64
}

// ParseGTID decodes a GTID_LOG_EVENT body (MySQL 5.7/8.0 layouts).
func ParseGTID(body []byte) (GTIDInfo, error) {
	var g GTIDInfo
	if len(body) < 25 {
		return g, corrupt("GTID event body of %d bytes", len(body))
	}
	copy(g.GTID.SID[:], body[1:17])
	g.GTID.GNO = int64(binary.LittleEndian.Uint64(body[17:25]))
	if g.GTID.GNO < 1 {
		return g, corrupt("GTID event with GNO %d", g.GTID.GNO)
	}
	p := body[25:]
	if len(p) >= 17 && p[0] == 2 {
		g.LastCommitted = int64(binary.LittleEndian.Uint64(p[1:]))
		g.SeqNo = int64(binary.LittleEndian.Uint64(p[9:]))
		p = p[17:]
		if len(p) >= 7 {
			var us uint64
			for i := 0; i < 7; i++ {
				us |= uint64(p[i]) << (8 * i)
			}
			hasOrig := us&(1<<55) != 0
			us &^= 1 << 55
			g.CommitTime = time.UnixMicro(int64(us))
			g.OrigTime = g.CommitTime
			p = p[7:]
			if hasOrig && len(p) >= 7 {
				var o uint64
				for i := 0; i < 7; i++ {
					o |= uint64(p[i]) << (8 * i)
				}
				g.OrigTime = time.UnixMicro(int64(o))
				p = p[7:]
			}
			if len(p) > 0 {
				if v, n, ok := readPackedInt(p); ok {
					g.TxnLen = v
					p = p[n:]
				}
			}
		}
	}
	return g, nil
}

// Query status variable codes written in QUERY events.
const (
	qFlags2Code   = 0
	qSQLModeCode  = 1
	qCatalogNZ    = 6
	qCharsetCode  = 4
	qUpdatedDBs   = 12
	utf8mb4Common = 45 // utf8mb4_general_ci: known to MySQL and MariaDB alike
)

// optionNoForeignKeyChecks is OPTION_NO_FOREIGN_KEY_CHECKS in a QUERY
// event's flags2 (Q_FLAGS2_CODE): the statement ran with
// foreign_key_checks=0.
const optionNoForeignKeyChecks = 1 << 26

// queryBody builds a QUERY_EVENT body.
func queryBody(threadID uint32, db, query string, errCode uint16) []byte {
	return queryBodyFlags(threadID, db, query, errCode, 0)
}

// queryBodyFlags is queryBody with the flags2 status variable.
func queryBodyFlags(threadID uint32, db, query string, errCode uint16, flags2 uint32) []byte {
	var status []byte
	status = append(status, qFlags2Code)
	status = binary.LittleEndian.AppendUint32(status, flags2)
	status = append(status, qSQLModeCode)
	status = binary.LittleEndian.AppendUint64(status, 0)
	status = append(status, qCatalogNZ, 3, 's', 't', 'd')
	status = append(status, qCharsetCode)
	status = binary.LittleEndian.AppendUint16(status, utf8mb4Common)
	status = binary.LittleEndian.AppendUint16(status, utf8mb4Common)
	status = binary.LittleEndian.AppendUint16(status, utf8mb4Common)
	b := binary.LittleEndian.AppendUint32(nil, threadID)
	b = binary.LittleEndian.AppendUint32(b, 0) // exec time
	b = append(b, byte(len(db)))
	b = binary.LittleEndian.AppendUint16(b, errCode)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(status)))
	b = append(b, status...)
	b = append(b, db...)
	b = append(b, 0)
	return append(b, query...)
}

// QueryInfo is a decoded QUERY event.
type QueryInfo struct {
	ThreadID uint32
	Database string
	Query    string
	ErrCode  uint16
	// NoForeignKeyChecks: flags2 has OPTION_NO_FOREIGN_KEY_CHECKS (the
	// source ran the statement with foreign_key_checks=0).
	NoForeignKeyChecks bool
}

// ParseQuery decodes a QUERY_EVENT body.
func ParseQuery(body []byte) (QueryInfo, error) {
	var q QueryInfo
	if len(body) < 13 {
		return q, corrupt("QUERY event body of %d bytes", len(body))
	}
	q.ThreadID = binary.LittleEndian.Uint32(body)
	dbLen := int(body[8])
	q.ErrCode = binary.LittleEndian.Uint16(body[9:])
	stLen := int(binary.LittleEndian.Uint16(body[11:]))
	p := body[13:]
	if len(p) < stLen+dbLen+1 {
		return q, corrupt("QUERY event: status %d + db %d bytes exceed body", stLen, dbLen)
	}
	if stLen >= 5 && p[0] == qFlags2Code {
		// MySQL, MariaDB and Petrel write flags2 first.
		q.NoForeignKeyChecks = binary.LittleEndian.Uint32(p[1:])&optionNoForeignKeyChecks != 0
	}
	p = p[stLen:]
	q.Database = string(p[:dbLen])
	q.Query = string(p[dbLen+1:])
	return q, nil
}

func rotateBody(pos uint64, next string) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, pos), next...)
}

// ParseRotate decodes a ROTATE_EVENT body.
func ParseRotate(body []byte) (uint64, string, error) {
	if len(body) < 8 {
		return 0, "", corrupt("ROTATE event body of %d bytes", len(body))
	}
	return binary.LittleEndian.Uint64(body), string(body[8:]), nil
}

// packedIntLen is the length of v written by appendPackedInt.
func packedIntLen(v uint64) int {
	switch {
	case v < 251:
		return 1
	case v < 1<<16:
		return 3
	case v < 1<<24:
		return 4
	}
	return 9
}

// appendPackedInt writes MySQL's length-encoded integer.
func appendPackedInt(b []byte, v uint64) []byte {
	switch {
	case v < 251:
		return append(b, byte(v))
	case v < 1<<16:
		return append(b, 0xfc, byte(v), byte(v>>8))
	case v < 1<<24:
		return append(b, 0xfd, byte(v), byte(v>>8), byte(v>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), v)
}

func readPackedInt(b []byte) (uint64, int, bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	switch b[0] {
	case 0xfc:
		if len(b) < 3 {
			return 0, 0, false
		}
		return uint64(b[1]) | uint64(b[2])<<8, 3, true
	case 0xfd:
		if len(b) < 4 {
			return 0, 0, false
		}
		return uint64(b[1]) | uint64(b[2])<<8 | uint64(b[3])<<16, 4, true
	case 0xfe:
		if len(b) < 9 {
			return 0, 0, false
		}
		return binary.LittleEndian.Uint64(b[1:]), 9, true
	case 0xfb, 0xff:
		return 0, 0, false
	}
	return uint64(b[0]), 1, true
}
