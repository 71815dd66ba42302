package base

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// SID is a server UUID, the source half of a GTID.
type SID [16]byte

// ParseSID parses a UUID in its text form.
func ParseSID(s string) (SID, error) {
	u, err := uuid.Parse(strings.TrimSpace(s))
	if err != nil {
		return SID{}, fmt.Errorf("invalid server uuid %q: %w", s, err)
	}
	return SID(u), nil
}

func (s SID) String() string { return uuid.UUID(s).String() }

// GTID is one global transaction identifier, sid:gno.
type GTID struct {
	SID SID
	GNO int64
}

func (g GTID) String() string { return g.SID.String() + ":" + strconv.FormatInt(g.GNO, 10) }

// interval is a closed range [Start, End] of GNOs.
type interval struct{ Start, End int64 }

// GTIDSet is a set of GTIDs, as @@gtid_executed shows it. The zero value
// is not usable; use NewGTIDSet. Not safe for concurrent use.
type GTIDSet struct {
	m map[SID][]interval
}

// NewGTIDSet returns an empty set.
func NewGTIDSet() *GTIDSet { return &GTIDSet{m: map[SID][]interval{}} }

// ParseGTIDSet parses "uuid:1-5:7,uuid2:3" (whitespace and newlines allowed).
func ParseGTIDSet(s string) (*GTIDSet, error) {
	set := NewGTIDSet()
	s = strings.TrimSpace(s)
	if s == "" {
		return set, nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		fields := strings.Split(part, ":")
		sid, err := ParseSID(fields[0])
		if err != nil {
			return nil, err
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("malformed GTID set %q: no intervals for %s", s, fields[0])
		}
		for _, iv := range fields[1:] {
			a, b, ok := strings.Cut(iv, "-")
			start, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
			if err != nil || start < 1 {
				return nil, fmt.Errorf("malformed GTID set %q: bad interval %q", s, iv)
			}
			end := start
			if ok {
				end, err = strconv.ParseInt(strings.TrimSpace(b), 10, 64)
				if err != nil || end < start {
					return nil, fmt.Errorf("malformed GTID set %q: bad interval %q", s, iv)
				}
			}
			set.AddRange(sid, start, end)
		}
	}
	return set, nil
}

// Clone returns a deep copy.
func (s *GTIDSet) Clone() *GTIDSet {
	c := NewGTIDSet()
	for sid, ivs := range s.m {
		c.m[sid] = append([]interval(nil), ivs...)
	}
	return c
}

// Add adds one GTID.
func (s *GTIDSet) Add(g GTID) { s.AddRange(g.SID, g.GNO, g.GNO) }

// AddRange adds [start, end] for sid.
func (s *GTIDSet) AddRange(sid SID, start, end int64) {
	ivs := s.m[sid]
	// Fast path: appending right after the last interval (own commits).
	if n := len(ivs); n > 0 && start == ivs[n-1].End+1 {
		ivs[n-1].End = max(ivs[n-1].End, end)
		s.m[sid] = ivs
		return
	}
	ivs = append(ivs, interval{start, end})
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].Start < ivs[j].Start })
	out := ivs[:1]
	for _, iv := range ivs[1:] {
		last := &out[len(out)-1]
		if iv.Start <= last.End+1 {
			last.End = max(last.End, iv.End)
		} else {
			out = append(out, iv)
		}
	}
	s.m[sid] = out
}

// AddSet adds every GTID of o.
func (s *GTIDSet) AddSet(o *GTIDSet) {
	for sid, ivs := range o.m {
		for _, iv := range ivs {
			s.AddRange(sid, iv.Start, iv.End)
		}
	}
}

// Contains reports whether g is in the set.
func (s *GTIDSet) Contains(g GTID) bool {
	ivs := s.m[g.SID]
	i := sort.Search(len(ivs), func(i int) bool { return ivs[i].End >= g.GNO })
	return i < len(ivs) && ivs[i].Start <= g.GNO
}

// ContainsSet reports whether every GTID of o is in s.
func (s *GTIDSet) ContainsSet(o *GTIDSet) bool {
	for sid, ivs := range o.m {
		for _, iv := range ivs {
			have := s.m[sid]
			i := sort.Search(len(have), func(i int) bool { return have[i].End >= iv.Start })
			if i >= len(have) || have[i].Start > iv.Start || have[i].End < iv.End {
				return false
			}
		}
	}
	return true
}

