package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
	"petrel/storage"
	"petrel/storage/keys"
)

// Character sets and collations as MySQL negotiates them.
//
// Inside Petrel every character string is UTF-8, whatever its column's
// character set (go-mysql-server's representation): a column's character
// set decides what it may hold (a client write of a string it cannot
// represent fails with 1366, keys.CheckRow) and how the binlog encodes it;
// its collation decides comparisons and the storage key encoding
// (storage/keys). Per session, as in MySQL:
//
//   - character_set_client: the encoding of statement text and string
//     parameters. A client whose character set is not UTF-8 has its text
//     decoded to UTF-8 before it is parsed (clientconv.go).
//   - character_set_connection / collation_connection: the collation of
//     literals. Setting either sets the other (the character set's default
//     collation, or the collation's character set).
//   - character_set_results: the encoding of result strings (GMS's
//     StringType.SQL encodes them) and the character set result columns
//     announce. NULL or binary: each column's own character set.
//
// The handshake's collation sets all of them, as `SET NAMES` does; an id
// Petrel does not know leaves the server's defaults (MySQL does the same).
// New databases take collation_server; new tables their database's
// collation. The defaults are MySQL 8.0's: utf8mb4 and utf8mb4_0900_ai_ci.

// Default character set and collation (MySQL 8.0's).
const (
	defaultCharset   = "utf8mb4"
	defaultCollation = "utf8mb4_0900_ai_ci"
)

// charsetVariables are the character set and collation variables with
// MySQL 8.0's defaults (GMS's are utf8mb4_0900_bin).
func charsetVariables() []sql.SystemVariable {
	both := sql.GetMysqlScope(sql.SystemVariableScope_Both)
	v := func(name, def string) sql.SystemVariable {
		return &sql.MysqlSystemVariable{Name: name, Scope: both, Dynamic: true, Type: types.NewSystemStringType(name), Default: def}
	}
	return []sql.SystemVariable{
		v("character_set_client", defaultCharset),
		v("character_set_connection", defaultCharset),
		v("character_set_results", defaultCharset),
		v("character_set_server", defaultCharset),
		v("character_set_database", defaultCharset),
		v("collation_connection", defaultCollation),
		v("collation_server", defaultCollation),
		v("collation_database", defaultCollation),
	}
}

// charsetPairs links each character set variable to its collation
// variable. GMS's SET links the connection and server pairs itself (the
// character set's default collation, or the collation's character set);
// Petrel's own setters (SET NAMES, the option file) use charsetLinked.
var charsetPairs = map[string]string{
	"character_set_connection": "collation_connection",
	"character_set_server":     "collation_server",
	"character_set_database":   "collation_database",
}

var collationPairs = map[string]string{
	"collation_connection": "character_set_connection",
	"collation_server":     "character_set_server",
	"collation_database":   "character_set_database",
}

// assignment is one variable value to store.
type assignment struct {
	name  string
	value any
}

// charsetValue validates a value for a character set or collation
// variable and returns it normalised (utf8 -> utf8mb3, case, collation
// ids -> names); ok is false for any other variable.
func charsetValue(name string, value any) (_ any, ok bool, _ error) {
	name = strings.ToLower(name)
	if name == "sql_mode" {
		return nil, false, checkSQLMode(value)
	}
	if _, ok := charsetPairs[name]; !ok && collationPairs[name] == "" &&
		name != "character_set_client" && name != "character_set_results" {
		return nil, false, nil
	}
	if value == nil || value == "" {
		if name == "character_set_results" {
			// NULL: results in each column's own character set.
			return "", true, nil
		}
		return nil, true, wrongValueForVar(name, "NULL")
	}
	if _, ok := collationPairs[name]; ok {
		id, err := collationByValue(value)
		if err != nil {
			return nil, true, err
		}
		return id.Name(), true, nil
	}
	if name == "character_set_client" {
		if err := checkClientCharsetName(value); err != nil {
			return nil, true, err
		}
	}
	cs, err := charsetByValue(value)
	if err != nil {
		return nil, true, err
	}
	switch name {
	case "character_set_client":
		if !clientCapable(cs) {
			return nil, true, wrongValueForVar(name, cs.Name())
		}
	case "character_set_results":
		if cs.Encoder() == nil {
			return nil, true, unknownCharset(cs.Name())
		}
	}
	return cs.Name(), true, nil
}

