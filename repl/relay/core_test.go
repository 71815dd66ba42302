package relay

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"petrel/internal/base"
)

const uuidA = "3e11fa47-71ca-11e1-9e33-c80aa9429562"

// TestCores replays the scenario files in testdata against the relay's
// decisions. Commands:
//
//	follows have=SET gtid=GNO          may GTID uuidA:GNO be written after SET?
//	source known=UUID got=UUID         may a source with server_uuid got feed it?
//	clock reset                        a new clockMap
//	clock source-file                  the source started a file (or a new dump)
//	clock src=LC/SN file=F seq=N        the relay last_committed of a transaction
//
// A refusal prints its error number and message.
func TestCores(t *testing.T) {
	var c clockMap
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "follows":
				var have string
				var gno int64
				td.ScanArgs(t, "have", &have)
				td.ScanArgs(t, "gtid", &gno)
				set, err := base.ParseGTIDSet(strings.ReplaceAll(have, "A", uuidA))
				if err != nil {
					t.Fatal(err)
				}
				sid, _ := base.ParseSID(uuidA)
				return verdict(CheckFollows(set, base.GTID{SID: sid, GNO: gno}))
			case "source":
				var known, got string
				td.MaybeScanArgs(t, "known", &known)
				td.ScanArgs(t, "got", &got)
				return verdict(CheckSource(known, got))
			case "clock":
				switch {
				case td.HasArg("reset"):
					c = clockMap{}
					return "ok"
				case td.HasArg("source-file"):
					c.sourceFile()
					return "ok"
				}
				var src, file string
				var seq int64
				td.ScanArgs(t, "src", &src)
				td.ScanArgs(t, "file", &file)
				td.ScanArgs(t, "seq", &seq)
				var lc, sn int64
				if _, err := fmt.Sscanf(src, "%d/%d", &lc, &sn); err != nil {
					t.Fatal(err)
				}
				return fmt.Sprintf("last_committed=%d", c.lastCommitted(lc, sn, file, seq))
			}
			t.Fatalf("unknown command %q", td.Cmd)
			return ""
		})
	})
}

func verdict(err error) string {
	if err == nil {
		return "ok"
	}
	var e *Error
	if !errors.As(err, &e) {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("refused %d: %s", e.Errno(), strings.ReplaceAll(e.Msg, uuidA, "A"))
}
