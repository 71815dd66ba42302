// Package mysqlerr is the one error table: the MySQL error numbers and
// SQLSTATEs Petrel sends, the number each error class (internal/base)
// stands for, and the SQLSTATE MySQL sends with each number. Every
// package that chooses a MySQL number names it from here; sqlengine's
// mapping (sqlengine/sqlerr/errtable.go) applies the table, with GMS's error
// kinds, to what reaches a client.
package mysqlerr

import (
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/base"
)

// MySQL error numbers (server and client errors) Petrel sends or reports.
const (
	ErDBCreateExists              = 1007 // ER_DB_CREATE_EXISTS
	ErConCount                    = 1040 // ER_CON_COUNT_ERROR (too many connections)
	ErOutOfResources              = 1041 // ER_OUT_OF_RESOURCES (the packet memory budget)
	ErTooManyUserConnections      = 1203 // ER_TOO_MANY_USER_CONNECTIONS
	ErCantChangeTxCharacteristics = 1568 // ER_CANT_CHANGE_TX_CHARACTERISTICS
	ErPSManyParam                 = 1390 // ER_PS_MANY_PARAM
	// InnoDB's handler error HA_ERR_UNSUPPORTED, the number MySQL shows on
	// the warning that WITH CONSISTENT SNAPSHOT was ignored.
	WarnHAUnsupported          = 138
	ErDaInvalidConditionNumber = 1758 // ER_DA_INVALID_CONDITION_NUMBER (GET DIAGNOSTICS)
	ErClientInteractionTimeout = 4031 // ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8.0.24)
	ErHandshake                = 1043 // ER_HANDSHAKE_ERROR
	ErUnknownCom               = 1047 // ER_UNKNOWN_COM_ERROR
	ErUnknownStmtHandler       = 1243 // ER_UNKNOWN_STMT_HANDLER
	ErFeatureDisabled          = 1289 // ER_FEATURE_DISABLED (a debug build's statement)
	ErDiskFull                 = 1021 // ER_DISK_FULL
	ErErrorOnWrite             = 1026 // ER_ERROR_ON_WRITE
	ErGetErrno                 = 1030 // ER_GET_ERRNO
	ErIllegalHA                = 1031 // ER_ILLEGAL_HA (a table option the engine cannot honour)
	ErDBAccessDenied           = 1044 // ER_DBACCESS_DENIED_ERROR
	ErAccessDenied             = 1045 // ER_ACCESS_DENIED_ERROR
	ErNoDB                     = 1046 // ER_NO_DB_ERROR
	ErBadNull                  = 1048 // ER_BAD_NULL_ERROR
	ErBadDB                    = 1049 // ER_BAD_DB_ERROR
	ErTableExists              = 1050 // ER_TABLE_EXISTS_ERROR
	ErNonUniqTable             = 1066 // ER_NONUNIQ_TABLE
	ErBadTable                 = 1051 // ER_BAD_TABLE_ERROR
	ErEmptyQuery               = 1065 // ER_EMPTY_QUERY
	ErAutoincErange            = 167  // HA_ERR_AUTOINC_ERANGE: a generated AUTO_INCREMENT value beyond its column
	ErBadField                 = 1054 // ER_BAD_FIELD_ERROR
	ErWrongDBName              = 1102 // ER_WRONG_DB_NAME
	ErUnknownTable             = 1109 // ER_UNKNOWN_TABLE
	ErTooManyKeyParts          = 1070 // ER_TOO_MANY_KEY_PARTS
	ErKeyDoesNotExist          = 1176 // ER_KEY_DOES_NOT_EXITS
	ErNoDefaultForField        = 1364 // ER_NO_DEFAULT_FOR_FIELD
	ErDupFieldName             = 1060 // ER_DUP_FIELDNAME
	ErDupKeyName               = 1061 // ER_DUP_KEYNAME
	ErDupEntry                 = 1062 // ER_DUP_ENTRY
	ErParse                    = 1064 // ER_PARSE_ERROR
	ErServerShutdown           = 1053 // ER_SERVER_SHUTDOWN
	ErCantDropFieldOrKey       = 1091 // ER_CANT_DROP_FIELD_OR_KEY
	ErUnknown                  = 1105 // ER_UNKNOWN_ERROR
	ErCantOpenLibrary          = 1126 // ER_CANT_OPEN_LIBRARY
	ErTableAccessDenied        = 1142 // ER_TABLEACCESS_DENIED_ERROR
	ErNoSuchTable              = 1146 // ER_NO_SUCH_TABLE
	ErNetPacketTooLarge        = 1153 // ER_NET_PACKET_TOO_LARGE
	ErErrorDuringCommit        = 1180 // ER_ERROR_DURING_COMMIT
	ErUnknownSystemVariable    = 1193 // ER_UNKNOWN_SYSTEM_VARIABLE
	ErTransCacheFull           = 1197 // ER_TRANS_CACHE_FULL
	ErReplicaMustStop          = 1198 // ER_REPLICA_MUST_STOP (ER_SLAVE_MUST_STOP)
	ErReplicaChannelMustStop   = 3081 // ER_REPLICA_CHANNEL_MUST_STOP (ER_SLAVE_CHANNEL_MUST_STOP)
	ErErrorWhenExecuting       = 1220 // ER_ERROR_WHEN_EXECUTING_COMMAND
	ErReplicaNotConfigured     = 1200 // ER_REPLICA_NOT_CONFIGURED (ER_BAD_SLAVE)
	ErLockWaitTimeout          = 1205 // ER_LOCK_WAIT_TIMEOUT
	ErWrongArguments           = 1210 // ER_WRONG_ARGUMENTS
	ErLockDeadlock             = 1213 // ER_LOCK_DEADLOCK
	ErWrongValueForVar         = 1231 // ER_WRONG_VALUE_FOR_VAR
	ErCollationCharsetMismatch = 1253 // ER_COLLATION_CHARSET_MISMATCH
	ErCantRevokeAll            = 1269 // ER_REVOKE_GRANTS
	ErUnsupportedPS            = 1295 // ER_UNSUPPORTED_PS
	ErInvalidCharacterString   = 1300 // ER_INVALID_CHARACTER_STRING
	ErConflictingDeclarations  = 1302 // ER_CONFLICTING_DECLARATIONS
	ErNotSupportedYet          = 1235 // ER_NOT_SUPPORTED_YET
	ErInvalidUseOfNull         = 1138 // ER_INVALID_USE_OF_NULL
	ErKeyNotFound              = 1032 // ER_KEY_NOT_FOUND (HA_ERR_KEY_NOT_FOUND)
	ErIncorrectGlobalLocalVar  = 1238 // ER_INCORRECT_GLOBAL_LOCAL_VAR
	ErMasterFatalReadingLog    = 1236 // ER_SOURCE_FATAL_ERROR_READING_BINLOG
	ErWarnDataOutOfRange       = 1264 // ER_WARN_DATA_OUT_OF_RANGE
	ErWarnDataTruncated        = 1265 // WARN_DATA_TRUNCATED
	ErUnknownCollation         = 1273 // ER_UNKNOWN_COLLATION
	ErOptionPreventsStatement  = 1290 // ER_OPTION_PREVENTS_STATEMENT
	ErNonexistingGrant         = 1141 // ER_NONEXISTING_GRANT
	ErSPAlreadyExists          = 1304 // ER_SP_ALREADY_EXISTS
	ErSPDoesNotExist           = 1305 // ER_SP_DOES_NOT_EXIST
	ErSPBadSelect              = 1312 // ER_SP_BADSELECT
	ErSPWrongNoOfArgs          = 1318 // ER_SP_WRONG_NO_OF_ARGS
	ErSPCondMismatch           = 1319 // ER_SP_COND_MISMATCH
	ErSPFetchNoData            = 1329 // ER_SP_FETCH_NO_DATA (No data - zero rows fetched)
	ErSPBadSQLState            = 1407 // ER_SP_BAD_SQLSTATE
	ErTooManyRows              = 1172 // ER_TOO_MANY_ROWS (SELECT ... INTO of more than one row)
	ErWrongNumberOfColumns     = 1222 // ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT
	ErSubqueryNo1Row           = 1242 // ER_SUBQUERY_NO_1_ROW
	ErMultiUpdateKeyConflict   = 1706 // ER_MULTI_UPDATE_KEY_CONFLICT
	ErSignalWarn               = 1642 // ER_SIGNAL_WARN (SIGNAL of an '01' SQLSTATE)
	ErSignalNotFound           = 1643 // ER_SIGNAL_NOT_FOUND (SIGNAL of an '02' SQLSTATE)
	ErSignalException          = 1644 // ER_SIGNAL_EXCEPTION (SIGNAL of any other SQLSTATE)
	ErResignalNoHandler        = 1645 // ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER
	ErSignalBadConditionType   = 1646 // ER_SIGNAL_BAD_CONDITION_TYPE
	ErCondItemTooLong          = 1648 // ER_COND_ITEM_TOO_LONG
	WarnCondItemTruncated      = 1647 // WARN_COND_ITEM_TRUNCATED
	ErWrongValueOf             = 1525 // ER_WRONG_VALUE ("Incorrect %s value: '%s'")
	ErSPDupCond                = 1332 // ER_SP_DUP_COND
	ErSPDupHandler             = 1413 // ER_SP_DUP_HANDLER
	ErDupSignalSet             = 1641 // ER_DUP_SIGNAL_SET
	ErPSNoRecursion            = 1444 // ER_PS_NO_RECURSION
	ErSPNoReturnEnd            = 1321 // ER_SP_NORETURNEND
	ErSPNoRecursion            = 1424 // ER_SP_NO_RECURSION
	ErTooBigPrecision          = 1426 // ER_TOO_BIG_PRECISION
	ErTooBigScale              = 1425 // ER_TOO_BIG_SCALE
	ErMBiggerThanD             = 1427 // ER_M_BIGGER_THAN_D
	ErTooBigDisplayWidth       = 1439 // ER_TOO_BIG_DISPLAYWIDTH
	ErWrongAutoKey             = 1075 // ER_WRONG_AUTO_KEY
	ErNonInsertableTable       = 1471 // ER_NON_INSERTABLE_TABLE
	ErCommitNotAllowedInSF     = 1422 // ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG
	ErBinlogUnsafeRoutine      = 1418 // ER_BINLOG_UNSAFE_ROUTINE
	ErEventAlreadyExists       = 1537 // ER_EVENT_ALREADY_EXISTS
	ErEventDoesNotExist        = 1539 // ER_EVENT_DOES_NOT_EXIST
	ErQueryInterrupted         = 1317 // ER_QUERY_INTERRUPTED
	ErTableNotLockedForWrite   = 1099 // ER_TABLE_NOT_LOCKED_FOR_WRITE
	ErTableNotLocked           = 1100 // ER_TABLE_NOT_LOCKED
	ErLockOrActiveTransaction  = 1192 // ER_LOCK_OR_ACTIVE_TRANSACTION
	ErCantUpdateWithReadlock   = 1223 // ER_CANT_UPDATE_WITH_READLOCK
	ErQueryTimeout             = 3024 // ER_QUERY_TIMEOUT (max_execution_time)
	ErLockNoWait               = 3572 // ER_LOCK_NOWAIT
	ErWrongValue               = 1292 // ER_TRUNCATED_WRONG_VALUE ("Incorrect DATETIME value")
	ErTruncatedWrongValue      = 1366 // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
	ErDivisionByZero           = 1365 // ER_DIVISION_BY_ZERO
	ErWrongFieldWithGroup      = 1055 // ER_WRONG_FIELD_WITH_GROUP
	ErMixOfGroupFuncAndFields  = 1140 // ER_MIX_OF_GROUP_FUNC_AND_FIELDS
	ErCannotUser               = 1396 // ER_CANNOT_USER
	ErDataTooLong              = 1406 // ER_DATA_TOO_LONG
	ErDataOutOfRange           = 1690 // ER_DATA_OUT_OF_RANGE ("BIGINT UNSIGNED value is out of range")
	ErInvalidJSONText          = 3140 // ER_INVALID_JSON_TEXT
	ErGeneratedColumnValue     = 3105 // ER_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN
	ErCheckConstraintViolated  = 3819 // ER_CHECK_CONSTRAINT_VIOLATED
	// Foreign keys (InnoDB's numbers, MySQL 8).
	ErRowIsReferenced2             = 1451 // ER_ROW_IS_REFERENCED_2
	ErNoReferencedRow2             = 1452 // ER_NO_REFERENCED_ROW_2
	ErDropIndexFK                  = 1553 // ER_DROP_INDEX_FK
	ErTruncateIllegalFK            = 1701 // ER_TRUNCATE_ILLEGAL_FK
	ErFKNoIndexParent              = 1822 // ER_FK_NO_INDEX_PARENT
	ErFKCannotOpenParent           = 1824 // ER_FK_CANNOT_OPEN_PARENT
	ErFKDupName                    = 1826 // ER_FK_DUP_NAME
	ErFKColumnCannotDrop           = 1828 // ER_FK_COLUMN_CANNOT_DROP
	ErFKColumnNotNull              = 1830 // ER_FK_COLUMN_NOT_NULL
	ErFKColumnCannotChange         = 1832 // ER_FK_COLUMN_CANNOT_CHANGE
	ErWrongFKDef                   = 1239 // ER_WRONG_FK_DEF
	ErFKDepthExceeded              = 3008 // ER_FK_DEPTH_EXCEEDED
	ErFKCannotDropParent           = 3730 // ER_FK_CANNOT_DROP_PARENT
	ErFKIncompatibleColumns        = 3780 // ER_FK_INCOMPATIBLE_COLUMNS
	ErBlobKeyWithoutLength         = 1170 // ER_BLOB_KEY_WITHOUT_LENGTH
	ErSPRecursionLimit             = 1456 // ER_SP_RECURSION_LIMIT
	ErCantUpdateUsedTableInSFOrTrg = 1442 // ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG
	ErTableDefChanged              = 1412 // ER_TABLE_DEF_CHANGED
	ErUnknownCharacterSet          = 1115 // ER_UNKNOWN_CHARACTER_SET
	ErReplicaFatalError            = 1593 // ER_REPLICA_FATAL_ERROR (ER_SLAVE_FATAL_ERROR)
	// The applier's error for a failure no class names (MySQL 5.7's
	// ER_SLAVE_RELAY_LOG_READ_FAILURE).
	ErReplicaRelayLogReadFailure = 1594 // ER_REPLICA_RELAY_LOG_READ_FAILURE
	ErRelayLogWriteFailure       = 1595 // ER_REPLICA_RELAY_LOG_WRITE_FAILURE
	ErNetReadEventChecksum       = 1743 // ER_NETWORK_READ_EVENT_CHECKSUM_FAILURE
	ErBadReplicaAutoPosition     = 1776 // ER_BAD_REPLICA_AUTO_POSITION
	// Protocol compression options of CHANGE REPLICATION SOURCE (HY000).
	ErChangeSourceWrongCompressionAlgorithm = 3920 // ER_CHANGE_SOURCE_WRONG_COMPRESSION_ALGORITHM_CLIENT
	ErChangeSourceWrongCompressionLevel     = 3921 // ER_CHANGE_SOURCE_WRONG_COMPRESSION_LEVEL_CLIENT
	ErChangeSourceWrongCompressionList      = 3924 // ER_CHANGE_SOURCE_WRONG_COMPRESSION_ALGORITHM_LIST_CLIENT
	ErMalformedGTIDSet                      = 1772 // ER_MALFORMED_GTID_SET_SPECIFICATION
	ErReadOnlyTransaction                   = 1792 // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
	ErMalformedPacket                       = 1835 // ER_MALFORMED_PACKET
	ErSecureTransportRequired               = 3159 // ER_SECURE_TRANSPORT_REQUIRED
	ErSpecificAccessDenied                  = 1227 // ER_SPECIFIC_ACCESS_DENIED_ERROR
	ErIncorrectValue                        = 1525 // ER_WRONG_VALUE ("Incorrect %s value: '%s'")

	// CLONE INSTANCE (MySQL 8.0.17's clone plugin). A donor's own refusal
	// (1045, 1227, 2003 reaching it) keeps its number.
	ErCloneDonor        = 3862 // ER_CLONE_DONOR
	ErCloneProtocol     = 3863 // ER_CLONE_PROTOCOL
	ErCloneDonorVersion = 3864 // ER_CLONE_DONOR_VERSION
	ErCloneSysConfig    = 3869 // ER_CLONE_SYS_CONFIG
	ErCloneDiskSpace    = 3873 // ER_CLONE_DISK_SPACE
	ErCloneInProgress   = 3874 // ER_CLONE_IN_PROGRESS
	ErCloneDisallowed   = 3875 // ER_CLONE_DISALLOWED

	// Asynchronous connection failover (MySQL 8.0.22): the source-list
	// functions' refusals and SOURCE_CONNECTION_AUTO_FAILOVER's rules.
	ErCantInitializeUDF                   = 1123 // ER_CANT_INITIALIZE_UDF
	ErUDFError                            = 3200 // ER_UDF_ERROR
	ErAsyncReconnectAutoPositionOff       = 3991 // ER_RPL_ASYNC_RECONNECT_AUTO_POSITION_OFF
	ErDisableAutoPositionRequiresAsyncOff = 3993 // ER_DISABLE_AUTO_POSITION_REQUIRES_ASYNC_RECONNECT_OFF

	// Replication thread errors of MySQL 8.0 (SHOW REPLICA STATUS).
	ErSourceFatalReadingBinlog = 13114 // ER_SERVER_SOURCE_FATAL_ERROR_READING_BINLOG
	ErReplicaEqualServerIDs    = 13117 // ER_SERVER_SOURCE_AND_REPLICA_HAVE_EQUAL_IDS
	ErRelayLogReadFailure      = 13121 // ER_SERVER_RELAY_LOG_READ_FAILURE

	// Client errors (libmysqlclient's CR_*), which MySQL's replica also
	// reports as its I/O thread's error.
	CrConnHostError      = 2003 // CR_CONN_HOST_ERROR
	CrServerLost         = 2013 // CR_SERVER_LOST
	CrSSLConnectionError = 2026 // CR_SSL_CONNECTION_ERROR
)

