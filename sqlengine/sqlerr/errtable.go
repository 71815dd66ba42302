package sqlerr

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	gmserrors "gopkg.in/src-d/go-errors.v1"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
)

// The one error mapping. internal/mysqlerr holds the table of numbers
// (classes and SQLSTATEs); gmsKinds below is its GMS half; MySQLError
// applies both. Everything a client sees passes through ClientError
// (the protocol handler's boundary); inside the engine, ToMySQL
// maps Petrel's own errors and leaves GMS's alone (GMS tests its kinds
// with Kind.Is: INSERT IGNORE, ON DUPLICATE KEY UPDATE).

// gmsKind is one row of the GMS half: an error kind, the MySQL number
// it stands for and, optionally, MySQL's message built from the kind's
// arguments (else GMS's message is kept).
type gmsKind struct {
	kind *gmserrors.Kind
	num  int
	msg  func(args []string) string
	re   *regexp.Regexp // the kind's message as a pattern, for errors GMS already turned into text
}

// gmsKinds maps every GMS error kind Petrel's statements can meet to
// MySQL's number. More specific patterns come first. A msg function gets
// the kind's arguments, then the cause Kind.Wrap appended ("" if none).
// Not told apart by GMS, so not by this table: DROP TABLE of a missing
// table (MySQL 1051; GMS's ErrTableNotFound gives 1146: sqlengine's
// stmterr.go maps it by the statement) and a missing
// database- or global-level privilege (MySQL 1044 / 1227; GMS's
// ErrPrivilegeCheckFailed gives 1142).
var gmsKinds = compileKinds([]gmsKind{
	{kind: sql.ErrTableAlreadyExists, num: mysqlerr.ErTableExists, msg: func(a []string) string { return fmt.Sprintf("Table '%s' already exists", a[0]) }},
	{kind: sql.ErrDatabaseExists, num: mysqlerr.ErDBCreateExists, msg: func(a []string) string {
		return fmt.Sprintf("Can't create database '%s'; database exists", a[0])
	}},
	{kind: sql.ErrExpectedSingleRow, num: mysqlerr.ErSubqueryNo1Row, msg: func([]string) string { return "Subquery returns more than 1 row" }},
	{kind: planbuilder.ErrUnionSchemasDifferentLength, num: mysqlerr.ErWrongNumberOfColumns, msg: func([]string) string {
		return "The used SELECT statements have a different number of columns"
	}},
	{kind: sql.ErrTableNotFound, num: mysqlerr.ErNoSuchTable, msg: func(a []string) string { return fmt.Sprintf("Table '%s' doesn't exist", a[0]) }},
	{kind: sql.ErrUnknownTable, num: mysqlerr.ErBadTable},
	{kind: sql.ErrDatabaseNotFound, num: mysqlerr.ErBadDB, msg: func(a []string) string { return fmt.Sprintf("Unknown database '%s'", a[0]) }},
	{kind: sql.ErrNoDatabaseSelected, num: mysqlerr.ErNoDB, msg: func([]string) string { return "No database selected" }},
	{kind: sql.ErrUnknownColumn, num: mysqlerr.ErBadField},
	{kind: sql.ErrTableColumnNotFound, num: mysqlerr.ErBadField, msg: func(a []string) string {
		return fmt.Sprintf("Unknown column '%s' in '%s'", strings.Trim(a[1], `"`), strings.Trim(a[0], `"`))
	}},
	{kind: sql.ErrColumnNotFound, num: mysqlerr.ErBadField, msg: func(a []string) string {
		return fmt.Sprintf("Unknown column '%s' in 'field list'", strings.Trim(a[0], `"`))
	}},
	{kind: sql.ErrDuplicateColumn, num: mysqlerr.ErDupFieldName, msg: func(a []string) string { return fmt.Sprintf("Duplicate column name '%s'", a[0]) }},
	{kind: sql.ErrDuplicateKey, num: mysqlerr.ErDupKeyName},
	{kind: sql.ErrWrongAutoKey, num: mysqlerr.ErWrongAutoKey, msg: func([]string) string {
		return "Incorrect table definition; there can be only one auto column and it must be defined as a key"
	}},
	{kind: sql.ErrDuplicateEntry, num: mysqlerr.ErDupEntry},
	{kind: sql.ErrPrimaryKeyViolation, num: mysqlerr.ErDupEntry, msg: func(a []string) string {
		return fmt.Sprintf("Duplicate entry '%s' for key 'PRIMARY'", a[0])
	}},
	{kind: sql.ErrUniqueKeyViolation, num: mysqlerr.ErDupEntry, msg: func(a []string) string {
		return DuplicateUniqueText(a[0])
	}},
	{kind: sql.ErrInsertIntoNonNullableProvidedNull, num: mysqlerr.ErBadNull, msg: func(a []string) string { return fmt.Sprintf("Column '%s' cannot be null", a[0]) }},
	{kind: types.ErrLengthBeyondLimit, num: mysqlerr.ErDataTooLong, msg: func(a []string) string { return fmt.Sprintf("Data too long for column '%s'", a[1]) }},
	{kind: sql.ErrValueOutOfRange, num: mysqlerr.ErWarnDataOutOfRange, msg: func(a []string) string {
		return fmt.Sprintf("Out of range value: %s out of range for %s", a[0], a[1])
	}},
	{kind: types.ErrBadCharsetString, num: mysqlerr.ErTruncatedWrongValue, msg: func(a []string) string {
		return fmt.Sprintf("Incorrect string value: '%s'", gmsBadString("'"+a[1]+"'"))
	}},
	{kind: sql.ErrGeneratedColumnValue, num: mysqlerr.ErGeneratedColumnValue, msg: func(a []string) string {
		return fmt.Sprintf("The value specified for generated column '%s' in table '%s' is not allowed.", strings.Trim(a[0], `"`), strings.Trim(a[1], `"`))
	}},
	{kind: sql.ErrCheckConstraintViolated, num: mysqlerr.ErCheckConstraintViolated, msg: func(a []string) string {
		return fmt.Sprintf("Check constraint '%s' is violated.", strings.Trim(a[0], `"`))
	}},
	// Foreign keys. GMS's violation errors name the constraint and both
	// tables but not the columns, so the message is MySQL's shape
	// without its column lists.
	{kind: sql.ErrForeignKeyChildViolation, num: mysqlerr.ErNoReferencedRow2, msg: func(a []string) string {
		return fmt.Sprintf("Cannot add or update a child row: a foreign key constraint fails (`%s`, CONSTRAINT `%s` FOREIGN KEY REFERENCES `%s`)", a[1], a[0], a[2])
	}},
	{kind: sql.ErrForeignKeyParentViolation, num: mysqlerr.ErRowIsReferenced2, msg: func(a []string) string {
		return fmt.Sprintf("Cannot delete or update a parent row: a foreign key constraint fails (`%s`, CONSTRAINT `%s` FOREIGN KEY REFERENCES `%s`)", a[1], a[0], a[2])
	}},
	{kind: sql.ErrForeignKeyNotResolved, num: mysqlerr.ErNoReferencedRow2, msg: func(a []string) string {
		return fmt.Sprintf("Cannot add or update a child row: a foreign key constraint fails (`%s`.`%s`, CONSTRAINT `%s` FOREIGN KEY (`%s`) REFERENCES `%s` (`%s`))", a[0], a[1], a[2], a[3], a[4], a[5])
	}},
	{kind: sql.ErrForeignKeyDropTable, num: mysqlerr.ErFKCannotDropParent, msg: func(a []string) string {
		return fmt.Sprintf("Cannot drop table '%s' referenced by a foreign key constraint '%s'.", a[0], a[1])
	}},
	{kind: sql.ErrTruncateReferencedFromForeignKey, num: mysqlerr.ErTruncateIllegalFK, msg: func(a []string) string {
		return fmt.Sprintf("Cannot truncate a table referenced in a foreign key constraint (`%s`, CONSTRAINT `%s`)", a[2], a[1])
	}},
	{kind: sql.ErrForeignKeyDropIndex, num: mysqlerr.ErDropIndexFK, msg: func(a []string) string {
		return fmt.Sprintf("Cannot drop index '%s': needed in a foreign key constraint", a[0])
	}},
	{kind: sql.ErrForeignKeyDropColumn, num: mysqlerr.ErFKColumnCannotDrop, msg: func(a []string) string {
		return fmt.Sprintf("Cannot drop column '%s': needed in a foreign key constraint '%s'", a[0], a[1])
	}},
	{kind: sql.ErrForeignKeyDuplicateName, num: mysqlerr.ErFKDupName, msg: func(a []string) string {
		return fmt.Sprintf("Duplicate foreign key constraint name '%s'", a[0])
	}},
	{kind: sql.ErrForeignKeyNotFound, num: mysqlerr.ErCantDropFieldOrKey, msg: func(a []string) string {
		return fmt.Sprintf("Can't DROP '%s'; check that column/key exists", a[0])
	}},
	{kind: sql.ErrForeignKeyMissingReferenceIndex, num: mysqlerr.ErFKNoIndexParent, msg: func(a []string) string {
		return fmt.Sprintf("Failed to add the foreign key constraint. Missing index for constraint '%s' in the referenced table '%s'", a[0], a[1])
	}},
	{kind: sql.ErrForeignKeyColumnTypeMismatch, num: mysqlerr.ErFKIncompatibleColumns, msg: func(a []string) string {
		return fmt.Sprintf("Referencing column '%s' and referenced column '%s' in foreign key constraint are incompatible.", a[0], a[1])
	}},
	{kind: sql.ErrForeignKeyColumnCountMismatch, num: mysqlerr.ErWrongFKDef, msg: func([]string) string {
		return "Incorrect foreign key definition: Key reference and table reference don't match"
	}},
	{kind: sql.ErrForeignKeySetNullNonNullable, num: mysqlerr.ErFKColumnNotNull, msg: func(a []string) string {
		return fmt.Sprintf("Column '%s' cannot be NOT NULL: needed in a foreign key constraint SET NULL", a[0])
	}},
	{kind: sql.ErrForeignKeyTypeChange, num: mysqlerr.ErFKColumnCannotChange, msg: func(a []string) string {
		return fmt.Sprintf("Cannot change column '%s': used in a foreign key constraint", a[0])
	}},
	{kind: sql.ErrForeignKeyTextBlob, num: mysqlerr.ErBlobKeyWithoutLength, msg: func([]string) string {
		return "BLOB/TEXT column used in key specification without a key length"
	}},
	{kind: sql.ErrForeignKeyDepthLimit, num: mysqlerr.ErFKDepthExceeded, msg: func([]string) string {
		return "Foreign key cascade delete/update exceeds max depth of 15."
	}},
	{kind: sql.ErrTriggerTableInUse, num: mysqlerr.ErCantUpdateUsedTableInSFOrTrg, msg: func(a []string) string {
		return fmt.Sprintf("Can't update table '%s' in stored function/trigger because it is already used by statement which invoked this stored function/trigger.", a[0])
	}},
	{kind: sql.ErrInvalidJson, num: mysqlerr.ErInvalidJSONText, msg: func(a []string) string {
		return fmt.Sprintf("Invalid JSON text: %s", a[0])
	}},
	{kind: sql.ErrCollationNotYetImplementedTemp, num: mysqlerr.ErUnknownCollation, msg: func(a []string) string { return fmt.Sprintf("Unknown collation: '%s'", a[0]) }},
	{kind: sql.ErrCharSetNotYetImplementedTemp, num: mysqlerr.ErUnknownCharacterSet, msg: func(a []string) string {
		return fmt.Sprintf("Unknown character set: '%s'", a[0])
	}},
	{kind: sql.ErrDatabaseAccessDeniedForUser, num: mysqlerr.ErDBAccessDenied},
	{kind: sql.ErrTableAccessDeniedForUser, num: mysqlerr.ErTableAccessDenied},
	{kind: sql.ErrPrivilegeCheckFailed, num: mysqlerr.ErTableAccessDenied},
	{kind: sql.ErrUserCreationFailure, num: mysqlerr.ErCannotUser},
	{kind: sql.ErrUserAlterFailure, num: mysqlerr.ErCannotUser},
	{kind: sql.ErrUserDeletionFailure, num: mysqlerr.ErCannotUser},
	{kind: sql.ErrInvalidSystemVariableValue, num: mysqlerr.ErWrongValueForVar},
	{kind: sql.ErrUnknownSystemVariable, num: mysqlerr.ErUnknownSystemVariable},
	{kind: sql.ErrSystemVariableReadOnly, num: mysqlerr.ErIncorrectGlobalLocalVar},
	{kind: sql.ErrLockDeadlock, num: mysqlerr.ErLockDeadlock},
	{kind: sql.ErrReadOnlyTransaction, num: mysqlerr.ErReadOnlyTransaction, msg: func([]string) string {
		return "Cannot execute statement in a READ ONLY transaction."
	}},
	{kind: sql.ErrStoredProcedureAlreadyExists, num: mysqlerr.ErSPAlreadyExists, msg: func(a []string) string {
		return fmt.Sprintf("PROCEDURE %s already exists", a[0])
	}},
	{kind: sql.ErrStoredProcedureDoesNotExist, num: mysqlerr.ErSPDoesNotExist, msg: func(a []string) string {
		return fmt.Sprintf("PROCEDURE %s does not exist", a[0])
	}},
	{kind: sql.ErrFunctionNotFound, num: mysqlerr.ErSPDoesNotExist, msg: func(a []string) string {
		return fmt.Sprintf("FUNCTION %s does not exist", a[0])
	}},
	{kind: sql.ErrDeclareConditionNotFound, num: mysqlerr.ErSPCondMismatch, msg: func(a []string) string {
		return fmt.Sprintf("Undefined CONDITION: %s", a[0])
	}},
	{kind: sql.ErrShowGrantsUserDoesNotExist, num: mysqlerr.ErNonexistingGrant, msg: func(a []string) string {
		return fmt.Sprintf("There is no such grant defined for user '%s' on host '%s'", a[0], a[1])
	}},
	{kind: sql.ErrEventAlreadyExists, num: mysqlerr.ErEventAlreadyExists, msg: func(a []string) string {
		return fmt.Sprintf("Event '%s' already exists", a[0])
	}},
	{kind: sql.ErrEventDoesNotExist, num: mysqlerr.ErEventDoesNotExist, msg: func(a []string) string {
		return fmt.Sprintf("Unknown event '%s'", a[0])
	}},
	{kind: sql.ErrUnknownPreparedStatement, num: mysqlerr.ErUnknownStmtHandler},
	{kind: sql.ErrInsertIntoNonNullableDefaultNullColumn, num: mysqlerr.ErNoDefaultForField, msg: func(a []string) string {
		return fmt.Sprintf("Field '%s' doesn't have a default value", a[0])
	}},
	{kind: sql.ErrSavepointDoesNotExist, num: mysqlerr.ErSPDoesNotExist, msg: func(a []string) string {
		return fmt.Sprintf("SAVEPOINT %s does not exist", a[0])
	}},
	{kind: plan.ErrIndexNotFound, num: mysqlerr.ErCantDropFieldOrKey},
	// Writes and DDL in performance_schema: MySQL refuses them as missing
	// privileges.
	{kind: sql.ErrCreateTableNotSupported, num: mysqlerr.ErDBAccessDenied},
	{kind: sql.ErrDropTableNotSupported, num: mysqlerr.ErDBAccessDenied},
	{kind: plan.ErrInsertIntoNotSupported, num: mysqlerr.ErTableAccessDenied},
	{kind: plan.ErrUpdateNotSupported, num: mysqlerr.ErTableAccessDenied},
	{kind: plan.ErrDeleteFromNotSupported, num: mysqlerr.ErTableAccessDenied},
	{kind: plan.ErrTruncateNotSupported, num: mysqlerr.ErTableAccessDenied},
})

