package benchkit

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestSystemsRun checks the order of systems, the report's inputs, the
// stop at an interrupt and the exit statuses.
func TestSystemsRun(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name      string
		fail      string // system whose Bench fails
		cancelAt  string // system whose Bench cancels the run
		writeErr  error
		wantRan   string
		wantExit  int
		wantInter bool
	}{
		{name: "ok", wantRan: "a,b,c", wantExit: ExitOK},
		{name: "failure", fail: "b", wantRan: "a,b,c", wantExit: ExitFailed},
		{name: "write", writeErr: errors.New("disk full"), wantRan: "a,b,c", wantExit: ExitFailed},
		{name: "interrupt", cancelAt: "b", wantRan: "a,b", wantExit: ExitInterrupted, wantInter: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var ran []string
			var reported map[string]error
			var inter bool
			var written string
			exit := Systems[error]{
				Systems: []string{"a", "b", "c"},
				Bench: func(ctx context.Context, _ *slog.Logger, system string) error {
					ran = append(ran, system)
					if system == tc.cancelAt {
						cancel()
					}
					if system == tc.fail {
						return errors.New("broke")
					}
					return nil
				},
				Err: func(err error) error { return err },
				Report: func(results map[string]error, interrupted bool) string {
					reported, inter = results, interrupted
					return "report of " + strings.Join(ran, ",")
				},
				Write: func(report string) error { written = report; return tc.writeErr },
			}.Run(ctx, logger)
			if got := strings.Join(ran, ","); got != tc.wantRan {
				t.Errorf("ran %s, want %s", got, tc.wantRan)
			}
			if exit != tc.wantExit {
				t.Errorf("exit %d, want %d", exit, tc.wantExit)
			}
			if len(reported) != len(ran) || inter != tc.wantInter {
				t.Errorf("report got %d results, interrupted %v; want %d, %v", len(reported), inter, len(ran), tc.wantInter)
			}
			if (reported["b"] != nil) != (tc.fail == "b") {
				t.Errorf("result of b = %v", reported["b"])
			}
			if written != "report of "+tc.wantRan {
				t.Errorf("written %q", written)
			}
		})
	}
}
