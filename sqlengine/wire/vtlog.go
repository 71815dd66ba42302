package wire

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	vtlog "github.com/dolthub/vitess/go/vt/log"
)

// vitess logs through the package variables of go/vt/log (GMS points them
// at logrus), and logs a line for every connection a client ends badly: a
// handshake it cannot parse, a packet cut short, a write that timed out,
// a command it does not know. A client can trigger those at will, so
// LimitVitessLog lets each kind of line (its format string, or its first
// words) through at most once a second; the lines held back are counted
// in the next one.

// vtlogKinds bounds the kinds tracked; further kinds share one limit.
const vtlogKinds = 256

var vtlogOnce sync.Once

func LimitVitessLog() {
	vtlogOnce.Do(func() {
		vtlog.Error, vtlog.Errorf = limitLog(vtlog.Error)
		vtlog.Warning, vtlog.Warningf = limitLog(vtlog.Warning)
	})
}

// logLimiter rate-limits one level's lines by kind. Safe for concurrent
// use.
type logLimiter struct {
	print func(...any)
	mu    sync.Mutex
	kinds map[string]*rateLog
}

// limitLog returns the print and printf functions for a level whose
// lines print writes.
func limitLog(print func(...any)) (func(...any), func(string, ...any)) {
	l := &logLimiter{print: print, kinds: map[string]*rateLog{}}
	return func(args ...any) {
			msg := fmt.Sprint(args...)
			l.note(msgKind(msg), msg)
		}, func(format string, args ...any) {
			l.note(format, fmt.Sprintf(format, args...))
		}
}

// msgKind is the first words of a message logged without a format (they
// name the event; the client's address comes later).
func msgKind(msg string) string {
	if len(msg) > 24 {
		return msg[:24]
	}
	return msg
}

func (l *logLimiter) note(kind, msg string) {
	if strings.Contains(kind, "caught panic") {
		recoveredPanics.Add(1)
	}
	l.mu.Lock()
	r, ok := l.kinds[kind]
	if !ok {
		if len(l.kinds) >= vtlogKinds {
			kind = ""
			r = l.kinds[kind]
		}
		if r == nil {
			r = newRateLog(func(n int, last string) {
				if n > 1 {
					last = fmt.Sprintf("%s [%d lines like this in the last second; this is the last]", last, n)
				}
				l.print(last)
			})
			l.kinds[kind] = r
		}
	}
	l.mu.Unlock()
	r.note(msg)
}

// recoveredPanics counts the panics vitess recovered around a connection
// ("mysql_server caught panic"): each is a bug a client can trigger.
var recoveredPanics atomic.Int64

// RecoveredPanics returns how many panics vitess has recovered in this
// process (fuzz targets and tests check it stays put).
func RecoveredPanics() int64 { return recoveredPanics.Load() }