// Subtract returns s minus o.
func (s *GTIDSet) Subtract(o *GTIDSet) *GTIDSet {
	out := NewGTIDSet()
	for sid, ivs := range s.m {
		for _, iv := range ivs {
			cur := []interval{iv}
			for _, r := range o.m[sid] {
				var next []interval
				for _, c := range cur {
					if r.End < c.Start || r.Start > c.End {
						next = append(next, c)
						continue
					}
					if r.Start > c.Start {
						next = append(next, interval{c.Start, r.Start - 1})
					}
					if r.End < c.End {
						next = append(next, interval{r.End + 1, c.End})
					}
				}
				cur = next
			}
			for _, c := range cur {
				out.AddRange(sid, c.Start, c.End)
			}
		}
	}
	return out
}

// Last returns the largest GNO recorded for sid (0 if none).
func (s *GTIDSet) Last(sid SID) int64 {
	ivs := s.m[sid]
	if len(ivs) == 0 {
		return 0
	}
	return ivs[len(ivs)-1].End
}

// Count returns how many GTIDs the set holds.
func (s *GTIDSet) Count() int64 {
	var n int64
	for _, ivs := range s.m {
		for _, iv := range ivs {
			n += iv.End - iv.Start + 1
		}
	}
	return n
}

// IsEmpty reports whether the set has no GTID.
func (s *GTIDSet) IsEmpty() bool {
	for _, ivs := range s.m {
		if len(ivs) > 0 {
			return false
		}
	}
	return true
}

// Equal reports whether both sets hold the same GTIDs.
func (s *GTIDSet) Equal(o *GTIDSet) bool { return s.ContainsSet(o) && o.ContainsSet(s) }

func (s *GTIDSet) sids() []SID {
	out := make([]SID, 0, len(s.m))
	for sid, ivs := range s.m {
		if len(ivs) > 0 {
			out = append(out, sid)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// String formats the set as MySQL does: sorted by UUID, "uuid:1-5:7".
func (s *GTIDSet) String() string {
	var b strings.Builder
	for i, sid := range s.sids() {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(sid.String())
		for _, iv := range s.m[sid] {
			b.WriteByte(':')
			b.WriteString(strconv.FormatInt(iv.Start, 10))
			if iv.End != iv.Start {
				b.WriteByte('-')
				b.WriteString(strconv.FormatInt(iv.End, 10))
			}
		}
	}
	return b.String()
}

// Encode returns the binary form used by PREVIOUS_GTIDS events and
// COM_BINLOG_DUMP_GTID: n_sids, then per sid: uuid, n_intervals,
// [start, end+1) pairs, all little-endian.
func (s *GTIDSet) Encode() []byte {
	sids := s.sids()
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(sids)))
	for _, sid := range sids {
		b = append(b, sid[:]...)
		ivs := s.m[sid]
		b = binary.LittleEndian.AppendUint64(b, uint64(len(ivs)))
		for _, iv := range ivs {
			b = binary.LittleEndian.AppendUint64(b, uint64(iv.Start))
			b = binary.LittleEndian.AppendUint64(b, uint64(iv.End+1))
		}
	}
	return b
}

// DecodeGTIDSet parses the binary form; it never panics on bad input.
func DecodeGTIDSet(b []byte) (*GTIDSet, error) {
	set := NewGTIDSet()
	if len(b) < 8 {
		return nil, fmt.Errorf("gtid set: %d bytes, too short", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	b = b[8:]
	if n > uint64(len(b))/24 {
		return nil, fmt.Errorf("gtid set: %d sids do not fit in %d bytes", n, len(b))
	}
	for i := uint64(0); i < n; i++ {
		if len(b) < 24 {
			return nil, fmt.Errorf("gtid set: truncated")
		}
		var sid SID
		copy(sid[:], b)
		k := binary.LittleEndian.Uint64(b[16:])
		b = b[24:]
		if k > uint64(len(b))/16 {
			return nil, fmt.Errorf("gtid set: %d intervals do not fit", k)
		}
		for j := uint64(0); j < k; j++ {
			start := int64(binary.LittleEndian.Uint64(b))
			end := int64(binary.LittleEndian.Uint64(b[8:])) - 1
			b = b[16:]
			if start < 1 || end < start {
				return nil, fmt.Errorf("gtid set: bad interval [%d, %d)", start, end+1)
			}
			set.AddRange(sid, start, end)
		}
	}
	return set, nil
}
