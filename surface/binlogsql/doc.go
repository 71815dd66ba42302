// Package binlogsql is the binary log's SQL surface: its system
// variables (sync_binlog, binlog_transaction_dependency_tracking, ...),
// its statements (SHOW BINARY LOGS, SHOW BINLOG EVENTS, PURGE, FLUSH and
// RESET of the logs, WAIT_FOR_EXECUTED_GTID_SET), the GTID functions
// (GTID_SUBSET, GTID_SUBTRACT), gtid_executed and its status variables
// (Binlog_*), registered through sqlengine's extension points. binlog
// never imports sqlengine; node calls Variables before the config is
// applied and Register once the log is open.
package binlogsql
