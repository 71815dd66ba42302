// Package replsql is replication's SQL surface: the replica's statements
// and variables (CHANGE REPLICATION SOURCE, START/STOP/RESET REPLICA,
// SHOW REPLICA STATUS, replica_net_timeout, sync_relay_log, ...), the
// source's (SHOW REPLICAS, the dump hooks sqlengine calls), their status
// variables, performance_schema's replication_applier_status and
// replication_applier_status_by_worker, the source list functions of
// asynchronous connection failover (failoverfuncs.go) and the MySQL error
// numbers of the replica's refusals, registered through sqlengine's
// extension points. repl/replica and repl/source never import sqlengine;
// node calls Variables before the config is applied and Register once
// both sides are open.
package replsql
