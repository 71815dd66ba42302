package rowenc

import (
	"fmt"
	"strconv"
	"time"
)

// Temporal formats (MySQL 5.6.4+, my_time.cc / my_datetime_packed_to_binary
// and friends):
//
//   - DATE: 3 bytes little-endian, day | month<<5 | year<<9.
//   - DATETIME2: 5 bytes big-endian of 0x8000000000 + packed, where packed is
//     (year*13+month)<<22 | day<<17 | hour<<12 | minute<<6 | second, followed
//     by the fractional part.
//   - TIMESTAMP2: 4 bytes big-endian seconds since the Unix epoch, followed by
//     the fractional part. 0 is the zero timestamp.
//   - TIME2: the "packed time" nr = ±(hms<<24 + microseconds) with
//     hms = hour<<12 | minute<<6 | second, stored as 3 bytes big-endian of
//     0x800000 + (nr>>24) plus the fractional part (for fsp 5-6: 6 bytes
//     big-endian of 0x800000000000 + nr). Negative values with fsp 1-4 store
//     the fractional part as computed by C's truncating % on nr, which the
//     reader undoes (see decodeTime2).
//
// The fractional part takes (fsp+1)/2 bytes, big-endian: hundredths of a
// second for fsp 1-2, 1/10000 s for fsp 3-4, microseconds for fsp 5-6.

// zeroTime is how GMS represents the zero date/datetime/timestamp
// ('0000-00-00 00:00:00'): 0000-01-01 00:00:00 UTC.
var zeroTime = time.Unix(-62167219200, 0).UTC()

// mysqlTime is a broken-down DATE/DATETIME/TIMESTAMP/TIME value.
type mysqlTime struct {
	Year, Month, Day, Hour, Minute, Second, Micro int
	Neg                                           bool // TIME only
}

func (m mysqlTime) isZero() bool {
	return m == mysqlTime{}
}

func fracBytes(fsp int) int { return (fsp + 1) / 2 }

func checkFsp(fsp uint16) error {
	if fsp > 6 {
		return corrupt("fractional seconds precision %d > 6", fsp)
	}
	return nil
}

// fracUnit is the granularity in microseconds of a value with fsp digits.
func fracUnit(fsp int) int64 {
	u := int64(1)
	for i := fsp; i < 6; i++ {
		u *= 10
	}
	return u
}

// appendFrac writes the fractional part of a non-negative value, us already
// rounded to fsp.
func appendFrac(dst []byte, us int, fsp int) []byte {
	switch fsp {
	case 1, 2:
		return append(dst, byte(us/10000))
	case 3, 4:
		v := us / 100
		return append(dst, byte(v>>8), byte(v))
	case 5, 6:
		return append(dst, byte(us>>16), byte(us>>8), byte(us))
	}
	return dst
}

// readFrac reads the fractional part of a DATETIME2/TIMESTAMP2 value.
func readFrac(b []byte, fsp int) (int, error) {
	n := fracBytes(fsp)
	if len(b) < n {
		return 0, corrupt("truncated fractional seconds")
	}
	var us int
	switch fsp {
	case 1, 2:
		if b[0] > 99 {
			return 0, corrupt("fractional part %d out of range", b[0])
		}
		us = int(b[0]) * 10000
	case 3, 4:
		v := int(b[0])<<8 | int(b[1])
		if v > 9999 {
			return 0, corrupt("fractional part %d out of range", v)
		}
		us = v * 100
	case 5, 6:
		us = int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		if us > 999999 {
			return 0, corrupt("fractional part %d out of range", us)
		}
	}
	return us, nil
}

// roundTime rounds t to fsp fractional digits (half up, as MySQL does by
// default) and returns it in UTC.
func roundTime(t time.Time, fsp int) time.Time {
	t = t.UTC()
	if fsp < 6 || t.Nanosecond()%1000 != 0 {
		t = t.Round(time.Duration(fracUnit(fsp)) * time.Microsecond)
	}
	return t
}

