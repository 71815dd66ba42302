package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestShortRun is the suite's short version of bench/abcost.sh: two
// copies of one build under sysbench point selects and mysqlslap's read
// load, two rounds of a second, one after another and together. The
// report must hold a paired ratio over both rounds for every
// measurement, and the servers' datadirs must be gone afterwards.
func TestShortRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, together := range []bool{false, true} {
		cfg := config{
			binaries:  []binary{{"a", bin}, {"b", bin}},
			workloads: []string{"oltp_point_select", "mysqlslap-read"},
			threads:   []int{2},
			rounds:    2, duration: time.Second, tables: 1, tableSize: 100,
			slapQueries: 20, slapIterations: 1, together: together,
		}
		report, err := measureAll(ctx, logger, cfg, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"oltp_point_select, 2 threads", "mysqlslap-read, 2 threads"} {
			row := lineWith(report, "| "+m+" | b vs a |")
			if row == "" || !strings.Contains(row, "(n=2)") {
				t.Errorf("together=%v: no ratio over 2 rounds for %s:\n%s", together, m, report)
			}
		}
		if strings.Contains(report, " - |") {
			t.Errorf("together=%v: a run is missing:\n%s", together, report)
		}
		left, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range left {
			if strings.HasPrefix(e.Name(), "abcost-") {
				t.Errorf("together=%v: datadir %s left behind", together, e.Name())
			}
		}
	}
}

func lineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
