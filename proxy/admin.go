package proxy

import (
	"encoding/binary"
	"strconv"
	"strings"

	"petrel/internal/mysqlerr"
)

// The admin port speaks MySQL to the same accounts: SHOW SERVERS lists
// each backend's routing state, measured lag and counters.

// ServerRow is one SHOW SERVERS row.
type ServerRow struct {
	Server, Role, State string
	// Lag is the last measured lag in seconds ("" when unknown).
	Lag                                    string
	Queries, Errors, InFlight, Connections int64
	// Site is its site; Writable its last answered check's read_only
	// settings (off: writable).
	Site     int
	Writable bool
}

// Servers returns SHOW SERVERS' rows, primary first.
func (s *Server) Servers() []ServerRow {
	s.mu.Lock()
	bs := s.router.Backends()
	s.mu.Unlock()
	out := make([]ServerRow, len(bs))
	for i, b := range bs {
		r := ServerRow{Server: b.Name, Role: "replica", State: b.State.String(), Site: b.Site, Writable: b.Writable}
		if i == Primary {
			r.Role = "primary"
		} else if b.LagKnown {
			r.Lag = strconv.FormatFloat(b.Lag.Seconds(), 'f', 3, 64)
		}
		c := &s.pool.stats[i]
		r.Queries, r.Errors, r.InFlight, r.Connections = c.queries.Load(), c.errors.Load(), c.inFlight.Load(), c.open.Load()
		out[i] = r
	}
	return out
}

var serversColumns = []string{"server", "role", "state", "lag_seconds", "queries", "errors", "in_flight", "connections", "site", "writable"}

func (s *Server) serveAdmin(sess *session) {
	for {
		sess.cl.deadline(s.opts.ClientIdleTimeout)
		pkt, err := sess.cl.readPacket(1 << 20)
		if err != nil || len(pkt) == 0 {
			return
		}
		sess.cl.deadline(0)
		switch pkt[0] {
		case comQuit:
			return
		case comPing:
			if sess.send(okPacket(0, 0, statusAutocommit)) != nil {
				return
			}
			continue
		case comQuery:
		default:
			if sess.sendErr(mysqlerr.ErUnknownCom, "Unknown command") != nil {
				return
			}
			continue
		}
		words := strings.Fields(strings.ToUpper(strings.TrimRight(strings.TrimSpace(string(pkt[1:])), ";")))
		var err2 error
		switch strings.Join(words, " ") {
		case "SHOW SERVERS":
			var rows [][]*string
			for _, r := range s.Servers() {
				str := func(v string) *string { return &v }
				num := func(n int64) *string { return str(strconv.FormatInt(n, 10)) }
				lag := str(r.Lag)
				if r.Lag == "" {
					lag = nil
				}
				rows = append(rows, []*string{str(r.Server), str(r.Role), str(r.State), lag,
					num(r.Queries), num(r.Errors), num(r.InFlight), num(r.Connections), num(int64(r.Site)), str(strconv.FormatBool(r.Writable))})
			}
			err2 = sess.sendResult(textColumns(serversColumns...), rows)
		case "SELECT @@VERSION_COMMENT LIMIT 1":
			v := "petrel proxy admin"
			err2 = sess.sendResult(textColumns("@@version_comment"), [][]*string{{&v}})
		default:
			err2 = sess.sendErr(mysqlerr.ErParse, "The admin port knows SHOW SERVERS")
		}
		if err2 != nil {
			return
		}
	}
}

// column is a result column the proxy answers itself.
type column struct {
	name    string
	typ     byte
	flags   uint16
	charset uint16
	length  uint32
}

const (
	typeLongLong  = 0x08
	typeVarString = 0xfd

	flagNotNull  = 0x0001
	flagUnsigned = 0x0020
	flagBinary   = 0x0080
)

func textColumns(names ...string) []column {
	out := make([]column, len(names))
	for i, n := range names {
		out[i] = column{name: n, typ: typeVarString, charset: 255, length: 1024}
	}
	return out
}

// sendResult writes a text result set.
func (s *session) sendResult(cols []column, rows [][]*string) error {
	if s.cl.writePacket(appendLenenc(nil, uint64(len(cols)))) != nil {
		return errClientGone
	}
	for _, c := range cols {
		var b []byte
		for _, f := range []string{"def", "", "", "", c.name, c.name} {
			b = appendLenencString(b, f)
		}
		b = append(b, 0x0c)
		b = binary.LittleEndian.AppendUint16(b, c.charset)
		b = binary.LittleEndian.AppendUint32(b, c.length)
		b = append(b, c.typ)
		b = binary.LittleEndian.AppendUint16(b, c.flags)
		b = append(b, 0, 0, 0) // decimals, filler
		if s.cl.writePacket(b) != nil {
			return errClientGone
		}
	}
	if s.cl.writePacket(eofPacket(s.status())) != nil {
		return errClientGone
	}
	for _, r := range rows {
		var b []byte
		for _, v := range r {
			if v == nil {
				b = append(b, 0xfb)
			} else {
				b = appendLenencString(b, *v)
			}
		}
		if s.cl.writePacket(b) != nil {
			return errClientGone
		}
	}
	return s.send(eofPacket(s.status()))
}
