package benchkit

import (
	"context"
	"fmt"
	"log/slog"
)

// Exit statuses of the bench programs.
const (
	ExitOK          = 0
	ExitFailed      = 1   // a system failed, or the report was not written
	ExitUsage       = 2   // bad flags, or a tool missing
	ExitInterrupted = 130 // SIGINT or SIGTERM
)

// Systems is the run of a program that measures each of several systems
// in turn and reports on all of them at the end (bench/cmd/repl).
type Systems[R any] struct {
	// Systems are measured in this order.
	Systems []string
	// Bench measures one system; its result is kept whatever happened.
	Bench func(ctx context.Context, logger *slog.Logger, system string) R
	// Err is a result's failure, nil when it succeeded (R may be nil).
	Err func(R) error
	// Report formats the results (a system not reached is missing).
	Report func(results map[string]R, interrupted bool) string
	// Write stores the report.
	Write func(report string) error
}

// Run measures every system until ctx is done, prints the report on
// stdout, writes it and returns the exit status: ExitInterrupted when ctx
// was cancelled, ExitFailed when a system failed or the report could not
// be written, else ExitOK. Every failure is logged.
func (s Systems[R]) Run(ctx context.Context, logger *slog.Logger) int {
	results := make(map[string]R)
	for _, system := range s.Systems {
		results[system] = s.Bench(ctx, logger.With("system", system), system)
		if ctx.Err() != nil {
			break
		}
	}
	report := s.Report(results, ctx.Err() != nil)
	fmt.Println(report)
	failed := false
	if err := s.Write(report); err != nil {
		logger.Error("write report", "err", err)
		failed = true
	}
	for _, system := range s.Systems {
		if r, ok := results[system]; ok {
			if err := s.Err(r); err != nil {
				logger.Error("FAILED", "system", system, "err", err)
				failed = true
			}
		}
	}
	switch {
	case ctx.Err() != nil:
		logger.Error("interrupted")
		return ExitInterrupted
	case failed:
		return ExitFailed
	}
	return ExitOK
}
