package keys

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
)

// StringError reports a string its column's character set cannot hold:
// invalid UTF-8 for a utf8mb4 column, a character outside the column's
// character set (a 4-byte character for utf8mb3, 'Ā' for latin1). MySQL
// refuses such a write with ER_TRUNCATED_WRONG_VALUE_FOR_FIELD (1366) in
// strict mode; the binlog could not encode it either. errors.Is(err,
// ErrInvalidValue) holds for it.
type StringError struct {
	// Column is the column's name, when the caller knows it.
	Column string
	// Charset is the column's character set.
	Charset string
	// Value is the offending part of the string as MySQL prints it:
	// printable ASCII as is, other bytes as \xHH, at most 6 bytes then
	// "...".
	Value string
}

func (e *StringError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("keys: incorrect string value: '%s' for character set %s", e.Value, e.Charset)
	}
	return fmt.Sprintf("keys: incorrect string value: '%s' for column '%s' (character set %s)", e.Value, e.Column, e.Charset)
}

func (e *StringError) Unwrap() error { return ErrInvalidValue }

// NameColumn sets the column name of a *StringError inside err (callers
// that encode a key know the column, the encoders do not).
func NameColumn(err error, column string) error {
	var se *StringError
	if errors.As(err, &se) && se.Column == "" {
		se.Column = column
	}
	return err
}

// checkText reports whether s (a Go string, UTF-8 as GMS keeps every
// character string) is representable in cs. validUTF8 says s is already
// known to be valid UTF-8.
func checkText(cs sql.CharacterSetID, s string, validUTF8 bool) error {
	switch cs {
	case sql.CharacterSet_utf8mb4:
		if validUTF8 || utf8.ValidString(s) {
			return nil
		}
	case sql.CharacterSet_utf8mb3:
		if (validUTF8 || utf8.ValidString(s)) && !hasFourByte(s) {
			return nil
		}
	case sql.CharacterSet_binary:
		return nil
	default:
		if isASCII(s) {
			// Every character set with an encoder holds ASCII unchanged
			// except swe7, whose few remapped punctuation characters the
			// encoder check below handles.
			if cs != sql.CharacterSet_swe7 {
				return nil
			}
		}
		enc := cs.Encoder()
		if enc == nil {
			return fmt.Errorf("%w: character set %s is not implemented", ErrUnsupportedType, cs.Name())
		}
		if _, ok := enc.Encode([]byte(s)); ok && (validUTF8 || utf8.ValidString(s)) {
			return nil
		}
	}
	return &StringError{Charset: cs.Name(), Value: badPart(cs, s)}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasFourByte reports whether valid UTF-8 s holds a character beyond the
// Basic Multilingual Plane (a 4-byte sequence), which utf8mb3 cannot hold.
func hasFourByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xF0 {
			return true
		}
	}
	return false
}

// badPart returns the part of s from its first character cs cannot hold,
// escaped as MySQL prints it in error 1366.
func badPart(cs sql.CharacterSetID, s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		if cs == sql.CharacterSet_utf8mb3 && n == 4 {
			break
		}
		if cs != sql.CharacterSet_utf8mb4 && cs != sql.CharacterSet_utf8mb3 {
			if enc := cs.Encoder(); enc != nil {
				if _, ok := enc.EncodeRune([]byte(s[i : i+n])); !ok {
					break
				}
			}
		}
		i += n
	}
	return escapeBytes(s[i:], 6)
}

// escapeBytes writes up to max bytes of s as MySQL's error messages do:
// printable ASCII as is, other bytes as \xHH, then "..." if s is longer.
func escapeBytes(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s) && i < max; i++ {
		if c := s[i]; c >= 0x20 && c < 0x7F {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\x%02X", c)
		}
	}
	if len(s) > max {
		b.WriteString("...")
	}
	return b.String()
}

// CheckRow returns a *StringError (naming the column) for the first
// string of row that its column's character set cannot hold. old, when
// not nil, is the row an UPDATE replaces: values it already held are not
// checked again, so rows stored before the check existed stay updatable.
//
// Storage does not call it: it stores what it is given (the replication
// applier and binlog recovery copy rows as their source logged them, as
// MySQL's applier does); the SQL layer checks what clients write.
func CheckRow(sch sql.Schema, old, row sql.Row) error {
	for i, col := range sch {
		if i >= len(row) {
			break
		}
		s, ok := row[i].(string)
		if !ok {
			continue
		}
		st, ok := col.Type.(sql.StringType)
		if !ok {
			continue
		}
		if i < len(old) {
			if o, ok := old[i].(string); ok && o == s {
				continue
			}
		}
		if err := checkText(st.CharacterSet(), s, false); err != nil {
			return NameColumn(err, col.Name)
		}
	}
	return nil
}
