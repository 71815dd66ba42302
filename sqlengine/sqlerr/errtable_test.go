package sqlerr

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	gmserrors "gopkg.in/src-d/go-errors.v1"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
)

// TestEveryClassHasMySQLNumber: every error class of internal/base maps
// to the number MySQL uses for that failure, with its SQLSTATE, through
// the one table (no class falls to 1105 but ClassInternal).
func TestEveryClassHasMySQLNumber(t *testing.T) {
	want := map[base.Class]struct {
		num   int
		state string
	}{
		base.ClassInternal:       {1105, "HY000"},
		base.ClassDeadlock:       {1213, "40001"},
		base.ClassLockTimeout:    {1205, "HY000"},
		base.ClassDiskFull:       {1021, "HY000"},
		base.ClassReadOnly:       {1290, "HY000"},
		base.ClassCorrupt:        {1030, "HY000"},
		base.ClassDuplicate:      {1062, "23000"},
		base.ClassNotFound:       {1146, "42S02"},
		base.ClassBadInput:       {1210, "HY000"},
		base.ClassShutdown:       {1053, "08S01"},
		base.ClassWritesRefused:  {1026, "HY000"},
		base.ClassInterrupted:    {1317, "70100"},
		base.ClassOutcomeUnknown: {1180, "HY000"},
		base.ClassStorageIO:      {1030, "HY000"},
		base.ClassDefChanged:     {1412, "HY000"},
		base.ClassTxnTooLarge:    {1197, "HY000"},
		base.ClassLockNoWait:     {3572, "HY000"},
	}
	if got := len(mysqlerr.Classes()); got != len(want) {
		t.Errorf("the table maps %d classes, the test knows %d: a class was added without its MySQL number", got, len(want))
	}
	for c := base.ClassInternal; c <= base.ClassLockNoWait; c++ {
		w, ok := want[c]
		if !ok {
			t.Errorf("class %d: no expected number", c)
			continue
		}
		var se *mysql.SQLError
		if err := ClientError(base.Errorf(c, "x: failed")); !errors.As(err, &se) || se.Num != w.num || se.State != w.state {
			t.Errorf("class %d: got %v, want %d (%s)", c, err, w.num, w.state)
		}
		// Inside the engine too (sessionError, ddlError, commitError).
		if err := ToMySQL(fmt.Errorf("wrapped: %w", base.Errorf(c, "x"))); !errors.As(err, &se) || se.Num != w.num {
			t.Errorf("class %d inside the engine: got %v, want %d", c, err, w.num)
		}
	}
}

