package labrun

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

type timeDuration = time.Duration

// Progress shows the run's phases: on a terminal one bar redrawn in place
// per phase (elapsed against planned), otherwise one plain line at each
// phase's start and end, for logs and CI.
type Progress struct {
	out io.Writer
	tty bool
	mu  sync.Mutex
}

// NewProgress writes to out, with bars if out is a terminal.
func NewProgress(out io.Writer) *Progress {
	p := &Progress{out: out}
	if f, ok := out.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// Phase starts a phase of planned length (0: unknown) and returns the
// function that ends it. On a terminal a goroutine redraws the bar every
// 200 ms until then.
func (p *Progress) Phase(name string, planned time.Duration) func() {
	if p == nil {
		return func() {}
	}
	start := time.Now()
	if !p.tty {
		p.printf("%s  %s ...\n", start.UTC().Format("15:04:05"), name)
		return func() {
			p.printf("%s  %s done in %s\n", time.Now().UTC().Format("15:04:05"), name, time.Since(start).Round(time.Millisecond))
		}
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			p.printf("\r\033[K%s", bar(name, time.Since(start), planned))
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(stop)
		<-stopped
		p.printf("\r\033[K%s done in %s\n", name, time.Since(start).Round(time.Millisecond))
	}
}

func (p *Progress) printf(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, format, a...)
}

// bar draws "[=====>    ]  45% name 2.3s/5s"; with no plan, a spinner of
// elapsed time.
func bar(name string, elapsed, planned time.Duration) string {
	const width = 24
	if planned <= 0 {
		return fmt.Sprintf("[%s] %s %s", strings.Repeat(".", int(elapsed/(200*time.Millisecond))%width+1), name, elapsed.Round(100*time.Millisecond))
	}
	frac := min(float64(elapsed)/float64(planned), 1)
	n := int(frac * width)
	return fmt.Sprintf("[%s>%s] %3.0f%% %s %s/%s", strings.Repeat("=", n), strings.Repeat(" ", width-n), frac*100, name,
		elapsed.Round(100*time.Millisecond), planned)
}
