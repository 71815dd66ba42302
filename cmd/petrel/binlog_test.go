package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestSplitAttached(t *testing.T) {
	got := splitAttached([]string{"-uroot", "-pse=cret", "-P3307", "-h", "host", "--password=x", "-v", "-R", "binlog.000001"})
	want := []string{"-u=root", "-p=se=cret", "-P=3307", "-h", "host", "--password=x", "-v", "-R", "binlog.000001"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("splitAttached: %q, want %q", got, want)
	}
}

// Remote-only options without --read-from-remote-server, and a remote
// read without exactly one file, are usage errors (status 2).
func TestBinlogUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--stop-never", "binlog.000001"}, "-stop-never needs --read-from-remote-server"},
		{[]string{"--raw", "binlog.000001"}, "-raw needs --read-from-remote-server"},
		{[]string{"-R", "-P", "1"}, "name the one file"},
		{[]string{"-R", "binlog.000001", "binlog.000002"}, "name the one file"},
		{[]string{}, "usage: petrel binlog"},
	} {
		var out, errb bytes.Buffer
		if code := runBinlog(tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("petrel binlog %q: status %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}