// TestGMSErrorKinds: every GMS error kind Petrel's statements can meet
// reaches the client with MySQL's number and SQLSTATE, both when GMS has
// already turned it into text (sql.CastSQLError, 1105) and when it is
// still a kind; MySQL's message where GMS's differs.
func TestGMSErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		kind  *gmserrors.Kind
		args  []any
		num   int
		state string
		text  string
	}{
		{sql.ErrTableAlreadyExists, []any{"t"}, 1050, "42S01", "Table 't' already exists"},
		{sql.ErrDatabaseExists, []any{"d"}, 1007, "HY000", "Can't create database 'd'; database exists"},
		{sql.ErrExpectedSingleRow, nil, 1242, "21000", "Subquery returns more than 1 row"},
		{planbuilder.ErrUnionSchemasDifferentLength, []any{2, 1}, 1222, "21000", "The used SELECT statements have a different number of columns"},
		{sql.ErrTableNotFound, []any{"t"}, 1146, "42S02", "Table 't' doesn't exist"},
		{sql.ErrUnknownTable, []any{"t"}, 1051, "42S02", "Unknown table 't'"},
		{sql.ErrDatabaseNotFound, []any{"nod"}, 1049, "42000", "Unknown database 'nod'"},
		{sql.ErrNoDatabaseSelected, nil, 1046, "3D000", "No database selected"},
		{sql.ErrUnknownColumn, []any{"c", "where clause"}, 1054, "42S22", "Unknown column 'c' in 'where clause'"},
		{sql.ErrTableColumnNotFound, []any{"t", "c"}, 1054, "42S22", "Unknown column 'c' in 't'"},
		{sql.ErrColumnNotFound, []any{"c"}, 1054, "42S22", "Unknown column 'c' in 'field list'"},
		{sql.ErrDuplicateColumn, []any{"c"}, 1060, "42S21", "Duplicate column name 'c'"},
		{sql.ErrDuplicateKey, []any{"k"}, 1061, "42000", "Duplicate key name 'k'"},
		{sql.ErrWrongAutoKey, nil, 1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key"},
		{sql.ErrDuplicateEntry, []any{"PRIMARY"}, 1062, "23000", "PRIMARY"},
		{sql.ErrPrimaryKeyViolation, nil, 1062, "23000", "Duplicate entry '' for key 'PRIMARY'"},
		{sql.ErrUniqueKeyViolation, nil, 1062, "23000", "Duplicate entry"},
		{sql.ErrInsertIntoNonNullableProvidedNull, []any{"v"}, 1048, "23000", "Column 'v' cannot be null"},
		{types.ErrLengthBeyondLimit, []any{"abcdef", "c"}, 1406, "22001", "Data too long for column 'c'"},
		{sql.ErrValueOutOfRange, []any{300, "tinyint"}, 1264, "22003", "Out of range value"},
		{types.ErrBadCharsetString, []any{"utf8mb4", []byte{0xe9, 0x0a}}, 1366, "HY000", `Incorrect string value: '\xE9\x0A'`},
		{sql.ErrCheckConstraintViolated, []any{"small"}, 3819, "HY000", "Check constraint 'small' is violated."},
		{sql.ErrGeneratedColumnValue, []any{"total", "g"}, 3105, "HY000", "The value specified for generated column 'total' in table 'g' is not allowed."},
		{sql.ErrTriggerTableInUse, []any{"t"}, 1442, "HY000", "Can't update table 't' in stored function/trigger because it is already used"},
		{sql.ErrInvalidJson, []any{"bad"}, 3140, "22032", "Invalid JSON text: bad"},
		{sql.ErrForeignKeyChildViolation, []any{"fk", "c", "p", "[1]"}, 1452, "23000", "Cannot add or update a child row: a foreign key constraint fails (`c`, CONSTRAINT `fk`"},
		{sql.ErrForeignKeyParentViolation, []any{"fk", "c", "p", "[1]"}, 1451, "23000", "Cannot delete or update a parent row: a foreign key constraint fails (`c`, CONSTRAINT `fk`"},
		{sql.ErrForeignKeyNotResolved, []any{"d", "c", "fk", "pid", "p", "id"}, 1452, "23000", "(`d`.`c`, CONSTRAINT `fk` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))"},
		{sql.ErrForeignKeyDropTable, []any{"p", "fk"}, 3730, "HY000", "Cannot drop table 'p' referenced by a foreign key constraint 'fk'"},
		{sql.ErrTruncateReferencedFromForeignKey, []any{"p", "fk", "c"}, 1701, "42000", "Cannot truncate a table referenced in a foreign key constraint (`c`, CONSTRAINT `fk`)"},
		{sql.ErrForeignKeyDropIndex, []any{"ix", "fk"}, 1553, "HY000", "Cannot drop index 'ix': needed in a foreign key constraint"},
		{sql.ErrForeignKeyDropColumn, []any{"pid", "fk"}, 1828, "HY000", "Cannot drop column 'pid': needed in a foreign key constraint 'fk'"},
		{sql.ErrForeignKeyDuplicateName, []any{"fk"}, 1826, "HY000", "Duplicate foreign key constraint name 'fk'"},
		{sql.ErrForeignKeyNotFound, []any{"fk", "c"}, 1091, "42000", "Can't DROP 'fk'; check that column/key exists"},
		{sql.ErrForeignKeyMissingReferenceIndex, []any{"fk", "p"}, 1822, "HY000", "Missing index for constraint 'fk' in the referenced table 'p'"},
		{sql.ErrForeignKeyColumnTypeMismatch, []any{"pid", "id"}, 3780, "HY000", "Referencing column 'pid' and referenced column 'id'"},
		{sql.ErrForeignKeyColumnCountMismatch, nil, 1239, "42000", "Incorrect foreign key definition"},
		{sql.ErrForeignKeySetNullNonNullable, []any{"pid"}, 1830, "HY000", "Column 'pid' cannot be NOT NULL"},
		{sql.ErrForeignKeyTypeChange, []any{"pid"}, 1832, "HY000", "Cannot change column 'pid'"},
		{sql.ErrForeignKeyTextBlob, nil, 1170, "42000", "BLOB/TEXT column"},
		{sql.ErrForeignKeyDepthLimit, nil, 3008, "HY000", "exceeds max depth of 15"},

		{sql.ErrCollationNotYetImplementedTemp, []any{"x_ci"}, 1273, "HY000", "Unknown collation: 'x_ci'"},
		{sql.ErrCharSetNotYetImplementedTemp, []any{"ucs9"}, 1115, "42000", "Unknown character set: 'ucs9'"},
		{sql.ErrDatabaseAccessDeniedForUser, []any{"'u'@'%'", "d"}, 1044, "42000", "Access denied for user 'u'@'%' to database 'd'"},
		{sql.ErrTableAccessDeniedForUser, []any{"'u'@'%'", "t"}, 1142, "42000", "Access denied for user 'u'@'%' to table 't'"},
		{sql.ErrPrivilegeCheckFailed, []any{"'u'@'%'"}, 1142, "42000", "command denied to user 'u'@'%'"},
		{sql.ErrUserCreationFailure, []any{"'u'@'%'"}, 1396, "HY000", "Operation CREATE USER failed for 'u'@'%'"},
		{sql.ErrUserAlterFailure, []any{"'u'@'%'"}, 1396, "HY000", "ALTER USER"},
		{sql.ErrUserDeletionFailure, []any{"'u'@'%'"}, 1396, "HY000", "DROP USER"},
		{sql.ErrInvalidSystemVariableValue, []any{"autocommit", "x"}, 1231, "42000", "Variable 'autocommit' can't be set to the value of 'x'"},
		{sql.ErrUnknownSystemVariable, []any{"tx_isolation"}, 1193, "HY000", "Unknown system variable 'tx_isolation'"},
		{sql.ErrSystemVariableReadOnly, []any{"version"}, 1238, "HY000", "read only variable"},
		{sql.ErrLockDeadlock, []any{"x"}, 1213, "40001", ""},
		{sql.ErrReadOnlyTransaction, nil, 1792, "25006", "Cannot execute statement in a READ ONLY transaction."},
		{sql.ErrStoredProcedureAlreadyExists, []any{"p"}, 1304, "42000", "PROCEDURE p already exists"},
		{sql.ErrStoredProcedureDoesNotExist, []any{"p"}, 1305, "42000", "PROCEDURE p does not exist"},
		{sql.ErrFunctionNotFound, []any{"nofunc"}, 1305, "42000", "FUNCTION nofunc does not exist"},
		{sql.ErrDeclareConditionNotFound, []any{"foo"}, 1319, "42000", "Undefined CONDITION: foo"},
		{sql.ErrShowGrantsUserDoesNotExist, []any{"u", "h"}, 1141, "42000", "There is no such grant defined for user 'u' on host 'h'"},
		{sql.ErrEventAlreadyExists, []any{"e"}, 1537, "HY000", "Event 'e' already exists"},
		{sql.ErrEventDoesNotExist, []any{"e"}, 1539, "HY000", "Unknown event 'e'"},
		{sql.ErrUnknownPreparedStatement, []any{"s"}, 1243, "HY000", "Unknown prepared statement handler (s) given to EXECUTE"},
		{sql.ErrInsertIntoNonNullableDefaultNullColumn, []any{"a"}, 1364, "HY000", "Field 'a' doesn't have a default value"},
		{sql.ErrSavepointDoesNotExist, []any{"sv"}, 1305, "42000", "SAVEPOINT sv does not exist"},
		{plan.ErrIndexNotFound, []any{"i", "t", "d"}, 1091, "42000", ""},
		{sql.ErrCreateTableNotSupported, []any{"performance_schema"}, 1044, "42000", ""},
		{sql.ErrDropTableNotSupported, []any{"performance_schema"}, 1044, "42000", ""},
		{plan.ErrInsertIntoNotSupported, nil, 1142, "42000", ""},
		{plan.ErrUpdateNotSupported, nil, 1142, "42000", ""},
		{plan.ErrDeleteFromNotSupported, nil, 1142, "42000", ""},
		{plan.ErrTruncateNotSupported, nil, 1142, "42000", ""},
	} {
		name := tc.kind.Message
		raw := tc.kind.New(tc.args...)
		for _, form := range []struct {
			how string
			err error
		}{{"as text", sql.CastSQLError(raw)}, {"as a kind", raw}, {"wrapped", fmt.Errorf("x: %w", raw)}} {
			var se *mysql.SQLError
			if err := ClientError(form.err); !errors.As(err, &se) {
				t.Errorf("%s %s: %v is not a MySQL error", name, form.how, err)
			} else if se.Num != tc.num || se.State != tc.state || !strings.Contains(se.Message, tc.text) || strings.Contains(se.Message, "%%") {
				t.Errorf("%s %s: got %d (%s) %q, want %d (%s) containing %q", name, form.how, se.Num, se.State, se.Message, tc.num, tc.state, tc.text)
			}
		}
	}
	// Every row of the table is covered above.
	if len(gmsKinds) != 71 {
		t.Errorf("gmsKinds has %d rows; add the new ones to this test", len(gmsKinds))
	}
}

// TestVitessTextErrors: errors vitess reports as text only.
func TestVitessTextErrors(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		num  int
		text *regexp.Regexp
	}{
		{"syntax error at position 7 near 'SELEC'", 1064, regexp.MustCompile(`^You have an error in your SQL syntax; syntax error at position 7`)},
		{"packet too large (20000000 bytes)", 1153, regexp.MustCompile(`packet too large`)},
		{"empty statement", 1065, regexp.MustCompile(`^Query was empty$`)},
		{"something else", 1105, regexp.MustCompile(`something else`)},
	} {
		var se *mysql.SQLError
		if err := ClientError(mysql.NewSQLError(1105, "HY000", "%s", tc.msg)); !errors.As(err, &se) || se.Num != tc.num || !tc.text.MatchString(se.Message) {
			t.Errorf("%q: got %v, want %d matching %s", tc.msg, err, tc.num, tc.text)
		}
	}
}
