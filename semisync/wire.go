package semisync

import (
	"encoding/binary"
	"fmt"
)

// Wire format (MySQL's): a semi-sync source prefixes every event packet's
// payload (after the 0x00 OK byte) with Magic and a flag byte, 1 when the
// source asks for an acknowledgement of the transaction this event ends.
// The replica acknowledges with a packet: Magic, the 8-byte position just
// past the event, then the binlog file name.
const (
	Magic      = 0xef
	AckRequest = 0x01
	// maxFileName bounds the name in an ack (MySQL's FN_REFLEN is 512).
	maxFileName = 512
)

// EncodeAck builds an acknowledgement packet payload.
func EncodeAck(p Pos) []byte {
	b := []byte{Magic}
	b = binary.LittleEndian.AppendUint64(b, p.Off)
	return append(b, p.File...)
}

// ParseAck decodes an acknowledgement; malformed ones are errors (the
// source disconnects the replica and never counts them).
func ParseAck(b []byte) (Pos, error) {
	if len(b) < 10 || b[0] != Magic {
		return Pos{}, fmt.Errorf("semisync: malformed acknowledgement (%d bytes)", len(b))
	}
	name := b[9:]
	if len(name) > maxFileName {
		return Pos{}, fmt.Errorf("semisync: acknowledgement names a %d-byte file", len(name))
	}
	for _, c := range name {
		if c < 0x21 || c > 0x7e {
			return Pos{}, fmt.Errorf("semisync: acknowledgement file name has byte 0x%02x", c)
		}
	}
	return Pos{File: string(name), Off: binary.LittleEndian.Uint64(b[1:9])}, nil
}
