package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is USER_HZ, the unit of /proc's CPU times: 100 on every Linux
// architecture Go supports.
const clockTick = 10 * time.Millisecond

// kthreadd is the parent of every kernel thread.
const kthreadd = 2

// readCPU reads the host's CPU times from /proc/stat and every process's
// from /proc/<pid>/stat.
func readCPU() cpuSnapshot {
	s := cpuSnapshot{at: time.Now(), live: make(map[int]procCPU)}
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(f) < 9 || f[0] != "cpu" {
		return s
	}
	s.tasks = ticks(f[1]) + ticks(f[2]) + ticks(f[3])
	s.irq = ticks(f[6]) + ticks(f[7])
	s.steal = ticks(f[8])

	self := os.Getpid()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		p, ok := readProc(path)
		switch {
		case !ok:
		case pid == kthreadd || p.ppid == kthreadd:
			s.kthreads += p.own
		case pid == self:
			s.ours += p.own + p.children // reaped children: sysbench runs
		case p.ppid == self:
			s.ours += p.own
		default:
			s.live[pid] = procCPU{p.name, p.own}
		}
	}
	s.flushes, s.flushTime = diskFlushes(os.TempDir())
	s.ok = true
	return s
}

// diskFlushes returns the flush requests completed by the disk holding dir
// and the time spent on them, from /proc/diskstats (Linux 5.5+: the 19th
// and 20th fields); 0 when unknown.
func diskFlushes(dir string) (int64, time.Duration) {
	var st syscall.Stat_t
	if syscall.Stat(dir, &st) != nil {
		return 0, 0
	}
	major := (st.Dev>>8)&0xfff | (st.Dev>>32)&^0xfff
	minor := st.Dev&0xff | (st.Dev>>12)&^0xff
	data, err := os.ReadFile("/proc/diskstats")
	if err != nil {
		return 0, 0
	}
	want := []string{strconv.FormatUint(major, 10), strconv.FormatUint(minor, 10)}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 20 || f[0] != want[0] || f[1] != want[1] {
			continue
		}
		n, _ := strconv.ParseInt(f[18], 10, 64)
		ms, _ := strconv.ParseInt(f[19], 10, 64)
		return n, time.Duration(ms) * time.Millisecond
	}
	return 0, 0
}

// procStat is what readProc takes from /proc/<pid>/stat.
type procStat struct {
	name          string
	ppid          int
	own, children time.Duration // user + system; of its reaped children
}

func readProc(path string) (procStat, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, false // exited meanwhile
	}
	// "pid (comm) state ppid ...": after the last ")", state, ppid, ...,
	// utime, stime, cutime, cstime are the 1st, 2nd, 12th to 15th fields.
	s := string(data)
	i, j := strings.Index(s, " ("), strings.LastIndex(s, ") ")
	if i < 0 || j < i+2 {
		return procStat{}, false
	}
	f := strings.Fields(s[j+2:])
	if len(f) < 15 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return procStat{
		name:     s[i+2 : j],
		ppid:     ppid,
		own:      ticks(f[11]) + ticks(f[12]),
		children: ticks(f[13]) + ticks(f[14]),
	}, true
}

func ticks(s string) time.Duration {
	n, _ := strconv.ParseInt(s, 10, 64)
	return time.Duration(n) * clockTick
}

// processCPU is process pid's own CPU time (user + system) so far.
func processCPU(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	s, ok := readProc("/proc/" + strconv.Itoa(pid) + "/stat")
	return s.own, ok
}
