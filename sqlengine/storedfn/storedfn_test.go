package storedfn

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestStatements replays testdata: each case gives a statement as its
// input and prints what is read from it.
//
//	parse       a CREATE FUNCTION: its parts, then its hidden procedure
//	drop        a DROP FUNCTION
//	end         where the first statement of a text ends (the rest after |)
//	alter       an ALTER PROCEDURE or FUNCTION, and a CREATE it changes
//	is          IsCreate and IsDrop
func TestStatements(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			in := td.Input
			switch td.Cmd {
			case "parse":
				d, err := Parse(in)
				if err != nil {
					return fmt.Sprintf("error %T: %v\n", err, err)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "name=%s db=%s definer=%s ifnotexists=%v\n", d.Name, d.Database, d.Definer, d.IfNotExists)
				for _, p := range d.Params {
					fmt.Fprintf(&b, "param %s: %s\n", p.Name, p.Type)
				}
				fmt.Fprintf(&b, "returns %s\n", d.Returns)
				fmt.Fprintf(&b, "deterministic=%v access=%s security=%s comment=%q\n", d.Deterministic, d.DataAccess, d.Security, d.Comment)
				proc, err := d.Procedure()
				if err != nil {
					fmt.Fprintf(&b, "procedure error: %v\n", err)
				} else {
					b.WriteString(proc + "\n")
				}
				return b.String()
			case "drop":
				d, ok := ParseDrop(in)
				return fmt.Sprintf("ok=%v ifexists=%v db=%s name=%s\n", ok, d.IfExists, d.Database, d.Name)
			case "end":
				n := StatementEnd(in)
				return in[:n] + "\n|" + in[n:] + "\n"
			case "alter":
				// The ALTER, then the statement it changes after a line "|".
				stmt, create, _ := strings.Cut(in, "\n|\n")
				a, err := ParseAlter(stmt)
				if err != nil {
					return fmt.Sprintf("error %T: %v\n", err, err)
				}
				cm := "<unchanged>"
				if a.Comment != nil {
					cm = fmt.Sprintf("%q", *a.Comment)
				}
				out := fmt.Sprintf("function=%v db=%s name=%s comment=%s access=%s security=%s\n", a.Function, a.Database, a.Name, cm, a.DataAccess, a.Security)
				if create != "" {
					c, err := a.Apply(create)
					if err != nil {
						return out + fmt.Sprintf("apply error %T: %v\n", err, err)
					}
					out += c + "\n"
				}
				return out
			case "is":
				return fmt.Sprintf("create=%v drop=%v\n", IsCreate(in), IsDrop(in))
			}
			t.Fatalf("unknown command %s", td.Cmd)
			return ""
		})
	})
}
