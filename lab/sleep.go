package lab

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx is done (its error then); d <= 0 returns at
// once with ctx's error, if any.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
