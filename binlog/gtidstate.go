package binlog

// GTID state: what is executed (visible in storage), logged and purged,
// and the positions readers see.

import (
	"petrel/internal/base"
	"petrel/storage"
)

// Executed returns a copy of gtid_executed: the GTIDs whose transactions
// are committed and visible.
func (l *Log) Executed() *base.GTIDSet {
	l.visMu.Lock()
	defer l.visMu.Unlock()
	return l.visible.Clone()
}

// Applied implements storage.AppliedNotifier: rec's rows are visible, so
// its GTID joins gtid_executed.
func (l *Log) Applied(rec *storage.CommitRecord) {
	l.visMu.Lock()
	l.visible.Add(rec.GTID)
	l.visMu.Unlock()
	l.wake()
}

// resetVisible makes gtid_executed equal to what the log holds (at open,
// after recovery, after RESET MASTER). Caller holds mu or is Open.
func (l *Log) resetVisible() {
	l.visMu.Lock()
	l.visible = l.executed.Clone()
	l.visMu.Unlock()
}

// Logged returns every GTID written to the log, including transactions
// still waiting for their commit to finish (semi-sync acknowledgements): a
// replica may already hold those.
func (l *Log) Logged() *base.GTIDSet {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.executed.Clone()
}

// HasExecuted reports whether g is in gtid_executed.
func (l *Log) HasExecuted(g base.GTID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.executed.Contains(g)
}

// Purged returns a copy of gtid_purged.
func (l *Log) Purged() *base.GTIDSet {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.purged.Clone()
}

// Current is the end of the log (SHOW MASTER STATUS).
func (l *Log) Current() Position {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Position{File: l.files[l.fileIdx], Pos: l.pos}
}

// SyncedPosition is the end of the durable part of the log.
func (l *Log) SyncedPosition() Position { return l.endPosition(false) }

// endPosition is the durable end of the log (everything written when
// sync_binlog is not 1), or, with early and sendEarly holding, everything
// written.
func (l *Log) endPosition(early bool) Position {
	l.mu.Lock()
	files := l.files
	written := l.syncBinlog.Load() != 1 || (early && l.sendEarly())
	l.mu.Unlock()
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if written {
		return Position{File: files[l.written.file], Pos: l.written.pos}
	}
	end := l.synced
	if early {
		end = l.sendableLocked()
	}
	return Position{File: files[end.file], Pos: end.pos}
}

// sendableLocked is the durable end, extended over the replicated
// transactions that follow it (SendablePosition). Caller holds syncMu.
func (l *Log) sendableLocked() logPos {
	if !l.synced.less(l.localEnd) {
		// Nothing local is unsynced: what is written is replicated.
		return l.written
	}
	if l.synced.less(l.relaySent) {
		return l.relaySent
	}
	return l.synced
}
