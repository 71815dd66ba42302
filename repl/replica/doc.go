// Package replica is the replica side of replication: a receiver (MySQL's
// IO thread) that streams the source's binary log into a durable relay
// log, healing its link by itself, and an applier (the SQL thread) that
// applies relay-log transactions straight to storage, with the applied
// GTIDs recorded atomically with the rows (the replica's own binary log is
// its commit point).
//
// The applier is a relay stream (reader.go) feeding a pure scheduling
// core (sched.go, scenarios in testdata/sched) that decides when each
// transaction starts, on which worker, and when it commits; one shell
// (applier.go) carries the decisions out for every policy, serial or
// parallel. Source positions (file/position replication) are kept in the
// relay log itself (position.go), never in a file that could disagree
// with it. CHANGE REPLICATION SOURCE's options are kept in replica.json;
// the package also answers SHOW REPLICA STATUS's fields.
//
// Asynchronous connection failover: a pure policy core (failover.go,
// scenarios in testdata/failover) and its shell in the receiver, with the
// source list (failover_shell.go). A relay replaces the relay log and the
// applier with the receiver's Sink (sink.go; repl/relay implements it).
//
// replica never imports sqlengine: replicated DDL and account statements
// go through a function node gives it, and surface/replsql is its SQL
// surface. docs/design/replication.md has the design.
package replica