// compileKinds turns each kind's format into an anchored pattern whose
// groups are its arguments.
func compileKinds(ks []gmsKind) []gmsKind {
	verb := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)
	for i := range ks {
		f := ks[i].kind.Message
		var b strings.Builder
		b.WriteString(`(?s)^`)
		last := 0
		for _, m := range verb.FindAllStringIndex(f, -1) {
			b.WriteString(regexp.QuoteMeta(strings.ReplaceAll(f[last:m[0]], "%%", "%")))
			b.WriteString(`(.*?)`)
			last = m[1]
		}
		b.WriteString(regexp.QuoteMeta(strings.ReplaceAll(f[last:], "%%", "%")))
		// Kind.Wrap appends ": cause"; the cause is the last argument.
		b.WriteString(`(?:: (.*))?$`)
		ks[i].re = regexp.MustCompile(b.String())
	}
	return ks
}

// fromKind is the MySQL error for a GMS error message msg of the row's
// kind, or nil when msg is not of it.
func (k *gmsKind) fromText(msg string) *mysql.SQLError {
	m := k.re.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	if k.msg != nil {
		msg = k.msg(m[1:])
	}
	return mysqlerr.New(k.num, "%s", msg)
}

// textRules are errors that reach the handler as text only, from
// vitess (its parser, its packet reader) rather than a GMS kind.
// relayedText is a MySQL error that GMS turned into text (a parser's
// error it wrapped, routinecheck.go's): its message, number and SQLSTATE.
var relayedText = regexp.MustCompile(`^(.*) \(errno (\d+)\) \(sqlstate ([0-9A-Z]{5})\)$`)