func brokenDown(t time.Time) mysqlTime {
	if t.Equal(zeroTime) {
		return mysqlTime{}
	}
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return mysqlTime{Year: y, Month: int(mo), Day: d, Hour: h, Minute: mi, Second: s, Micro: t.Nanosecond() / 1000}
}

func appendDate(dst []byte, t time.Time) ([]byte, error) {
	m := brokenDown(t.UTC())
	if m.Year < 0 || m.Year > 9999 {
		return nil, fmt.Errorf("%w: date %v", ErrRange, t)
	}
	v := uint32(m.Day) | uint32(m.Month)<<5 | uint32(m.Year)<<9
	return append(dst, byte(v), byte(v>>8), byte(v>>16)), nil
}

func decodeDate(b []byte) (mysqlTime, int, error) {
	if len(b) < 3 {
		return mysqlTime{}, 0, corrupt("truncated DATE")
	}
	v := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
	return mysqlTime{Year: int(v >> 9), Month: int(v>>5) & 15, Day: int(v) & 31}, 3, nil
}

const datetimeIntOfs = 0x8000000000

func appendDatetime2(dst []byte, t time.Time, fsp int) ([]byte, error) {
	m := brokenDown(roundTime(t, fsp))
	if m.Year < 0 || m.Year > 9999 {
		return nil, fmt.Errorf("%w: datetime %v", ErrRange, t)
	}
	ym := uint64(m.Year*13 + m.Month)
	packed := (ym<<5|uint64(m.Day))<<17 | uint64(m.Hour)<<12 | uint64(m.Minute)<<6 | uint64(m.Second)
	v := packed + datetimeIntOfs
	dst = append(dst, byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	return appendFrac(dst, m.Micro, fsp), nil
}

func decodeDatetime2(b []byte, fsp int) (mysqlTime, int, error) {
	n := 5 + fracBytes(fsp)
	if len(b) < n {
		return mysqlTime{}, 0, corrupt("truncated DATETIME2")
	}
	v := uint64(b[0])<<32 | uint64(b[1])<<24 | uint64(b[2])<<16 | uint64(b[3])<<8 | uint64(b[4])
	if v < datetimeIntOfs {
		// The sign bit is clear: a negative DATETIME, which MySQL never
		// stores.
		return mysqlTime{}, 0, corrupt("negative DATETIME2")
	}
	packed := v - datetimeIntOfs
	ymd := packed >> 17
	ym := ymd >> 5
	hms := packed & (1<<17 - 1)
	us, err := readFrac(b[5:], fsp)
	if err != nil {
		return mysqlTime{}, 0, err
	}
	return mysqlTime{
		Year: int(ym / 13), Month: int(ym % 13), Day: int(ymd & 31),
		Hour: int(hms >> 12), Minute: int(hms>>6) & 63, Second: int(hms) & 63,
		Micro: us,
	}, n, nil
}

func appendTimestamp2(dst []byte, t time.Time, fsp int) ([]byte, error) {
	t = roundTime(t, fsp)
	var sec int64
	us := 0
	if !t.Equal(zeroTime) {
		sec = t.Unix()
		us = t.Nanosecond() / 1000
		if sec <= 0 || sec > 0xffffffff {
			return nil, fmt.Errorf("%w: timestamp %v", ErrRange, t)
		}
	}
	dst = append(dst, byte(sec>>24), byte(sec>>16), byte(sec>>8), byte(sec))
	return appendFrac(dst, us, fsp), nil
}

func decodeTimestamp2(b []byte, fsp int) (sec int64, us int, n int, err error) {
	n = 4 + fracBytes(fsp)
	if len(b) < n {
		return 0, 0, 0, corrupt("truncated TIMESTAMP2")
	}
	sec = int64(b[0])<<24 | int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3])
	if us, err = readFrac(b[4:], fsp); err != nil {
		return 0, 0, 0, err
	}
	if sec == 0 && us != 0 {
		// 0 is the zero timestamp; 1970-01-01 00:00:00.x is below the
		// TIMESTAMP range.
		return 0, 0, 0, corrupt("TIMESTAMP2 with zero seconds and a fraction")
	}
	return sec, us, n, nil
}

