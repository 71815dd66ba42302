// Package failpoint provides named points in the commit path where tests
// can stop or fail a goroutine, to reproduce a crash at exactly that
// moment. Disabled points cost one atomic load.
package failpoint

import (
	"sync"
	"sync/atomic"
)

var (
	enabled atomic.Bool
	mu      sync.RWMutex
	actions = map[string]func() error{}
)

// Enable installs fn at the named point; fn may block (simulating a
// crash there) or return an error the code path then returns.
func Enable(name string, fn func() error) {
	mu.Lock()
	actions[name] = fn
	enabled.Store(true)
	mu.Unlock()
}

// Disable removes the named point.
func Disable(name string) {
	mu.Lock()
	delete(actions, name)
	enabled.Store(len(actions) > 0)
	mu.Unlock()
}

// Inject runs the action installed at name, if any.
func Inject(name string) error {
	if !enabled.Load() {
		return nil
	}
	mu.RLock()
	fn := actions[name]
	mu.RUnlock()
	if fn == nil {
		return nil
	}
	return fn()
}
