package enginetest

import (
	"bufio"
	"os"
	"regexp"
	"sort"
	"strings"
)

// KnownFailures is the list of GMS engine tests known to fail on Petrel,
// by test name relative to TestEngineSmoke ("TestQueries/SELECT_version()").
// TestMain turns it into a -test.skip pattern, so TestEngineSmoke skips
// exactly those tests, passes today, and fails on any regression;
// cmd/enginecount -update-smoke regenerates it.
type KnownFailures struct {
	names []string
}

// LoadKnownFailures reads a list written by WriteKnownFailures: one test
// name a line, '#' comments. A missing file is an empty list.
func LoadKnownFailures(path string) (*KnownFailures, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return &KnownFailures{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		names = append(names, sc.Text())
	}
	return NewKnownFailures(names), sc.Err()
}

// NewKnownFailures builds a list from test names.
func NewKnownFailures(names []string) *KnownFailures {
	k := &KnownFailures{}
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || strings.HasPrefix(n, "#") || seen[n] {
			continue
		}
		seen[n] = true
		k.names = append(k.names, n)
	}
	sort.Strings(k.names)
	return k
}

// Names returns the sorted test names.
func (k *KnownFailures) Names() []string { return k.names }

// SkipPattern is a -test.skip pattern matching exactly the listed tests
// under the test named top, or "" for an empty list. Test names are split
// on '/' as the testing package splits them (a query holding '/' spans
// several elements on both sides) and each element is anchored. Tests
// sharing all but their last element share one alternative, which keeps
// the pattern (matched against every test name) short.
func (k *KnownFailures) SkipPattern(top string) string {
	groups := map[string][]string{}
	var order []string
	for _, n := range k.names {
		parts := strings.Split(top+"/"+n, "/")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		last := len(parts) - 1
		var prefix []string
		for _, p := range parts[:last] {
			prefix = append(prefix, "^"+p+"$")
		}
		key := strings.Join(prefix, "/")
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], parts[last])
	}
	var pats []string
	for _, key := range order {
		pats = append(pats, key+"/^(?:"+strings.Join(groups[key], "|")+")$")
	}
	return strings.Join(pats, "|")
}

// WriteKnownFailures writes names, sorted, one per line, under a header.
func WriteKnownFailures(path string, names []string) error {
	var sb strings.Builder
	sb.WriteString("# GMS engine tests known to fail on Petrel (names relative to TestEngineSmoke).\n")
	sb.WriteString("# TestEngineSmoke skips exactly these. Regenerate after a backend fix with:\n")
	sb.WriteString("#   go run ./sqlengine/enginetest/cmd/enginecount -update-smoke\n")
	for _, n := range NewKnownFailures(names).Names() {
		sb.WriteString(n + "\n")
	}
	return os.WriteFile(path, []byte(sb.String()), 0o644)
}
