package replica

import (
	"errors"
	"sync"
	"time"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/storage"
)

// WorkerStatus is one applier worker as
// performance_schema.replication_applier_status_by_worker shows it. The
// single applier is worker 1. Zero times and empty GTIDs are unset.
type WorkerStatus struct {
	WorkerID int
	Running  bool // the applier (SQL thread) runs

	LastErrno int
	LastError string
	LastErrAt time.Time

	LastApplied      string // GTID
	LastAppliedOrig  time.Time
	LastAppliedStart time.Time
	LastAppliedEnd   time.Time

	Applying      string // GTID; "" when idle
	ApplyingOrig  time.Time
	ApplyingStart time.Time
}

// workerStats holds the workers' rows of the running applier, or of the
// last one after it stopped (as MySQL keeps them until START REPLICA).
type workerStats struct {
	mu   sync.Mutex
	rows []WorkerStatus
}

// reset starts a new applier's rows: n workers, nothing applied yet.
func (s *workerStats) reset(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = make([]WorkerStatus, n)
	for i := range s.rows {
		s.rows[i].WorkerID = i + 1
	}
}

func (s *workerStats) row(worker int) *WorkerStatus {
	if worker < 1 || worker > len(s.rows) {
		return nil
	}
	return &s.rows[worker-1]
}

// begin records that worker started applying g.
func (s *workerStats) begin(worker int, g base.GTID, orig, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w := s.row(worker); w != nil {
		w.Applying, w.ApplyingOrig, w.ApplyingStart = g.String(), orig, now
	}
}

// end records the outcome of what worker was applying (nothing if it had
// not begun one: a skipped transaction).
func (s *workerStats) end(worker int, err error, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.row(worker)
	if w == nil || w.Applying == "" {
		return
	}
	if err != nil {
		w.LastErrno, w.LastError, w.LastErrAt = applyErrno(err), err.Error(), now
	} else {
		w.LastApplied, w.LastAppliedOrig, w.LastAppliedStart, w.LastAppliedEnd = w.Applying, w.ApplyingOrig, w.ApplyingStart, now
	}
	w.Applying, w.ApplyingOrig, w.ApplyingStart = "", time.Time{}, time.Time{}
}

// Workers returns the applier workers' rows (none before the applier
// first started).
func (r *Replica) Workers() []WorkerStatus {
	r.mu.Lock()
	running := r.sqlT != nil
	r.mu.Unlock()
	r.workers.mu.Lock()
	defer r.workers.mu.Unlock()
	out := append([]WorkerStatus(nil), r.workers.rows...)
	for i := range out {
		out[i].Running = running
	}
	return out
}

// applyErrno is the MySQL error number of an applier failure: the
// failure's own (1146 a missing table, 1062 a duplicate, ...); a relay log
// that cannot be read is a relay log read failure, anything else the
// generic applier failure (ER_REPLICA_RELAY_LOG_READ_FAILURE's old
// number, 1594).
func applyErrno(err error) int {
	if errors.Is(err, storage.ErrRowNotFound) {
		return mysqlerr.ErKeyNotFound
	}
	if isDuplicate(err) {
		return mysqlerr.ForClass(base.ClassDuplicate).Num
	}
	switch base.ClassOf(err) {
	case base.ClassCorrupt:
		return mysqlerr.ErRelayLogReadFailure
	case base.ClassInternal:
		return mysqlerr.ErReplicaRelayLogReadFailure
	}
	return mysqlerr.ForClass(base.ClassOf(err)).Num
}
