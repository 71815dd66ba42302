package lab

import "sync"

// logTailSize is how much of a server's output Log keeps.
const logTailSize = 64 << 10

// tailBuffer is an io.Writer that keeps only the last max bytes written.
// It is safe for concurrent use.
type tailBuffer struct {
	max int

	mu struct {
		sync.Mutex
		buf       []byte
		truncated bool // some output was dropped from the front
	}
}

func newTailBuffer(max int) *tailBuffer {
	return &tailBuffer{max: max}
}

// Write appends p, dropping the oldest bytes beyond max. It never fails.
func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(p) >= b.max {
		b.mu.buf = append(b.mu.buf[:0], p[len(p)-b.max:]...)
		b.mu.truncated = true
		return len(p), nil
	}
	b.mu.buf = append(b.mu.buf, p...)
	// Trim only when twice the limit is reached, so the copy is amortised.
	if len(b.mu.buf) >= 2*b.max {
		n := copy(b.mu.buf, b.mu.buf[len(b.mu.buf)-b.max:])
		b.mu.buf = b.mu.buf[:n]
		b.mu.truncated = true
	}
	return len(p), nil
}

// String returns the last max bytes written, prefixed with a marker if
// older output was dropped.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	buf := b.mu.buf
	truncated := b.mu.truncated
	if len(buf) > b.max {
		buf = buf[len(buf)-b.max:]
		truncated = true
	}
	if truncated {
		return "[... earlier output dropped ...]\n" + string(buf)
	}
	return string(buf)
}

// tail returns at most the last n bytes of s, for error messages.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