var textRules = []struct {
	match func(string) bool
	num   int
	msg   func(string) string
}{
	{func(m string) bool { return strings.HasPrefix(m, "syntax error") }, mysqlerr.ErParse,
		func(m string) string { return "You have an error in your SQL syntax; " + m }},
	// EXECUTE with fewer or more USING variables than placeholders.
	{func(m string) bool {
		return strings.HasPrefix(m, "bind variable not provided") || strings.HasPrefix(m, "invalid arguments. expected: ")
	}, mysqlerr.ErWrongArguments, func(string) string { return "Incorrect arguments to EXECUTE" }},
	{func(m string) bool {
		return strings.Contains(m, "packet too large") || strings.Contains(m, "max_allowed_packet")
	}, mysqlerr.ErNetPacketTooLarge, nil},
	// vitess's sentinel for a text with no statement (PREPARE of an
	// empty string).
	{func(m string) bool { return m == "empty statement" }, mysqlerr.ErEmptyQuery, func(string) string { return "Query was empty" }},
	// GMS's ParseCollation of a column's CHARACTER SET cs COLLATE c of
	// another set (an uncoded fmt error).
	{func(m string) bool { return charsetMismatch.MatchString(m) }, mysqlerr.ErCollationCharsetMismatch, func(m string) string {
		g := charsetMismatch.FindStringSubmatch(m)
		return fmt.Sprintf("COLLATION '%s' is not valid for CHARACTER SET '%s'", g[2], g[1])
	}},
}