// charsetLinked is a validated assignment with its linked variable: a
// character set's default collation, or a collation's character set.
// nil when name is not a character set or collation variable.
func charsetLinked(name string, value any) ([]assignment, error) {
	name = strings.ToLower(name)
	v, ok, err := charsetValue(name, value)
	if !ok || err != nil {
		return nil, err
	}
	out := []assignment{{name, v}}
	if coll, ok := charsetPairs[name]; ok {
		cs, _ := sql.ParseCharacterSet(v.(string))
		out = append(out, assignment{coll, cs.DefaultCollation().Name()})
	} else if cs, ok := collationPairs[name]; ok {
		id, _ := sql.ParseCollation("", v.(string), false)
		out = append(out, assignment{cs, id.CharacterSet().Name()})
	}
	return out, nil
}

// charsetByValue resolves a character set named by value (a string or a
// collation id, as MySQL accepts) that Petrel can encode and collate.
func charsetByValue(value any) (sql.CharacterSetID, error) {
	s, isNum := valueString(value)
	if isNum {
		id, err := collationByValue(value)
		if err != nil {
			return 0, err
		}
		return id.CharacterSet(), nil
	}
	cs, err := sql.ParseCharacterSet(s)
	if err != nil || cs == sql.CharacterSet_Unspecified || cs.Encoder() == nil ||
		cs.DefaultCollation().Sorter() == nil {
		return 0, unknownCharset(s)
	}
	return cs, nil
}

// collationByValue resolves a collation named by value (a name or an id)
// that Petrel implements.
func collationByValue(value any) (sql.CollationID, error) {
	s, isNum := valueString(value)
	var id sql.CollationID
	if isNum {
		n, err := strconv.ParseUint(s, 10, 16)
		if err != nil || n >= 1024 {
			return 0, unknownCollation(s)
		}
		id = sql.CollationID(n)
		if id.Name() == "" || id == sql.Collation_Unspecified {
			return 0, unknownCollation(s)
		}
	} else {
		var err error
		if id, err = sql.ParseCollation("", s, false); err != nil || id == sql.Collation_Unspecified {
			return 0, unknownCollation(s)
		}
	}
	if id.Sorter() == nil || id.CharacterSet().Encoder() == nil {
		return 0, unknownCollation(s)
	}
	return id, nil
}

// valueString returns value as text and whether it was a number.
func valueString(value any) (string, bool) {
	switch v := value.(type) {
	case string:
		return strings.TrimSpace(v), false
	case []byte:
		return strings.TrimSpace(string(v)), false
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(v), true
	}
	return fmt.Sprint(value), false
}

// checkClientCharsetName refuses the character sets MySQL refuses for
// clients (their text is not ASCII-compatible): 1231, as MySQL.
func checkClientCharsetName(value any) error {
	s, _ := valueString(value)
	switch cs, err := sql.ParseCharacterSet(s); {
	case err != nil:
		return nil // charsetByValue reports it
	case cs == sql.CharacterSet_ucs2 || cs == sql.CharacterSet_utf16 || cs == sql.CharacterSet_utf16le || cs == sql.CharacterSet_utf32:
		return wrongValueForVar("character_set_client", cs.Name())
	}
	return nil
}

func unknownCharset(name string) error {
	return mysqlerr.New(mysqlerr.ErUnknownCharacterSet, "Unknown character set: '%s'", name)
}

func unknownCollation(name string) error {
	return mysqlerr.New(mysqlerr.ErUnknownCollation, "Unknown collation: '%s'", name)
}

func wrongValueForVar(name, value string) error {
	return mysqlerr.New(mysqlerr.ErWrongValueForVar, "Variable '%s' can't be set to the value of '%s'", name, value)
}

// SetSessionVariable implements sql.Session: connection variables reach
// the connection wrapper at once (noteConnVar); character set and collation
// variables are validated (MySQL's errors 1115, 1273, 1231) and stored
// normalised; a change of character_set_client changes how the
// connection's text is decoded.
func (s *Session) SetSessionVariable(ctx *sql.Context, name string, value any) error {
	s.varGen++
	name = varAlias(name)
	v, ok, err := charsetValue(name, value)
	if err != nil {
		return err
	}
	if !ok {
		if err := s.BaseSession.SetSessionVariable(ctx, name, value); err != nil {
			return err
		}
		s.noteConnVar(name)
		return nil
	}
	if err := s.BaseSession.SetSessionVariable(ctx, name, v); err != nil {
		return err
	}
	if strings.EqualFold(name, "character_set_client") {
		s.noteClientCharset(ctx)
	}
	return nil
}

// noteClientCharset tells the connection how to decode its text from now
// on (clientconv.go).
func (s *Session) noteClientCharset(ctx *sql.Context) {
	if s.conn == nil {
		return
	}
	v, err := s.BaseSession.GetSessionVariable(ctx, "character_set_client")
	if err != nil {
		return
	}
	name, _ := v.(string)
	cs, err := sql.ParseCharacterSet(name)
	if err != nil {
		return
	}
	s.conn.codec.Store(codecFor(cs))
}

