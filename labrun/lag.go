package labrun

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Lag, as replication-sysbench measures it (replsb.go, with interpolation): at a replica sample, the age of the
// oldest transaction the replica has not applied, i.e. the sample's time
// minus the time the primary's counter first reached the replica's
// counter + 1 (0 when the replica holds all the primary had). The primary
// is sampled every primaryEvery, so that time is known to within it.

const (
	primaryEvery = 20 * time.Millisecond
	replicaEvery = 100 * time.Millisecond
)

type lagSampler struct {
	c       *Cluster
	replica int
	start   time.Time
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	points  []Point
}

type countAt struct {
	t time.Time
	n int64
}

// startLag samples replica i's lag until the returned sampler's Stop.
// x is seconds since start.
func startLag(ctx context.Context, c *Cluster, i int, start time.Time) *lagSampler {
	s := &lagSampler{c: c, replica: i, start: start, stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop(ctx)
	return s
}

func (s *lagSampler) loop(ctx context.Context) {
	defer close(s.done)
	var hist []countAt
	tick := time.NewTicker(primaryEvery)
	defer tick.Stop()
	lastReplica := time.Time{}
	for {
		now := time.Now()
		if n, err := s.c.PrimaryCount(ctx); err == nil && (len(hist) == 0 || n > hist[len(hist)-1].n) {
			hist = append(hist, countAt{now, n})
		}
		if now.Sub(lastReplica) >= replicaEvery && len(hist) > 0 {
			lastReplica = now
			if r, err := s.c.ReplicaCount(ctx, s.replica); err == nil {
				lag := 0.0
				if r < hist[len(hist)-1].n {
					reached := s.start
					for _, h := range hist {
						if h.n >= r+1 {
							reached = h.t
							break
						}
					}
					lag = max(time.Since(reached).Seconds(), 0)
				}
				s.mu.Lock()
				s.points = append(s.points, Point{X: now.Sub(s.start).Seconds(), Y: lag})
				s.mu.Unlock()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

// Stop ends sampling and returns the samples.
func (s *lagSampler) Stop() []Point {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.points
}

// maxIn is the largest y with x in [from, to).
func maxIn(pts []Point, from, to float64) float64 {
	m := 0.0
	for _, p := range pts {
		if p.X >= from && p.X < to {
			m = max(m, p.Y)
		}
	}
	return m
}

// meanIn is the mean y with x in [from, to).
func meanIn(pts []Point, from, to float64) float64 {
	sum, n := 0.0, 0
	for _, p := range pts {
		if p.X >= from && p.X < to {
			sum += p.Y
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// settledAfter is how long after x=from the lag came back under limit
// for good (every later sample under it); the whole remaining span if it
// never did.
func settledAfter(pts []Point, from, limit float64) float64 {
	last := from
	for _, p := range pts {
		if p.X >= from && p.Y >= limit {
			last = p.X
		}
	}
	return last - from
}

// rssMiB is a process's resident memory, from /proc (0 if unknown).
func rssMiB(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// dirMiB is the size of the files under dir.
func dirMiB(dir string) float64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return float64(n) / (1 << 20)
}

// bucket turns commits into y per bin of width w seconds over [0, span):
// the commits per second (rate) or the largest latency in ms.
func bucket(commits []Commit, w, span float64, rate bool) []Point {
	nb := int(span/w + 0.5)
	if nb <= 0 {
		return nil
	}
	ys := make([]float64, nb)
	for _, c := range commits {
		i := int(c.At.Seconds() / w)
		if i < 0 || i >= nb {
			continue
		}
		if rate {
			ys[i] += 1 / w
		} else {
			ys[i] = max(ys[i], float64(c.Latency)/float64(time.Millisecond))
		}
	}
	pts := make([]Point, nb)
	for i, y := range ys {
		pts[i] = Point{X: (float64(i) + 0.5) * w, Y: y}
	}
	return pts
}
