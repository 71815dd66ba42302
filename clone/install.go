package clone

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// Installed says what Install did.
type Installed int

const (
	// NothingStaged: no clone was waiting.
	NothingStaged Installed = iota
	// Switched: a complete clone replaced the datadir's storage and log.
	Switched
	// RemovedInterrupted: an incomplete clone (the recipient died, or the
	// link or the donor failed, before its commit point) was removed; the
	// datadir is as it was before the clone started.
	RemovedInterrupted
)

// parts are what a clone replaces in a datadir; everything else (the
// identity file with the server UUID, TLS and RSA keys, the replica's
// settings) stays the recipient's, as in MySQL.
var parts = []string{"data", "binlog"}

// Install runs at every start of a datadir, before storage opens: a
// complete staging directory is switched in, an incomplete one removed.
// Switching is redone from the start if it is interrupted (each part is
// moved only while the marker is there, and the marker goes last). reset
// names directories of the datadir that hold state derived from the data
// being replaced (the replica's relay log): they are removed in the
// switch.
func Install(datadir string, logger *slog.Logger, reset ...string) (Installed, error) {
	if logger == nil {
		logger = slog.Default()
	}
	staging := filepath.Join(datadir, StagingDir)
	if _, err := os.Stat(staging); errors.Is(err, os.ErrNotExist) {
		return NothingStaged, nil
	}
	if _, err := os.Stat(filepath.Join(staging, completeMarker)); err != nil {
		logger.Warn("clone: an interrupted clone was found and removed (it never reached its commit point); the datadir is as before it: run the clone again", "dir", staging)
		if err := os.RemoveAll(staging); err != nil {
			return 0, fmt.Errorf("clone: remove the interrupted clone %s: %w", staging, err)
		}
		return RemovedInterrupted, nil
	}
	for _, part := range parts {
		src := filepath.Join(staging, part)
		if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
			continue // moved by an earlier, interrupted Install
		}
		dst := filepath.Join(datadir, part)
		if err := os.RemoveAll(dst); err != nil {
			return 0, fmt.Errorf("clone: remove %s to switch the clone in: %w", dst, err)
		}
		if err := os.Rename(src, dst); err != nil {
			return 0, fmt.Errorf("clone: switch the clone in: %w", err)
		}
	}
	for _, r := range reset {
		if err := os.RemoveAll(filepath.Join(datadir, r)); err != nil {
			return 0, fmt.Errorf("clone: remove %s at the switch: %w", r, err)
		}
	}
	if err := syncDir(datadir); err != nil {
		return 0, err
	}
	st, _ := readStatus(filepath.Join(staging, StatusFile))
	st.Stages = stagesDone(st.Stages, StageRestart, time.Now())
	if err := writeStatus(filepath.Join(datadir, StatusFile), st); err != nil {
		return 0, fmt.Errorf("clone: %w", err)
	}
	if err := os.RemoveAll(staging); err != nil {
		return 0, fmt.Errorf("clone: remove %s: %w", staging, err)
	}
	if err := syncDir(datadir); err != nil {
		return 0, err
	}
	logger.Info("clone: the cloned data is switched in", "datadir", datadir, "donor", st.Source, "gtid_executed", st.GTIDs)
	return Switched, nil
}

// stagesDone marks stage done (ended at now) and the next one started.
func stagesDone(stages []StageStatus, stage string, now time.Time) []StageStatus {
	out := append([]StageStatus(nil), stages...)
	for i := range out {
		if out[i].Name == stage {
			out[i].State, out[i].End = StateCompleted, now
			if out[i].Begin.IsZero() {
				out[i].Begin = now
			}
			if i+1 < len(out) {
				out[i+1].State, out[i+1].Begin = StateInProgress, now
			}
		}
	}
	return out
}

// LoadStatus reads the status of the last clone switched into datadir
// (nothing if none) and, the server having opened it, marks its recovery
// and the clone completed.
func LoadStatus(datadir string, now time.Time) (Status, bool) {
	p := filepath.Join(datadir, StatusFile)
	st, ok := readStatus(p)
	if !ok {
		return Status{}, false
	}
	if st.State == StateInProgress {
		st.Stages = stagesDone(st.Stages, StageRecovery, now)
		st.State, st.End = StateCompleted, now
		writeStatus(p, st)
	}
	return st, true
}
