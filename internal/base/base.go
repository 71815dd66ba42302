// Package base holds the small vocabulary every Petrel package shares:
// the error classes that the server maps to MySQL error codes, and the
// injectable clock.
package base

import (
	"errors"
	"fmt"
	"time"
)

// Class is a coarse error category. Exactly one table (internal/mysqlerr,
// applied by sqlengine's mysqlError) turns a Class into a MySQL error
// number and SQLSTATE; the numbers below are that table's.
type Class int

const (
	ClassInternal      Class = iota
	ClassDeadlock            // 1213, whole transaction rolled back
	ClassLockTimeout         // 1205, statement rolled back
	ClassDiskFull            // 1021 (ER_DISK_FULL)
	ClassReadOnly            // 1290 (--read-only)
	ClassCorrupt             // refuse to start, or 1030 at runtime
	ClassDuplicate           // 1062 (ER_DUP_ENTRY)
	ClassNotFound            // 1146 (ER_NO_SUCH_TABLE)
	ClassBadInput            // 1210 (ER_WRONG_ARGUMENTS): malformed arguments to a statement
	ClassShutdown            // 1053: refused before anything was written
	ClassWritesRefused       // 1026 (ER_ERROR_ON_WRITE): storage/binlog lost durability, writes refused until fixed
	ClassInterrupted         // 1317: the wait was interrupted (the commit itself may stand)
	// ClassOutcomeUnknown: a commit written to the commit sink (the binlog)
	// failed before it was known durable; after a restart it may or may not
	// be there. Never reported as a definite failure: the client's
	// connection is closed without a reply (CR_SERVER_LOST 2013), as when
	// MySQL goes away under a commit.
	ClassOutcomeUnknown
	// ClassStorageIO: storage could not read what it needs (an I/O error,
	// a table file removed with the datadir): 1030 (ER_GET_ERRNO) with
	// the errno text. The statement fails; nothing is refused after it.
	ClassStorageIO
	// ClassDefChanged: a table's definition changed after the
	// transaction's read view was taken (1412 ER_TABLE_DEF_CHANGED).
	ClassDefChanged
	// ClassTxnTooLarge: the transaction's pending writes passed
	// max_binlog_cache_size (1197 ER_TRANS_CACHE_FULL); the whole
	// transaction is rolled back.
	ClassTxnTooLarge
	// ClassLockNoWait: a locking read with NOWAIT met a row another
	// transaction holds (3572 ER_LOCK_NOWAIT); the statement fails.
	ClassLockNoWait
)

// Error carries a Class alongside a package-prefixed message.
type Error struct {
	Class Class
	Msg   string
	Err   error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error of the given class.
func Errorf(c Class, format string, args ...any) error {
	return &Error{Class: c, Msg: fmt.Sprintf(format, args...)}
}

// Wrap attaches a class and message to err.
func Wrap(c Class, err error, format string, args ...any) error {
	return &Error{Class: c, Msg: fmt.Sprintf(format, args...), Err: err}
}

// ClassOf reports the class of err, or ClassInternal.
func ClassOf(err error) Class {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return ClassInternal
}

// Clock is the one time source every component takes (node hands the
// same one to all), so tests can drive timeouts, heartbeats and
// timestamps without sleeping. Socket deadlines are the exception: the
// kernel enforces them against the wall clock.
type Clock interface {
	Now() time.Time
	// After behaves like time.After.
	After(d time.Duration) <-chan time.Time
	// NewTimer returns a channel that receives once d has elapsed and a
	// function that stops the timer (as time.Timer's Stop).
	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
}

// RealClock is the wall clock.
type RealClock struct{}

func (RealClock) Now() time.Time                         { return time.Now() }
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (RealClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// ClockOr returns c, or the wall clock when c is nil.
func ClockOr(c Clock) Clock {
	if c == nil {
		return RealClock{}
	}
	return c
}
