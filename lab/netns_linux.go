package lab

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// Do runs fn on an OS thread switched into side's network namespace, so
// sockets fn creates belong to that namespace and keep belonging to it
// after Do returns (they can then be used from any goroutine). fn runs on
// its own goroutine, must not start goroutines that expect the namespace,
// and should return once its sockets exist: Do waits for it. The thread
// goes back to the original namespace afterwards, or, if that fails, is
// left locked so the runtime ends it.
func (p *NetnsPair) Do(side int, fn func() error) error {
	target, err := os.Open(filepath.Join("/run/netns", p.Name(side)))
	if err != nil {
		return fmt.Errorf("lab: netns: %w", err)
	}
	defer target.Close()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("lab: netns: %w", err)
			return
		}
		defer orig.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("lab: netns: setns %s: %w", p.Name(side), err)
			return
		}
		fnErr := fn()
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			// Still locked: the thread dies with this goroutine.
			errc <- errors.Join(fnErr, fmt.Errorf("lab: netns: setns back: %w", err))
			return
		}
		runtime.UnlockOSThread()
		errc <- fnErr
	}()
	return <-errc
}