var charsetMismatch = regexp.MustCompile(`^([a-z0-9_]+) is not a valid character set for ([a-z0-9_]+)$`)

// MySQLError is the one function that applies the table: a Petrel error
// by its class, a GMS error by its kind (or, once GMS made it text, by
// its message), a MySQL error with its SQLSTATE corrected. Other errors
// are returned as they are.
func MySQLError(err error) error {
	if err == nil {
		return nil
	}
	var be *base.Error
	if errors.As(err, &be) {
		return classError(be.Class, err)
	}
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return FixSQLError(se)
	}
	var ge *gmserrors.Error
	if errors.As(err, &ge) {
		for i := range gmsKinds {
			if gmsKinds[i].kind.Is(ge) {
				if e := gmsKinds[i].fromText(ge.Error()); e != nil {
					return e
				}
				return mysqlerr.New(gmsKinds[i].num, "%s", ge.Error())
			}
		}
	}
	return err
}

// FixSQLError corrects a MySQL error GMS or vitess built: a number below
// 1000 (an errno that reached vitess's "(errno N)" parsing, which clients
// would misread) becomes 1105, but for the handler errors MySQL itself
// sends with their number (167, HA_ERR_AUTOINC_ERANGE); a GMS kind's
// text gets the kind's number
// (GMS leaves most at 1105) and MySQL's message; every number gets
// MySQL's SQLSTATE.
func FixSQLError(se *mysql.SQLError) error {
	// SQLSTATE class 45, user-defined, is a SIGNAL's: its MYSQL_ERRNO
	// stands as set, 1 to 999 too, as MySQL's (SIGNAL SQLSTATE '45000'
	// SET MYSQL_ERRNO = 999 is error 999).
	if se.Num < 1000 && se.Num != mysqlerr.ErAutoincErange && !strings.HasPrefix(se.State, "45") {
		return mysqlerr.New(mysqlerr.ErUnknown, "%s", se.Message)
	}
	if se.Num == mysqlerr.ErUnknown {
		// A MySQL error GMS made text keeps its number, before any
		// kind's pattern reads its message (1439's "Display width out
		// of range for column" is not GMS's out-of-range value).
		if m := relayedText.FindStringSubmatch(se.Message); m != nil {
			if n, err := strconv.Atoi(m[2]); err == nil && n >= 1000 {
				return mysqlerr.Relay(n, m[3], "%s", m[1])
			}
		}
	}
	for i := range gmsKinds {
		if k := &gmsKinds[i]; se.Num == mysqlerr.ErUnknown || se.Num == k.num {
			if e := k.fromText(se.Message); e != nil {
				return e
			}
		}
	}
	if se.Num != mysqlerr.ErUnknown {
		if st := mysqlerr.State(se.Num); se.State != st && (st != "HY000" || se.State == "") {
			return mysqlerr.Relay(se.Num, st, "%s", se.Message)
		}
		return se
	}
	for _, r := range textRules {
		if r.match(se.Message) {
			msg := se.Message
			if r.msg != nil {
				msg = r.msg(msg)
			}
			return mysqlerr.New(r.num, "%s", msg)
		}
	}
	return se
}

