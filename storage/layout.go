package storage

import "encoding/binary"

// Key layout. Every key starts with a one-byte space tag:
//
//	0x01 'q'                      last committed sequence number (BE u64)
//	0x01 'g'                      sink position blob (GTID state), written with commits
//	0x01 'n'                      next table id (BE u32)
//	0x01 'd' <db lower>           database definition (JSON)
//	0x01 't' <table id BE u32>    table definition (JSON)
//	0x01 'a' <table id BE u32>    AUTO_INCREMENT floor set by DDL (BE u64)
//	0x01 'm' <name>               metadata blob (users and grants, ...)
//	0x02 <table id BE u32> <index id u8> <encoded key columns>
//	                              index 0: primary key -> encoded row
//	                              index n: secondary key columns + primary key
//	                              columns -> primary-key suffix
const (
	spaceMeta byte = 0x01
	spaceData byte = 0x02

	metaLastSeq  byte = 'q'
	metaSinkPos  byte = 'g'
	metaNextID   byte = 'n'
	metaDatabase byte = 'd'
	metaTable    byte = 't'
	metaAutoInc  byte = 'a'
	metaBlob     byte = 'm'
)

func metaKey(kind byte, name ...string) []byte {
	k := []byte{spaceMeta, kind}
	for _, n := range name {
		k = append(k, n...)
	}
	return k
}

func metaTableKey(kind byte, id uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{spaceMeta, kind}, id)
}

// indexPrefixLen is the length of indexPrefix's prefix.
const indexPrefixLen = 6

// keyCap is the capacity a key starts with when indexPrefix makes it: a
// primary key of up to five INT columns (TPC-C's have three or four, 5
// bytes each) appends to it without growing it, where growing from the
// prefix's own length took an allocation per column. Longer keys grow.
const keyCap = 32

// indexPrefix is the key prefix of every entry of one index of one table,
// appended to dst (a new key of capacity keyCap when dst is nil).
func indexPrefix(dst []byte, tableID uint32, indexID uint8) []byte {
	if dst == nil {
		dst = make([]byte, 0, keyCap)
	}
	dst = append(dst, spaceData)
	dst = binary.BigEndian.AppendUint32(dst, tableID)
	return append(dst, indexID)
}

// tablePrefix covers every index of a table.
func tablePrefix(tableID uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{spaceData}, tableID)
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