const (
	timeIntOfs = 0x800000
	timeOfs    = 0x800000000000
	// maxTimeMicros is 838:59:59, the TIME range limit of both MySQL
	// (TIME(6) tops out at 838:59:59.000000) and GMS.
	maxTimeMicros = 3020399000000
)

// appendTime2 writes a TIME value given in signed microseconds, already
// rounded to fsp.
func appendTime2(dst []byte, micros int64, fsp int) ([]byte, error) {
	if micros < -maxTimeMicros || micros > maxTimeMicros {
		return nil, fmt.Errorf("%w: TIME of %d microseconds", ErrRange, micros)
	}
	neg := micros < 0
	a := micros
	if neg {
		a = -a
	}
	us := a % 1000000
	secs := a / 1000000
	hms := (secs/3600)<<12 | (secs/60%60)<<6 | secs%60
	nr := hms<<24 + us
	if neg {
		nr = -nr
	}
	// C semantics: >> is arithmetic (floor), % truncates toward zero; Go
	// matches both for int64.
	intPart := nr >> 24
	frac := nr % (1 << 24)
	switch fsp {
	case 1, 2:
		v := uint32(timeIntOfs + intPart)
		return append(dst, byte(v>>16), byte(v>>8), byte(v), byte(int8(frac/10000))), nil
	case 3, 4:
		v := uint32(timeIntOfs + intPart)
		f := uint16(int16(frac / 100))
		return append(dst, byte(v>>16), byte(v>>8), byte(v), byte(f>>8), byte(f)), nil
	case 5, 6:
		v := uint64(nr + timeOfs)
		return append(dst, byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v)), nil
	}
	v := uint32(timeIntOfs + intPart)
	return append(dst, byte(v>>16), byte(v>>8), byte(v)), nil
}

// decodeTime2 reads a TIME2 value (my_time_packed_from_binary) and returns it
// broken down.
func decodeTime2(b []byte, fsp int) (mysqlTime, int, error) {
	n := 3 + fracBytes(fsp)
	if len(b) < n {
		return mysqlTime{}, 0, corrupt("truncated TIME2")
	}
	var nr int64
	intPart := int64(b[0])<<16 | int64(b[1])<<8 | int64(b[2]) - timeIntOfs
	switch fsp {
	case 1, 2:
		frac := int64(b[3])
		if intPart < 0 && frac != 0 {
			// Negative values keep the fractional part in reverse order
			// so that the encoding sorts; shift to the next integer.
			intPart++
			frac -= 0x100
		}
		nr = intPart<<24 + frac*10000
	case 3, 4:
		frac := int64(b[3])<<8 | int64(b[4])
		if intPart < 0 && frac != 0 {
			intPart++
			frac -= 0x10000
		}
		nr = intPart<<24 + frac*100
	case 5, 6:
		nr = (int64(b[0])<<40 | int64(b[1])<<32 | int64(b[2])<<24 | int64(b[3])<<16 | int64(b[4])<<8 | int64(b[5])) - timeOfs
	default:
		nr = intPart << 24
	}
	m := mysqlTime{Neg: nr < 0}
	if m.Neg {
		nr = -nr
	}
	m.Micro = int(nr % (1 << 24))
	hms := nr >> 24
	m.Hour = int(hms>>12) & 0x3ff
	m.Minute = int(hms>>6) & 63
	m.Second = int(hms) & 63
	if m.Micro > 999999 || m.Minute > 59 || m.Second > 59 {
		return mysqlTime{}, 0, corrupt("bad TIME2 value %d:%d:%d.%d", m.Hour, m.Minute, m.Second, m.Micro)
	}
	return m, n, nil
}

func (m mysqlTime) micros() int64 {
	v := ((int64(m.Hour)*60+int64(m.Minute))*60+int64(m.Second))*1000000 + int64(m.Micro)
	if m.Neg {
		return -v
	}
	return v
}

