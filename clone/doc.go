// Package clone copies a whole Petrel instance from a running donor to a
// new recipient: MySQL's CLONE INSTANCE, built on a Pebble checkpoint.
//
// Donor. A snapshot (Donor.Begin) is taken with storage's commits paused
// for a moment: the memtables are flushed, the binary log rotates, and
// Pebble checkpoints its files (hard links). The snapshot then holds
// storage as of the last transaction logged before the rotation, and the
// header of the new binlog file, whose PREVIOUS_GTIDS event is exactly
// that storage's GTID set: the new datadir's binary log starts from it,
// so the recipient's startup recovery has nothing to replay and its
// gtid_executed is the donor's at the snapshot. The donor keeps serving
// writes while the files are read; they are immutable copies (or links).
//
// Wire. The recipient logs in to the donor over the MySQL protocol as a
// user with BACKUP_ADMIN and controls the clone with Petrel statements
// (the clonesql package registers them): CLONE SNAPSHOT (the manifest:
// files, sizes, GTID set, format), CLONE STREAM (the donor's data port
// and the snapshot's secret token) and CLONE END. The bytes travel over
// dedicated data connections (stream.go): raw frames, each with its
// CRC-32C, TLS when the SQL connection used TLS. A donor without a data
// port, or one the recipient cannot reach, is read with CLONE READ (one
// chunk of a file as a result set, with its CRC-32C). A recipient that
// vanishes leaves its snapshot until its lease passes; the donor's
// restart removes them.
//
// Recipient. Fetch writes the files into DATADIR/clone-staging, checks
// each frame's or chunk's checksum and each file's size, records in the staged
// storage that its binlog position is the start of the staged log, syncs
// everything and then writes the marker file CLONE-COMPLETE: the one
// commit point. Install (run at every start, before storage opens)
// switches a complete staging directory in (idempotently, so a crash in
// the middle is finished at the next start) and removes an incomplete
// one, logging why: an interrupted clone never leaves a half-usable
// datadir, and running the clone again starts it afresh.
package clone