// applyHandshake sets the session's character set variables from the
// collation id the client sent in its handshake response, as MySQL does:
// character_set_client, _connection and _results become the collation's
// character set and collation_connection the collation itself. An id
// Petrel does not know keeps the server's defaults; a character set it
// cannot decode is refused.
func (s *Session) applyHandshake(ctx *sql.Context, id uint8) error {
	coll, ok := handshakeCollation(id)
	if !ok {
		s.noteClientCharset(ctx)
		return nil
	}
	cs := coll.CharacterSet()
	if !clientCapable(cs) {
		return unknownCharset(cs.Name())
	}
	for _, a := range []assignment{
		{"character_set_client", cs.Name()},
		{"character_set_results", cs.Name()},
		{"collation_connection", coll.Name()},
		{"character_set_connection", cs.Name()},
	} {
		if err := s.BaseSession.SetSessionVariable(ctx, a.name, a.value); err != nil {
			return err
		}
	}
	s.noteClientCharset(ctx)
	return nil
}

// handshakeCollation resolves a handshake's collation id; false when
// Petrel does not know it (0, an unassigned id, an unimplemented
// collation), which leaves the server's defaults.
func handshakeCollation(id uint8) (sql.CollationID, bool) {
	coll := sql.CollationID(id)
	if id == 0 || coll.Name() == "" || coll.Sorter() == nil || coll.CharacterSet().Encoder() == nil {
		return 0, false
	}
	return coll, true
}

// setNames answers `SET NAMES cs [COLLATE coll]` and `SET CHARACTER SET
// cs` (GMS's parser drops SET NAMES' COLLATE clause; plain forms inside
// other SET statements reach SetSessionVariable through GMS).
func (e *Engine) setNames(_ context.Context, s *Session, m []string) (*AdminResult, error) {
	// A statement that is no diagnostic one clears the previous one's
	// conditions (MySQL): the OK packet of SET NAMES counted the
	// warnings of the statement before it.
	s.ClearWarnings()
	ctx := sql.NewEmptyContext()
	kind, csName, collName := strings.ToUpper(m[1]), unquoteName(m[2]), unquoteName(m[3])
	if strings.EqualFold(csName, "DEFAULT") {
		csName = e.globals.String("character_set_client", defaultCharset)
	}
	if err := checkClientCharsetName(csName); err != nil {
		return nil, err
	}
	cs, err := charsetByValue(csName)
	if err != nil {
		return nil, err
	}
	if !clientCapable(cs) {
		return nil, wrongValueForVar("character_set_client", cs.Name())
	}
	set := []assignment{{"character_set_client", cs.Name()}, {"character_set_results", cs.Name()}}
	switch {
	case kind != "NAMES":
		// SET CHARACTER SET: the connection takes the database's character
		// set and collation.
		dbColl := sql.CollationID(0)
		if db := s.GetCurrentDatabase(); db != "" {
			if d := e.store.Catalog().Database(db); d != nil {
				dbColl = sql.CollationID(d.Def().Collation)
			}
		}
		if dbColl == 0 || dbColl.Sorter() == nil {
			if id, err := collationByValue(e.globals.String("collation_server", defaultCollation)); err == nil {
				dbColl = id
			}
		}
		set = append(set, assignment{"collation_connection", dbColl.Name()}, assignment{"character_set_connection", dbColl.CharacterSet().Name()})
	case collName != "":
		coll, err := collationByValue(collName)
		if err != nil {
			return nil, err
		}
		if coll.CharacterSet() != cs {
			return nil, mysqlerr.New(mysqlerr.ErCollationCharsetMismatch, "COLLATION '%s' is not valid for CHARACTER SET '%s'", coll.Name(), cs.Name())
		}
		set = append(set, assignment{"collation_connection", coll.Name()}, assignment{"character_set_connection", cs.Name()})
	default:
		set = append(set, assignment{"collation_connection", cs.DefaultCollation().Name()}, assignment{"character_set_connection", cs.Name()})
	}
	for _, a := range set {
		if err := s.SetSessionVariable(ctx, a.name, a.value); err != nil {
			return nil, err
		}
	}
	return &AdminResult{}, nil
}

