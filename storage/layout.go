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

// indexPrefix is the key prefix of every entry of one index of one table.
func indexPrefix(dst []byte, tableID uint32, indexID uint8) []byte {
	dst = append(dst, spaceData)
	dst = binary.BigEndian.AppendUint32(dst, tableID)
	return append(dst, indexID)
}

// tablePrefix covers every index of a table.
func tablePrefix(tableID uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{spaceData}, tableID)
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
