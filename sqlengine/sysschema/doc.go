// Package sysschema serves performance_schema: a read-only database of
// tables the pipeline's stages register (replication status, applier
// workers, connection attributes, clone progress), each computing its
// rows at every scan from its owner's state; nothing is stored. The
// engine's provider serves Tables.DB(); sqlengine.RegisterSystemTable
// adds a table.
//
// Contract: a scan returns the owner's rows at that moment; DDL and
// views are refused with 1044 and writes with 1142, as MySQL does.
package sysschema