func unquoteName(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"' || s[0] == '`') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// serverCollation is the collation a CREATE DATABASE without one takes:
// the session's collation_server, as in MySQL.
func serverCollation(ctx *sql.Context) sql.CollationID {
	if v, err := ctx.GetSessionVariable(ctx, "collation_server"); err == nil {
		if s, ok := v.(string); ok {
			if id, err := collationByValue(s); err == nil {
				return id
			}
		}
	}
	id, _ := collationByValue(defaultCollation)
	return id
}

// defaultCreateDB gives a CREATE DATABASE without a character set or
// collation the session's collation_server (GMS would give it its own
// default, utf8mb4_0900_bin), and refuses a collation GMS has no weights
// for (its tables could hold no string column).
func defaultCreateDB(ctx *sql.Context, n *plan.CreateDB) error {
	if err := checkDBName(n.DbName); err != nil {
		return err
	}
	if n.Collation == sql.Collation_Unspecified {
		n.Collation = serverCollation(ctx)
	}
	return implementedCollation(n.Collation)
}

// implementedCollation refuses, with MySQL's 1273, a collation GMS knows
// by name but cannot compare with.
func implementedCollation(c sql.CollationID) error {
	if c == sql.Collation_Unspecified || (c.Sorter() != nil && c.CharacterSet().Encoder() != nil) {
		return nil
	}
	return unknownCollation(c.Name())
}

// stringError is MySQL's answer to a string its column cannot hold
// (keys.StringError): 1366 in strict mode, the statement rolled back.
func stringError(err error, row int) error {
	var se *keys.StringError
	if !errors.As(err, &se) {
		return err
	}
	return mysqlerr.New(mysqlerr.ErTruncatedWrongValue, "Incorrect string value: '%s' for column '%s' at row %d", se.Value, se.Column, row)
}

var _ sql.CollationAlterableTable = (*Table)(nil)

var convertTo = regexp.MustCompile(`(?i)\bCONVERT\s+TO\s+(CHARACTER\s+SET|CHARSET)\b`)

// ModifyDefaultCollation implements sql.CollationAlterableTable: ALTER
// TABLE t [DEFAULT] COLLATE c sets the collation columns added later take;
// existing columns, their values and their stored keys keep theirs, as in
// MySQL.
//
// GMS's parser turns ALTER TABLE ... CONVERT TO CHARACTER SET into the
// same call; the statement text tells them apart.
func (t *Table) ModifyDefaultCollation(ctx *sql.Context, c sql.CollationID) error {
	if convertTo.MatchString(ctx.Query()) {
		return t.ModifyStoredCollation(ctx, c)
	}
	return t.alter(ctx, func(td *storage.TableDef) error {
		td.Collation = uint16(c)
		return nil
	})
}

// ModifyStoredCollation implements sql.CollationAlterableTable: ALTER
// TABLE ... CONVERT TO CHARACTER SET converts every character column and
// rewrites the rows (convertcharset.go).
func (t *Table) ModifyStoredCollation(ctx *sql.Context, c sql.CollationID) error {
	return t.convertCharset(ctx, c)
}

// checkSQLMode refuses the sql_mode flags Petrel does not honour, rather
// than accept and ignore them (error 1231): PAD_CHAR_TO_FULL_LENGTH (CHAR
// values are always read without their trailing spaces).
func checkSQLMode(value any) error {
	v, ok := value.(string)
	if !ok {
		// A bit set (GMS converts the value to the variable's SET type).
		n, isNum := arith.ToInt64(value)
		sv, _, found := sql.SystemVariables.GetGlobal("sql_mode")
		if !isNum || !found {
			return nil
		}
		st, isSet := sv.GetType().(sql.SetType)
		if !isSet {
			return nil
		}
		if v, err := st.BitsToString(uint64(n)); err == nil {
			return checkSQLMode(v)
		}
		return nil
	}
	for _, f := range strings.Split(strings.ToUpper(v), ",") {
		if f = strings.TrimSpace(f); unhonouredSQLModes[f] {
			return wrongValueForVar("sql_mode", f)
		}
	}
	return nil
}

// unhonouredSQLModes are the sql_mode flags Petrel does not implement:
// refused (1231) rather than accepted and ignored. (REAL_AS_FLOAT is
// honoured by the parser wrapper, timefsp.go; PIPES_AS_CONCAT and
// HIGH_NOT_PRECEDENCE by text rewrites, sqlmode/pipesnot.go; IGNORE_SPACE's
// spaces between a function's name and its parenthesis are accepted in
// every mode, and the function names it reserves are not refused as
// identifiers; ANSI turns on the flags it stands for, modeOn.)
var unhonouredSQLModes = map[string]bool{
	"PAD_CHAR_TO_FULL_LENGTH": true, // CHAR values are stored without their trailing spaces
	"ALLOW_INVALID_DATES":     true, // Petrel's dates cannot hold 2024-02-30
}

// checkDBName refuses a database name MySQL refuses before looking for
// it: longer than 64 characters is 1102 (GMS created such a database,
// and DROP DATABASE of one was 1049).
func checkDBName(name string) error {
	if utf8.RuneCountInString(name) > 64 {
		return mysqlerr.New(mysqlerr.ErWrongDBName, "Incorrect database name '%s'", name)
	}
	return nil
}