// classError is the MySQL error of a Petrel error class, with MySQL's
// message.
func classError(c base.Class, err error) error {
	code := mysqlerr.ForClass(c)
	msg := err.Error()
	switch c {
	case base.ClassDeadlock:
		msg = "Deadlock found when trying to get lock; try restarting transaction"
	case base.ClassLockTimeout:
		msg = "Lock wait timeout exceeded; try restarting transaction"
	case base.ClassLockNoWait:
		msg = "Statement aborted because lock(s) could not be acquired immediately and NOWAIT is set."
	case base.ClassDiskFull:
		msg = "Disk full; " + msg
	case base.ClassWritesRefused:
		// MySQL's text, "Error writing file '%s' (errno: %d - %s)", then
		// what Petrel did and what the operator must do.
		msg = fmt.Sprintf("Error writing file%s%s: %s", fileText(err), errnoText(err), msg)
	case base.ClassCorrupt, base.ClassStorageIO:
		// MySQL's text: "Got error %d - '%s' from storage engine".
		var no syscall.Errno
		if c == base.ClassStorageIO && errors.As(err, &no) {
			msg = fmt.Sprintf("Got error %d - '%s' from storage engine: %s", int(no), strerror(no), msg)
		} else {
			msg = "Got error from storage engine: " + msg
		}
	case base.ClassDefChanged:
		msg = "Table definition has changed, please retry transaction"
	case base.ClassTxnTooLarge:
		msg = "Multi-statement transaction required more than 'max_binlog_cache_size' bytes of storage; increase this mysqld variable and try again"
	case base.ClassShutdown:
		msg = "Server shutdown in progress"
	case base.ClassOutcomeUnknown:
		// The handler closes the connection instead of sending this
		// (errHandler.reply); internal callers see it.
		msg = "Got error during COMMIT, and the transaction may or may not be committed: " + msg
	case base.ClassDuplicate:
		msg = "Duplicate entry: " + msg
	}
	return mysqlerr.FromCode(code, "%s", msg)
}

