package binlog

import (
	"encoding/binary"
)

// Events a source builds for the replication stream rather than reads from
// a file.

// ArtificialFlag marks events made up for the stream (LOG_EVENT_ARTIFICIAL_F):
// replicas do not advance their position on them.
const ArtificialFlag uint16 = 0x20

// ArtificialRotate tells a replica which file the stream continues in and
// at which offset (sent first on every dump, and when a file ends without a
// ROTATE event of its own, after a restart).
func ArtificialRotate(serverID uint32, file string, pos uint64) []byte {
	return frame(RotateEvent, ArtificialFlag, serverID, 0, 0, rotateBody(pos, file))
}

// Heartbeat is a HEARTBEAT_LOG_EVENT: the source's current file and
// position, sent when the log is idle for the replica's heartbeat period.
func Heartbeat(serverID uint32, file string, pos uint64) []byte {
	return frame(HeartbeatEvent, ArtificialFlag, serverID, 0, uint32(pos), []byte(file))
}

// WithNextPos returns a copy of ev with its next-position field set (and
// the checksum recomputed): a FORMAT_DESCRIPTION sent out of place carries
// 0 so the replica does not move its position.
func WithNextPos(ev []byte, nextPos uint32) []byte {
	c := append([]byte(nil), ev...)
	setNextPos(c, nextPos)
	return c
}

// Frame builds an event with a CRC32 trailer (tests, tools).
func Frame(typ byte, flags uint16, serverID, ts, nextPos uint32, body []byte) []byte {
	return frame(typ, flags, serverID, ts, nextPos, body)
}

// VerifyChecksum reports whether ev's CRC32 trailer matches its bytes.
func VerifyChecksum(ev []byte) bool {
	if len(ev) < HeaderLen+ChecksumLen {
		return false
	}
	return checksum(ev) == binary.LittleEndian.Uint32(ev[len(ev)-ChecksumLen:])
}

// WithoutInUse returns ev, or for a FORMAT_DESCRIPTION with InUseFlag set a
// copy without it: the stream to a replica never says "in use" (MySQL's
// dump thread clears it too). The checksum stays valid (see InUseFlag).
func WithoutInUse(ev []byte) []byte {
	if len(ev) <= flagsAt || ev[4] != FormatDescriptionEvent || ev[flagsAt]&byte(InUseFlag) == 0 {
		return ev
	}
	c := append([]byte(nil), ev...)
	c[flagsAt] &^= byte(InUseFlag)
	return c
}
