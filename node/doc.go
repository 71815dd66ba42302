// Package node assembles one Petrel server from its parts: the datadir,
// storage, the binary log, the SQL engine, replication's source and
// replica sides (and, for `petrel relay`, the relay's sink), clone, and
// the MySQL protocol listener. cmd/petrel parses flags and config into
// Options; tests build nodes directly.
//
// node only wires: it opens each stage, adapts stages to one another
// where they must not import each other (sqlengine never imports binlog
// or replication; replication never imports sqlengine), and hands each
// stage's SQL surface (surface/binlogsql, surface/semisyncsql,
// surface/replsql, surface/clonesql) its stage: Variables before the config
// is applied, Register once the stage is open.
//
// Its tests drive the assembled server in process through real clients:
// the SQL surface, accounts, the fast paths against go-mysql-server,
// shutdown, and in-process replication with faults on the links
// (TestInProcessReplicationFaults) and between two whole nodes, each with
// its own SQL engine and system variables (TestTwoServersInProcess;
// docs/design/one-server.md). e2e tests replication between real
// processes.
package node