// Legacy (pre-5.6.4) temporal formats, decode only.

func decodeOldTimestamp(b []byte) (int64, int, error) {
	if len(b) < 4 {
		return 0, 0, corrupt("truncated TIMESTAMP")
	}
	return int64(b[0]) | int64(b[1])<<8 | int64(b[2])<<16 | int64(b[3])<<24, 4, nil
}

// decodeOldDatetime reads the 8-byte little-endian integer YYYYMMDDhhmmss.
func decodeOldDatetime(b []byte) (mysqlTime, int, error) {
	if len(b) < 8 {
		return mysqlTime{}, 0, corrupt("truncated DATETIME")
	}
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	if v > 99991231235959 {
		return mysqlTime{}, 0, corrupt("bad DATETIME %d", v)
	}
	d, t := v/1000000, v%1000000
	return mysqlTime{
		Year: int(d / 10000), Month: int(d / 100 % 100), Day: int(d % 100),
		Hour: int(t / 10000), Minute: int(t / 100 % 100), Second: int(t % 100),
	}, 8, nil
}

// decodeOldTime reads the 3-byte little-endian signed integer ±HHMMSS.
func decodeOldTime(b []byte) (mysqlTime, int, error) {
	if len(b) < 3 {
		return mysqlTime{}, 0, corrupt("truncated TIME")
	}
	v := int32(uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16) << 8 >> 8
	m := mysqlTime{Neg: v < 0}
	if v < 0 {
		v = -v
	}
	m.Hour, m.Minute, m.Second = int(v/10000), int(v/100%100), int(v%100)
	return m, 3, nil
}

// validDatetime reports whether m is a real calendar date and time of day,
// one that time.Date represents without normalising it. (MySQL may log
// dates with zero parts or invalid days under lax SQL modes; GMS cannot hold
// them.)
func (m mysqlTime) validDatetime() bool {
	if m.Year < 0 || m.Year > 9999 || m.Month < 1 || m.Month > 12 || m.Day < 1 ||
		m.Hour > 23 || m.Minute > 59 || m.Second > 59 || m.Micro > 999999 {
		return false
	}
	return m.Day <= daysIn(m.Year, m.Month)
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func (m mysqlTime) toTime() time.Time {
	return time.Date(m.Year, time.Month(m.Month), m.Day, m.Hour, m.Minute, m.Second, m.Micro*1000, time.UTC)
}

// appendDate formats as YYYY-MM-DD (zero parts printed as zeros).
func (m mysqlTime) appendDate(dst []byte) []byte {
	dst = appendInt(dst, m.Year, 4)
	dst = append(dst, '-')
	dst = appendInt(dst, m.Month, 2)
	dst = append(dst, '-')
	return appendInt(dst, m.Day, 2)
}

// appendClock formats HH:MM:SS[.frac] with fsp fractional digits; hours get
// at least two digits (TIME may have three).
func (m mysqlTime) appendClock(dst []byte, fsp int) []byte {
	dst = appendInt(dst, m.Hour, 2)
	dst = append(dst, ':')
	dst = appendInt(dst, m.Minute, 2)
	dst = append(dst, ':')
	dst = appendInt(dst, m.Second, 2)
	if fsp > 0 {
		dst = append(dst, '.')
		dst = append(dst, strconv.Itoa(1000000 + m.Micro)[1:1+fsp]...)
	}
	return dst
}

func (m mysqlTime) formatDate() string { return string(m.appendDate(nil)) }

func (m mysqlTime) formatDatetime(fsp int) string {
	b := m.appendDate(make([]byte, 0, 26))
	b = append(b, ' ')
	return string(m.appendClock(b, fsp))
}

func (m mysqlTime) formatTime(fsp int) string {
	var b []byte
	if m.Neg {
		b = append(b, '-')
	}
	return string(m.appendClock(b, fsp))
}

func appendInt(dst []byte, v, width int) []byte {
	s := strconv.Itoa(v)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}
