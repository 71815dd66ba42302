package clone

import (
	"encoding/json"
	"os"
	"sync"
	"time"
)

// Clone states and stages, MySQL's names (performance_schema.clone_status
// and clone_progress).
const (
	StateNotStarted = "Not Started"
	StateInProgress = "In Progress"
	StateCompleted  = "Completed"
	StateFailed     = "Failed"

	StageFileCopy = "FILE COPY"
	StageFileSync = "FILE SYNC"
	StageRestart  = "RESTART"
	StageRecovery = "RECOVERY"
)

// Stages lists the stages in order.
var Stages = []string{StageFileCopy, StageFileSync, StageRestart, StageRecovery}

// Status is one clone's state: what clone_status and clone_progress show.
type Status struct {
	State       string
	Source      string // donor host:port
	Destination string // "LOCAL INSTANCE" or the datadir
	Begin, End  time.Time
	ErrNo       int
	ErrMsg      string
	BinlogFile  string
	BinlogPos   uint64
	GTIDs       string
	Stages      []StageStatus
}

// StageStatus is one row of clone_progress.
type StageStatus struct {
	Name       string
	State      string
	Begin, End time.Time
	Estimate   int64 // bytes the stage will move
	Data       int64 // bytes moved so far
	// Network is the bytes that crossed the network for Data (less when
	// clone_enable_compression is ON).
	Network int64
	// Speed is the last second's rate, bytes per second.
	Speed int64
}

// Progress is the live status of the clone this process runs or ran.
// Safe for concurrent use.
type Progress struct {
	mu sync.Mutex
	st Status
	// speed over the last second
	winStart time.Time
	winBytes int64
}

// NewProgress is a Progress with no clone.
func NewProgress() *Progress {
	p := &Progress{}
	p.st = newStatus()
	return p
}

func newStatus() Status {
	st := Status{State: StateNotStarted}
	for _, s := range Stages {
		st.Stages = append(st.Stages, StageStatus{Name: s, State: StateNotStarted})
	}
	return st
}

// Snapshot returns a copy of the status.
func (p *Progress) Snapshot() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.st
	st.Stages = append([]StageStatus(nil), p.st.Stages...)
	return st
}

// Set replaces the status (a status loaded after a restart).
func (p *Progress) Set(st Status) {
	p.mu.Lock()
	p.st = st
	p.mu.Unlock()
}

func (p *Progress) start(now time.Time, source, dest string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st = newStatus()
	p.st.State, p.st.Source, p.st.Destination, p.st.Begin = StateInProgress, source, dest, now
}

func (p *Progress) stage(now time.Time, name string, estimate int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.st.Stages {
		s := &p.st.Stages[i]
		if s.State == StateInProgress {
			s.State, s.End, s.Speed = StateCompleted, now, 0
		}
		if s.Name == name {
			s.State, s.Begin, s.Estimate = StateInProgress, now, estimate
		}
	}
	p.winStart, p.winBytes = now, 0
}

func (p *Progress) add(now time.Time, n, network int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.st.Stages {
		s := &p.st.Stages[i]
		if s.State != StateInProgress {
			continue
		}
		s.Data += n
		s.Network += network
		p.winBytes += n
		if el := now.Sub(p.winStart); el >= time.Second {
			s.Speed = int64(float64(p.winBytes) / el.Seconds())
			p.winStart, p.winBytes = now, 0
		}
	}
}

func (p *Progress) setLog(m *Manifest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.BinlogFile, p.st.BinlogPos, p.st.GTIDs = m.Binlog, m.HeaderEnd, m.GTIDs
}

func (p *Progress) fail(now time.Time, num int, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.State, p.st.End, p.st.ErrNo, p.st.ErrMsg = StateFailed, now, num, msg
	for i := range p.st.Stages {
		if s := &p.st.Stages[i]; s.State == StateInProgress {
			s.State, s.End = StateFailed, now
		}
	}
}

// StatusFile is where the status of the last clone into a datadir is
// kept across the restart (MySQL keeps it too).
const StatusFile = "clone-status.json"

func writeStatus(path string, st Status) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o640)
}

func readStatus(path string) (Status, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Status{}, false
	}
	var st Status
	if json.Unmarshal(b, &st) != nil {
		return Status{}, false
	}
	return st, true
}
