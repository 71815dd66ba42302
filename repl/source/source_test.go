package source

import (
	"strings"
	"testing"

	"petrel/internal/base"
)

func set(t *testing.T, s string) *base.GTIDSet {
	t.Helper()
	g, err := base.ParseGTIDSet(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPlanStart: where dumps begin, and which requests are refused.
func TestPlanStart(t *testing.T) {
	const u = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
	const other = "4e11fa47-71ca-11e1-9e33-c80aa9429562"
	own, _ := base.ParseSID(u)
	files := []fileHeader{
		{name: "binlog.000002", prev: set(t, u+":1-10")},
		{name: "binlog.000003", prev: set(t, u+":1-20")},
		{name: "binlog.000004", prev: set(t, u+":1-30")},
	}
	executed, purged := set(t, u+":1-35"), set(t, u+":1-10")
	cases := []struct {
		req      Request
		file     string
		pos      uint64
		errMatch string
	}{
		{req: Request{AutoPosition: true, GTIDs: set(t, u+":1-10")}, file: "binlog.000002", pos: 4},
		{req: Request{AutoPosition: true, GTIDs: set(t, u+":1-25")}, file: "binlog.000003", pos: 4},
		{req: Request{AutoPosition: true, GTIDs: set(t, u+":1-35")}, file: "binlog.000004", pos: 4},
		{req: Request{AutoPosition: true, GTIDs: set(t, u+":1-35,"+other+":1-5")}, file: "binlog.000004", pos: 4},
		{req: Request{AutoPosition: true, GTIDs: set(t, u+":1-5")}, errMatch: "purged required binary logs"},
		{req: Request{AutoPosition: true, GTIDs: base.NewGTIDSet()}, errMatch: "purged"},
		{req: Request{AutoPosition: true, GTIDs: set(t, u+":1-40")}, errMatch: "more GTIDs than the source"},
		{req: Request{File: "binlog.000003", Pos: 120}, file: "binlog.000003", pos: 120},
		{req: Request{File: "binlog.000003", Pos: 0}, file: "binlog.000003", pos: 4},
		{req: Request{File: ""}, file: "binlog.000002", pos: 4},
		{req: Request{File: "binlog.000001", Pos: 4}, errMatch: "Could not find first log file"},
	}
	for i, c := range cases {
		sp, err := planStart(files, executed, purged, c.req, own)
		if c.errMatch != "" {
			if err == nil || !strings.Contains(err.Error(), c.errMatch) || !IsFatal(err) {
				t.Errorf("case %d: err %v, want fatal %q", i, err, c.errMatch)
			}
			continue
		}
		if err != nil || sp.file != c.file || sp.pos != c.pos {
			t.Errorf("case %d: got %s:%d %v, want %s:%d", i, sp.file, sp.pos, err, c.file, c.pos)
		}
		if c.req.AutoPosition && !sp.skip.Equal(c.req.GTIDs) {
			t.Errorf("case %d: skip set %s", i, sp.skip)
		}
	}
	if _, err := planStart(nil, executed, purged, Request{}, own); err == nil {
		t.Error("no files: want an error")
	}
}
