package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// cpuSnapshot is the host's CPU time at one moment, split by who used it.
type cpuSnapshot struct {
	at    time.Time
	tasks time.Duration // host: user, nice and system time, charged to processes
	irq   time.Duration // host: irq and softirq
	steal time.Duration // host: taken by the hypervisor
	// ours is this process's (with sysbench runs, reaped) and its live
	// children's: the servers and a running sysbench.
	ours time.Duration
	// kthreads is the kernel threads' (filesystem journal, block I/O).
	kthreads time.Duration
	// flushes and flushTime are the temporary directory's disk's flush
	// (fsync) requests and the time spent on them, all processes'.
	flushes   int64
	flushTime time.Duration
	// live is every other live process's own time, to name the busiest
	// (others also counts processes that came and went, such as compilers).
	live map[int]procCPU
	ok   bool
}

// procCPU is one process's CPU time so far.
type procCPU struct {
	name string
	t    time.Duration
}

// cpuUse is how the host's CPU was used between two snapshots, in cores
// (CPU seconds per second). others is every process that is neither this
// benchmark's nor the kernel's, short-lived ones included.
type cpuUse struct {
	wall                        time.Duration
	ours, kernel, others, steal float64
	top                         string // the other commands that used most, e.g. "go 0.52, gopls 0.10"
	// flushRate is the disk's flush requests per second and flushMean
	// their mean duration (0: unknown).
	flushRate float64
	flushMean time.Duration
	ok        bool
}

func (s cpuSnapshot) since(prev cpuSnapshot) cpuUse {
	wall := s.at.Sub(prev.at)
	if !s.ok || !prev.ok || wall <= 0 {
		return cpuUse{}
	}
	cores := func(d time.Duration) float64 { return max(d.Seconds()/wall.Seconds(), 0) }
	ours := s.ours - prev.ours
	kernel := (s.kthreads - prev.kthreads) + (s.irq - prev.irq)
	byName := make(map[string]time.Duration)
	for pid, p := range s.live {
		byName[p.name] += max(p.t-prev.live[pid].t, 0) // a new process counts whole
	}
	u := cpuUse{
		wall:   wall,
		ours:   cores(ours),
		kernel: cores(kernel),
		others: cores(s.tasks - prev.tasks - ours - (s.kthreads - prev.kthreads)),
		steal:  cores(s.steal - prev.steal),
		top:    topUsers(byName, wall),
		ok:     true,
	}
	if n := s.flushes - prev.flushes; n > 0 {
		u.flushRate = float64(n) / wall.Seconds()
		u.flushMean = (s.flushTime - prev.flushTime) / time.Duration(n)
	}
	return u
}

// topUsers names the three commands that used most CPU, in cores.
func topUsers(byName map[string]time.Duration, wall time.Duration) string {
	names := make([]string, 0, len(byName))
	for n, d := range byName {
		if d.Seconds()/wall.Seconds() >= 0.005 { // shows as at least 0.01
			names = append(names, n)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(byName[b], byName[a]) })
	var parts []string
	for _, n := range names[:min(3, len(names))] {
		parts = append(parts, fmt.Sprintf("%s %.2f", n, byName[n].Seconds()/wall.Seconds()))
	}
	return strings.Join(parts, ", ")
}
