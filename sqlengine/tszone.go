package sqlengine

import (
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/internal/mysqlerr"
	"petrel/storage"
)

// TIMESTAMP and the session's time_zone. MySQL stores a TIMESTAMP as
// UTC: a value written is read as a wall-clock time of the writer's
// session time_zone and converted to UTC, a value read is converted to
// the reader's zone. Petrel's storage, its binlog (TIMESTAMP2 holds
// seconds since the epoch) and its replicas hold UTC; GMS's values are
// wall-clock times of the session's zone (NOW() is, and a literal is
// what the client wrote). The conversion is made where rows cross
// between GMS and storage: the table editor converts a row it is given
// to UTC (tsRowToStore), scans convert the rows they return to the
// session's zone (tsRowFromStore), and index ranges over a TIMESTAMP
// column convert their bounds (rangeBounds). A session whose zone is UTC
// ('+00:00', 'UTC', or SYSTEM on a host kept in UTC) converts nothing;
// any other keeps its statements off the fast paths (ExecutorOnFor),
// which read and write stored values directly, and off the scans'
// prefilters of TIMESTAMP columns, which test stored values.
//
// GMS's own conversion of a TIMESTAMP column's value (its type's
// Convert) checks the range on the wall-clock time; the UTC value is
// checked here: '1970-01-01 03:00:00' at '+05:00' is before the epoch,
// refused with 1292 as MySQL's strict mode does.

var (
	tsMinUTC = time.Unix(1, 0).UTC()
	tsMaxUTC = time.Unix(1<<31-1, 999999999).UTC()
	// tsZeroFloor: a value before it is the zero TIMESTAMP (GMS's
	// 0000-01-01) or GMS's out-of-range placeholder: stored as it is.
	tsZeroFloor = time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// timestampZone returns the zone the session's TIMESTAMP values are
// read and written in, nil for UTC; read again only after a SET.
func (s *Session) timestampZone() *time.Location {
	if s.tzGen != s.varGen+1 {
		v, err := s.BaseSession.GetSessionVariable(nil, "time_zone")
		name, _ := v.(string)
		s.tz = nil
		if err == nil {
			s.tz = zoneNamed(name)
		}
		s.tzGen = s.varGen + 1
	}
	return s.tz
}

// TimestampsConverted reports whether s reads and writes TIMESTAMP
// values through a zone other than UTC.
func (s *Session) TimestampsConverted() bool { return s != nil && s.timestampZone() != nil }

// zoneNamed returns the location of a time_zone value ("SYSTEM",
// "+05:30", "Europe/Berlin"), nil when it is UTC or unknown (GMS refuses
// an unknown zone when it is set).
func zoneNamed(name string) *time.Location {
	var loc *time.Location
	switch {
	case strings.EqualFold(name, "SYSTEM"):
		loc = time.Local
	case len(name) == 6 && (name[0] == '+' || name[0] == '-') && name[3] == ':':
		h, m := digits2(name[1:3]), digits2(name[4:6])
		if h < 0 || m < 0 {
			return nil
		}
		off := (h*60 + m) * 60
		if name[0] == '-' {
			off = -off
		}
		if off == 0 {
			return nil
		}
		return time.FixedZone(name, off)
	default:
		l, err := time.LoadLocation(name)
		if err != nil {
			return nil
		}
		loc = l
	}
	if loc == time.UTC || alwaysUTC(loc) {
		return nil
	}
	return loc
}

func digits2(s string) int {
	if len(s) != 2 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return -1
	}
	return int(s[0]-'0')*10 + int(s[1]-'0')
}

// alwaysUTC reports whether loc is UTC at every instant a TIMESTAMP can
// hold (its offset 0 at both ends and now, and no transitions between:
// Go's tzdata gives the zone's transitions through ZoneBounds).
func alwaysUTC(loc *time.Location) bool {
	t := time.Unix(1, 0).In(loc)
	for i := 0; i < 4; i++ {
		if _, off := t.Zone(); off != 0 {
			return false
		}
		_, end := t.ZoneBounds()
		if end.IsZero() || end.After(tsMaxUTC) {
			return true
		}
		t = end.In(loc)
	}
	return false
}