// IsClientError reports a client library's error number (CR_MIN_ERROR
// 2000 to CR_MAX_ERROR 2999): a client's own failure, which servers do
// not send.
func IsClientError(num int) bool { return num >= 2000 && num <= 2999 }

// Code is a MySQL error number with its SQLSTATE.
type Code struct {
	Num   int
	State string
}

// classes is the class half of the table: the number and SQLSTATE each
// error class stands for. sqlengine adds the message (MySQL's text).
var classes = map[base.Class]Code{
	base.ClassInternal:       {ErUnknown, "HY000"},
	base.ClassDeadlock:       {ErLockDeadlock, "40001"},
	base.ClassLockTimeout:    {ErLockWaitTimeout, "HY000"},
	base.ClassDiskFull:       {ErDiskFull, "HY000"},
	base.ClassReadOnly:       {ErOptionPreventsStatement, "HY000"},
	base.ClassCorrupt:        {ErGetErrno, "HY000"},
	base.ClassDuplicate:      {ErDupEntry, "23000"},
	base.ClassNotFound:       {ErNoSuchTable, "42S02"},
	base.ClassBadInput:       {ErWrongArguments, "HY000"},
	base.ClassShutdown:       {ErServerShutdown, "08S01"},
	base.ClassWritesRefused:  {ErErrorOnWrite, "HY000"},
	base.ClassInterrupted:    {ErQueryInterrupted, "70100"},
	base.ClassOutcomeUnknown: {ErErrorDuringCommit, "HY000"},
	base.ClassStorageIO:      {ErGetErrno, "HY000"},
	base.ClassDefChanged:     {ErTableDefChanged, "HY000"},
	base.ClassTxnTooLarge:    {ErTransCacheFull, "HY000"},
	base.ClassLockNoWait:     {ErLockNoWait, "HY000"},
}

