package archtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fencedBlock returns the lines of the first ``` block after the line
// heading (a "## " title) in doc.
func fencedBlock(doc, heading string) ([]string, error) {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return nil, fmt.Errorf("no section %q", heading)
	}
	rest := doc[i+len(heading)+2:]
	if next := strings.Index(rest, "\n## "); next >= 0 {
		rest = rest[:next]
	}
	start := strings.Index(rest, "```\n")
	if start < 0 {
		return nil, fmt.Errorf("section %q has no ``` block", heading)
	}
	rest = rest[start+4:]
	end := strings.Index(rest, "```")
	if end < 0 {
		return nil, fmt.Errorf("section %q: unterminated ``` block", heading)
	}
	var lines []string
	for _, l := range strings.Split(rest[:end], "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// docPackages reads the package list: the first word of each line.
func docPackages(doc string) ([]string, error) {
	lines, err := fencedBlock(doc, "## Packages, in pipeline order")
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, l := range lines {
		pkgs = append(pkgs, strings.Fields(l)[0])
	}
	return pkgs, nil
}

// docRules reads the "Allowed imports" block: lines of the form
// "a, b <- x, y  -- why", "nothing" for no import.
func docRules(doc string) (map[string][]string, error) {
	lines, err := fencedBlock(doc, "## Allowed imports")
	if err != nil {
		return nil, err
	}
	rules := map[string][]string{}
	for _, l := range lines {
		if i := strings.Index(l, " -- "); i >= 0 {
			l = l[:i]
		}
		lhs, rhs, ok := strings.Cut(l, "<-")
		if !ok {
			return nil, fmt.Errorf("rule line without <-: %q", l)
		}
		var imps []string
		if r := strings.TrimSpace(rhs); r != "nothing" {
			for _, imp := range strings.Split(r, ",") {
				imps = append(imps, strings.TrimSpace(imp))
			}
		}
		for _, p := range strings.Split(lhs, ",") {
			p = strings.TrimSpace(p)
			if _, dup := rules[p]; dup {
				return nil, fmt.Errorf("%s placed twice", p)
			}
			rules[p] = imps
		}
	}
	return rules, nil
}

// ruleDiffs lists where two rule tables differ, one line per package.
func ruleDiffs(doc, test map[string][]string) []string {
	var d []string
	norm := func(s []string) string {
		s = append([]string(nil), s...)
		sort.Strings(s)
		return strings.Join(s, ", ")
	}
	for p, imps := range test {
		di, ok := doc[p]
		switch {
		case !ok:
			d = append(d, p+": in the test's table, not in the doc")
		case norm(di) != norm(imps):
			d = append(d, fmt.Sprintf("%s: the doc allows [%s], the test [%s]", p, norm(di), norm(imps)))
		}
	}
	for p := range doc {
		if _, ok := test[p]; !ok {
			d = append(d, p+": in the doc, not in the test's table")
		}
	}
	sort.Strings(d)
	return d
}

// TestArchitectureDocMatchesRules: docs/ARCHITECTURE.md's package list
// names exactly the packages the import rules place, and its "Allowed
// imports" block says what the allowed table says.
func TestArchitectureDocMatchesRules(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(strings.TrimSpace(string(out))), "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	pkgs, err := docPackages(doc)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string][]string{}
	for _, p := range pkgs {
		if _, dup := listed[p]; dup {
			t.Errorf("the package list names %s twice", p)
		}
		listed[p] = allowed[p]
	}
	for _, d := range ruleDiffs(listed, allowed) {
		t.Errorf("package list: %s", d) // only presence can differ here
	}
	rules, err := docRules(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ruleDiffs(rules, allowed) {
		t.Errorf("allowed imports: %s", d)
	}
}

// TestDocRulesCatch: the doc's reader and the comparison report a rule
// the doc lacks, one it adds, and a differing import list.
func TestDocRulesCatch(t *testing.T) {
	doc := "x\n## Allowed imports\n\ntext\n\n```\na, b <- nothing   -- why\nc <- a, internal/*\nd <- a\n```\n\n## Next\n"
	rules, err := docRules(doc)
	if err != nil {
		t.Fatal(err)
	}
	got := ruleDiffs(rules, map[string][]string{"a": nil, "b": nil, "c": {"internal/*"}, "e": nil})
	want := []string{
		"c: the doc allows [a, internal/*], the test [internal/*]",
		"d: in the doc, not in the test's table",
		"e: in the test's table, not in the doc",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diffs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