// ToMySQL maps Petrel's own errors (a base class) inside the
// engine; errors that are not Petrel's pass through for GMS, which tests
// its kinds, and for clientError at the boundary.
func ToMySQL(err error) error {
	var be *base.Error
	if err == nil || !errors.As(err, &be) {
		return err
	}
	return MySQLError(err)
}

// ClientError is the error a client receives for err.
func ClientError(err error) error { return MySQLError(err) }

// errnoText is " (errno: N - text)" for an operating-system error inside
// err, as MySQL prints it (strerror's capital included), or "".
func errnoText(err error) string {
	var no syscall.Errno
	if !errors.As(err, &no) {
		return ""
	}
	return fmt.Sprintf(" (errno: %d - %s)", int(no), strerror(no))
}

// strerror is the errno's text as C's strerror prints it (capitalised),
// as MySQL's messages show it.
func strerror(no syscall.Errno) string {
	text := no.Error()
	if text != "" && text[0] >= 'a' && text[0] <= 'z' {
		text = string(text[0]-'a'+'A') + text[1:]
	}
	return text
}

// fileText is " 'path'" for the file an error inside err names, or "".
func fileText(err error) string {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return ""
	}
	return fmt.Sprintf(" '%s'", pe.Path)
}

// gmsBadString turns the byte list of GMS's "invalid string for charset
// utf8mb4: '[233 10]'" into MySQL's '\xE9\x0A' form.
func gmsBadString(msg string) string {
	i, j := strings.LastIndex(msg, "'["), strings.LastIndex(msg, "]'")
	if i < 0 || j < i {
		return "?"
	}
	var b []byte
	for _, f := range strings.Fields(msg[i+2 : j]) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 || n > 255 {
			return "?"
		}
		b = append(b, byte(n))
	}
	return EscapeHex(string(b), 6)
}

// EscapeHex prints up to max bytes of s as MySQL's messages do.
func EscapeHex(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s) && i < max; i++ {
		if c := s[i]; c >= 0x20 && c < 0x7F {
			b.WriteByte(c)
		} else {
			b.WriteString("\\x")
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		}
	}
	if len(s) > max {
		b.WriteString("...")
	}
	return b.String()
}

// DuplicateUniqueText is MySQL's 1062 text for a unique index's key
// text (storage.UniqueKeyText: the value and the index's name).
func DuplicateUniqueText(key string) string {
	if strings.Contains(key, "' for key '") {
		return fmt.Sprintf("Duplicate entry '%s'", key)
	}
	return fmt.Sprintf("Duplicate entry '%s' for a unique key", key)
}