// sessionZone is ctx's session's TIMESTAMP zone, nil for UTC.
func sessionZone(ctx *sql.Context) *time.Location {
	if ctx == nil {
		return nil
	}
	s, ok := ctx.Session.(*Session)
	if !ok {
		return nil
	}
	return s.timestampZone()
}

// timestampCols returns the ordinals of st's TIMESTAMP columns.
func timestampCols(st *storage.Table) []int {
	var out []int
	for i, c := range st.Schema {
		if c.Type.Type() == sqltypes.Timestamp {
			out = append(out, i)
		}
	}
	return out
}

// tsToUTC reads v as a wall-clock time of loc and returns its UTC time;
// ok=false when that is outside TIMESTAMP's range.
func tsToUTC(v time.Time, loc *time.Location) (time.Time, bool) {
	if v.Before(tsZeroFloor) {
		return v, true
	}
	u := time.Date(v.Year(), v.Month(), v.Day(), v.Hour(), v.Minute(), v.Second(), v.Nanosecond(), loc).UTC()
	return u, !u.Before(tsMinUTC) && !u.After(tsMaxUTC)
}

// tsFromUTC returns the wall-clock time of loc at UTC time v, as GMS
// holds times (location UTC).
func tsFromUTC(v time.Time, loc *time.Location) time.Time {
	if v.Before(tsZeroFloor) {
		return v
	}
	l := v.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
}

// tsRowToStore returns row with its TIMESTAMP values converted from the
// session's zone to UTC (a copy when one changes; row itself for a UTC
// session). n is the statement's row number, for 1292.
func tsRowToStore(ctx *sql.Context, st *storage.Table, row sql.Row, n int) (sql.Row, error) {
	loc := sessionZone(ctx)
	if loc == nil {
		return row, nil
	}
	copied := false
	for i, c := range st.Schema {
		if i >= len(row) || c.Type.Type() != sqltypes.Timestamp {
			continue
		}
		v, ok := row[i].(time.Time)
		if !ok {
			continue
		}
		u, inRange := tsToUTC(v, loc)
		if !inRange {
			return nil, mysqlerr.New(mysqlerr.ErWrongValue, "Incorrect datetime value: '%s' for column '%s' at row %d",
				v.Format("2006-01-02 15:04:05"), c.Name, max(n, 1))
		}
		if !copied {
			row = append(sql.Row(nil), row...)
			copied = true
		}
		row[i] = u
	}
	return row, nil
}

// tsReader converts the TIMESTAMP values of the rows one scan returns
// to a session's zone; the zero tsReader converts nothing.
type tsReader struct {
	loc  *time.Location
	cols []int
}

// newTSReader returns the conversion a scan of st needs for ctx.
func newTSReader(ctx *sql.Context, st *storage.Table) tsReader {
	loc := sessionZone(ctx)
	if loc == nil {
		return tsReader{}
	}
	cols := timestampCols(st)
	if len(cols) == 0 {
		return tsReader{}
	}
	return tsReader{loc: loc, cols: cols}
}

// row returns r with its TIMESTAMP values in the reader's zone: a copy
// (storage's rows may be its own).
func (t tsReader) row(r sql.Row) sql.Row {
	if t.loc == nil || r == nil {
		return r
	}
	r = append(sql.Row(nil), r...)
	for _, o := range t.cols {
		if o < len(r) {
			if v, ok := r[o].(time.Time); ok {
				r[o] = tsFromUTC(v, t.loc)
			}
		}
	}
	return r
}

// tsRowFromStore is tsReader's conversion of one row.
func tsRowFromStore(ctx *sql.Context, st *storage.Table, r sql.Row) sql.Row {
	return newTSReader(ctx, st).row(r)
}

// tsKeyToStore converts an index range's bound for a column of type typ
// to the stored form (UTC for a TIMESTAMP in a converting session).
func tsKeyToStore(ctx *sql.Context, typ sql.Type, v any) any {
	if typ.Type() != sqltypes.Timestamp {
		return v
	}
	t, isTime := v.(time.Time)
	loc := sessionZone(ctx)
	if !isTime || loc == nil {
		return v
	}
	u, _ := tsToUTC(t, loc)
	return u
}
