package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"petrel/internal/base"
)

// ErrAbandoned is returned (wrapped) by StopCommits and CloseContext when
// their deadline passed first. What was abandoned is safe to leave: every
// acknowledged commit is in the sink's synced log (or, without one, in
// Pebble's synced WAL), and the next Open recovers from it.
var ErrAbandoned = errors.New("storage: abandoned at the shutdown deadline")

// StopCommits turns every new commit away with ClassShutdown (at the
// sink, before anything is written, so the failure is definite) and waits
// until each commit already in the sink has been applied, or ctx ends.
// Commits cannot start again: it is the first step of closing.
func (e *Engine) StopCommits(ctx context.Context) error {
	stop := base.Errorf(base.ClassShutdown, "storage: the server is shutting down")
	// Under commitMu, so every commit sequenced after last meets the stop.
	e.commitMu.Lock()
	e.stopped.CompareAndSwap(nil, &stop)
	last := e.nextSeq - 1
	e.commitMu.Unlock()
	if !e.turn.waitPassedCtx(ctx, last) {
		return fmt.Errorf("%w: %d commits in flight did not finish", ErrAbandoned, last-e.turn.done())
	}
	return nil
}

// Close is CloseContext bounded by Options.CloseTimeout.
func (e *Engine) Close() error { return e.CloseContext(context.Background()) }

// CloseContext stops commits (StopCommits), flushes the memtables (so a
// clean stop leaves nothing that only the log holds) and closes Pebble,
// within ctx's deadline, or Options.CloseTimeout if it has none. Open
// transactions should be finished first; commits still in flight when it
// is called are waited for.
//
// While writes are refused there is no flush: it would need disk space,
// and Pebble cannot flush at all after its WAL failed (the memtable
// rotation panics). Pebble replays the WAL, or the sink's log when it is
// storage's WAL, at the next Open instead. After a failure only a restart
// recovers from (Fail), the close is not clean and says so in its error.
//
// At the deadline the rest is abandoned and ErrAbandoned returned: a flush
// that cannot finish (the datadir was removed, the disk hangs) and
// Pebble's close, which waits for that flush, go on in the background
// until the process exits. The engine must not be used afterwards.
func (e *Engine) CloseContext(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.opts.CloseTimeout)
		defer cancel()
	}
	e.closeOnce.Do(func() {
		e.tasksMu.Lock()
		close(e.closing)
		e.tasksMu.Unlock()
	})
	if err := e.StopCommits(ctx); err != nil {
		return e.abandoned(err)
	}
	if !waitCtx(ctx, e.tasks.Wait) {
		return e.abandoned(fmt.Errorf("%w: background work did not stop", ErrAbandoned))
	}
	if !waitCtx(ctx, e.bg.Wait) {
		return e.abandoned(fmt.Errorf("%w: refusing writes after a failed commit did not finish", ErrAbandoned))
	}
	var ferr error
	flushed := false
	if !e.refusing() {
		ferr = e.flushUntil(func() bool { return e.refusing() || ctx.Err() != nil })
		if ferr == errFlushGivenUp {
			if ctx.Err() != nil {
				return e.abandoned(fmt.Errorf("%w: the memtable flush did not finish", ErrAbandoned))
			}
			ferr = nil // the disk filled meanwhile: the log covers it
		}
		flushed = ferr == nil && !e.refusing()
	}
	if p := e.fatal.Load(); p != nil {
		// Not a clean stop: what only the log holds stays there.
		ferr = errors.Join(ferr, fmt.Errorf("storage: closed without flushing, writes having been refused until restart (the next start recovers from the log): %w", *p))
	}
	var err error
	e.pebbleCloseOnce.Do(func() { close(e.pebbleClosing) })
	if !waitCtx(ctx, func() {
		err = e.db.Close()
		e.bg.Wait() // a WAL error on close refuses writes too
	}) {
		return e.abandoned(fmt.Errorf("%w: Pebble's close did not finish", ErrAbandoned))
	}
	if n := e.openViews.Load(); err != nil && n > 0 && strings.HasPrefix(err.Error(), "leaked snapshots") {
		// Transactions of statements abandoned at shutdown still hold
		// read views; Pebble closed all the same, and reports only that.
		e.opts.Logger.Warn("storage: closed with transactions still holding read views", "views", n)
		err = nil
	}
	if flushed && err == nil {
		e.removeLogIsWALMarker()
	}
	return errors.Join(err, ferr)
}

// abandoned logs what CloseContext leaves to recovery.
func (e *Engine) abandoned(err error) error {
	e.opts.Logger.Error("storage: close abandoned at its deadline; the next start recovers from the log", "dir", e.opts.Dir, "err", err.Error())
	return err
}

// waitCtx runs fn on its own goroutine and waits for it or ctx, whichever
// ends first; it reports whether fn finished. An abandoned fn runs on.
func waitCtx(ctx context.Context, fn func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}
