// Package source is the source side of replication: it registers replicas
// and streams the binary log to them (COM_BINLOG_DUMP by file and
// position, COM_BINLOG_DUMP_GTID with auto-positioning), sending
// heartbeats when the log is idle. For a semi-sync replica it flags the
// transactions whose acknowledgement it wants and reads the replica's
// acknowledgements (conn.go), which it hands to semisync's Tracker; a
// bad acknowledgement disconnects the replica.
//
// A dump sends up to the log's sendable end (binlog.Log.SendablePosition,
// TestSendablePosition): what the log has made durable; while semi-sync
// is ON at AFTER_SYNC, what is written, so the acknowledgement's round
// trip overlaps the source's fsync (a replica may then hold a
// transaction an operating-system crash took from the source, whose
// client never got OK: docs/design/semisync.md, "Overlap"); on a replica
// that feeds replicas, also the replicated transactions written past its
// synced end, which its relay log holds durably.
//
// source never imports sqlengine: sqlengine hands it the dump commands
// it parses (node adapts), and surface/replsql is its SQL surface.
package source