// ForClass is the MySQL number and SQLSTATE of an error class.
func ForClass(c base.Class) Code {
	if code, ok := classes[c]; ok {
		return code
	}
	return Code{ErUnknown, "HY000"}
}

// Classes lists every class the table maps (for tests).
func Classes() []base.Class {
	out := make([]base.Class, 0, len(classes))
	for c := range classes {
		out = append(out, c)
	}
	return out
}

// states are the SQLSTATEs MySQL sends with the numbers Petrel sends
// (numbers not listed: HY000).
var states = map[int]string{
	ErDBAccessDenied: "42000", ErAccessDenied: "28000", ErNoDB: "3D000", ErBadNull: "23000",
	ErBadDB: "42000", ErTableExists: "42S01", ErUnknownTable: "42S02", ErTooManyKeyParts: "42000", ErKeyDoesNotExist: "42000", ErNonUniqTable: "42000", ErBadTable: "42S02", ErEmptyQuery: "42000", ErWrongDBName: "42000", ErAutoincErange: "22003", ErBadField: "42S22",
	ErDupFieldName: "42S21", ErDupKeyName: "42000", ErDupEntry: "23000", ErParse: "42000",
	ErServerShutdown: "08S01", ErCantDropFieldOrKey: "42000", ErTableAccessDenied: "42000",
	ErNoSuchTable: "42S02", ErNetPacketTooLarge: "08S01", ErLockDeadlock: "40001",
	ErWrongValueForVar: "42000", ErNotSupportedYet: "42000", ErInvalidUseOfNull: "22004", ErWarnDataOutOfRange: "22003",
	ErSPDoesNotExist: "42000", ErSPAlreadyExists: "42000", ErNonexistingGrant: "42000", ErSPBadSelect: "0A000", ErCollationCharsetMismatch: "42000", ErQueryInterrupted: "70100", ErDataTooLong: "22001",
	ErUnknownCharacterSet: "42000", ErReadOnlyTransaction: "25006", ErWrongValue: "22007",
	ErSpecificAccessDenied: "42000", ErDataOutOfRange: "22003", ErInvalidJSONText: "22032", ErWarnDataTruncated: "01000",
	ErTruncatedWrongValue: "HY000", ErDivisionByZero: "22012", ErWrongFieldWithGroup: "42000", ErMixOfGroupFuncAndFields: "42000",
	1136:       "21S01", // ER_WRONG_VALUE_COUNT_ON_ROW
	ErConCount: "08004", ErHandshake: "08S01", ErUnknownCom: "08S01",
	ErTooManyUserConnections: "42000", ErCantChangeTxCharacteristics: "25001",
	ErRowIsReferenced2: "23000", ErNoReferencedRow2: "23000", ErTruncateIllegalFK: "42000",
	ErWrongFKDef: "42000", ErBlobKeyWithoutLength: "42000",
	ErSPWrongNoOfArgs: "42000", ErSPNoReturnEnd: "2F005", ErSPCondMismatch: "42000",
	ErSPFetchNoData: "02000", ErSPBadSQLState: "42000", ErTooManyRows: "42000",
	ErWrongNumberOfColumns: "21000", ErResignalNoHandler: "0K000", ErSubqueryNo1Row: "21000",
	ErSPDupCond: "42000", ErSPDupHandler: "42000", ErDupSignalSet: "42000", ErTooBigPrecision: "42000", ErWrongAutoKey: "42000",
	ErTooBigScale: "42000", ErMBiggerThanD: "42000", ErTooBigDisplayWidth: "42000",
}

// State is the SQLSTATE MySQL sends with error number num.
func State(num int) string {
	if s, ok := states[num]; ok {
		return s
	}
	return "HY000"
}

// New is MySQL error num with its SQLSTATE from the table and a message
// (format and args as fmt's): the one way Petrel makes a client error.
func New(num int, format string, args ...any) *mysql.SQLError {
	return mysql.NewSQLError(num, State(num), format, args...)
}

// Relay is an error whose number and SQLSTATE Petrel did not choose but
// passes on as they came (a clone donor's, one go-mysql-server or vitess
// made, a warning raised as an error), with a message.
func Relay(num int, state, format string, args ...any) *mysql.SQLError {
	return mysql.NewSQLError(num, state, format, args...)
}

// FromCode is code (a class's number and SQLSTATE, ForClass) with a
// message.
func FromCode(code Code, format string, args ...any) *mysql.SQLError {
	return mysql.NewSQLError(code.Num, code.State, format, args...)
}
