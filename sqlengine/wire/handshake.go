package wire

import (
	"encoding/binary"

	"github.com/dolthub/vitess/go/mysql"
)

// validHandshakeResponse reports whether vitess can parse p, a client's
// HandshakeResponse41 (or its SSL request), without running off its end:
// vitess skips the 23 reserved bytes without a bound check and then
// slices past a shorter packet, and allocates an auth response of
// whatever length the client claims. A response that fails here is
// refused with ER_HANDSHAKE_ERROR (1043) before vitess reads it.
// Deterministic; fuzzed through FuzzHandshakeResponse (node).
func validHandshakeResponse(p []byte) bool {
	const fixed = 4 + 4 + 1 + 23
	if len(p) < fixed {
		return false
	}
	caps := binary.LittleEndian.Uint32(p)
	if caps&mysql.CapabilityClientProtocol41 == 0 {
		return false
	}
	if caps&mysql.CapabilityClientSSL != 0 && len(p) == fixed {
		return true // an SSL request: the response follows under TLS
	}
	pos := fixed
	nulString := func() bool {
		i := indexByte(p[pos:], 0)
		if i < 0 {
			return false
		}
		pos += i + 1
		return true
	}
	if !nulString() { // user
		return false
	}
	switch {
	case caps&mysql.CapabilityClientPluginAuthLenencClientData != 0:
		l, next, ok := lenEnc(p, pos)
		if !ok || l > uint64(len(p)-next) {
			return false
		}
		pos = next + int(l)
	case caps&mysql.CapabilityClientSecureConnection != 0:
		if pos >= len(p) || pos+1+int(p[pos]) > len(p) {
			return false
		}
		pos += 1 + int(p[pos])
	default:
		if !nulString() {
			return false
		}
	}
	if caps&mysql.CapabilityClientConnectWithDB != 0 && !nulString() {
		return false
	}
	if caps&mysql.CapabilityClientPluginAuth != 0 && !nulString() {
		return false
	}
	return true
}
