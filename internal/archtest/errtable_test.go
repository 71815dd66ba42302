package archtest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// handPicked matches a MySQL error number or SQLSTATE chosen outside the
// one error table: vitess's constructor and its ER*/SS* constants.
var handPicked = regexp.MustCompile(`mysql\.NewSQLError\(|mysql\.(ER|SS)[A-Z]`)

// handPickedLines lists the lines of src that pick an error number or
// SQLSTATE by hand (1-based).
func handPickedLines(src string) []int {
	var out []int
	for i, line := range strings.Split(src, "\n") {
		if handPicked.MatchString(line) {
			out = append(out, i+1)
		}
	}
	return out
}

// TestOneErrorTable: every MySQL error number and SQLSTATE Petrel sends
// comes from internal/mysqlerr (mysqlerr.New, Relay for one passed on as
// it came, FromCode for a class's); no other code calls vitess's
// mysql.NewSQLError or names its ER*/SS* constants.
func TestOneErrorTable(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	table := filepath.Join(root, "internal", "mysqlerr")
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == table || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		rel, _ := filepath.Rel(root, path)
		for _, n := range handPickedLines(string(src)) {
			t.Errorf("%s:%d picks a MySQL error number or SQLSTATE by hand; use internal/mysqlerr (New, Relay, FromCode)", rel, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 200 {
		t.Fatalf("checked %d files; expected the module's sources", checked)
	}
}

// TestOneErrorTableCatches: the checker reports vitess's constructor and
// constants, and passes the table's own calls.
func TestOneErrorTableCatches(t *testing.T) {
	src := strings.Join([]string{
		`return mysql.NewSQLError(1064, "42000", "syntax")`,
		`return mysqlerr.New(mysqlerr.ErParse, "syntax")`,
		`if se.Num == mysql.ERLockDeadlock {`,
		`state = mysql.SSUnknownSQLState`,
		`b = append(b, mysql.ErrPacket)`,
	}, "\n")
	got := handPickedLines(src)
	want := []int{1, 3, 4}
	if len(got) != len(want) {
		t.Fatalf("lines %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lines %v, want %v", got, want)
		}
	}
}
