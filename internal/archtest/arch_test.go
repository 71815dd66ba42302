package archtest

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "petrel"

// allowed is docs/ARCHITECTURE.md's "Allowed imports" as data: for each
// package, the Petrel packages it (and its tests) may import directly.
// An entry ending in "/*" allows every package below that folder.
var allowed = map[string][]string{
	"internal/base":          nil,
	"internal/config":        nil,
	"internal/failpoint":     nil,
	"internal/fsutil":        nil,
	"internal/ratelog":       nil,
	"internal/archtest":      nil,
	"internal/leakcheck":     nil,
	"internal/mysqlerr":      {"internal/base"},
	"internal/tcptune":       nil,
	"internal/mysqlcompress": nil,
	"internal/lenenc":        nil,
	"internal/sqlstr":        nil,
	"internal/admission":     nil,
	"internal/charsets":      nil,

	"storage/keys":  {"internal/*"},
	"storage/lock":  {"internal/*"},
	"storage":       {"internal/*", "storage/keys", "storage/lock"},
	"binlog/rowenc": {"internal/*", "storage", "storage/keys"},
	"binlog":        {"internal/*", "storage", "storage/keys", "storage/lock", "binlog/rowenc"},
	"binlog/remote": {"internal/*", "binlog", "binlog/rowenc"},
	// Clone: a donor's snapshots of storage and the log, a recipient's
	// staging and switch-in (never sqlengine: clonesql is its surface).
	"clone": {"internal/*", "storage", "binlog"},

	// A pure core: nothing but the shared types (and, in its tests, the
	// leak check).
	"semisync": {"internal/base", "internal/leakcheck"},

	// sqlengine never imports binlog or replication: node wires them.
	// (sqltest: its external tests serve an engine over the wire.)
	"sqlengine": {"internal/*", "storage", "storage/keys", "storage/lock", "sqlengine/wire", "sqlengine/rewrite", "sqlengine/collate", "sqlengine/arith", "sqlengine/subquery", "sqlengine/histogram", "sqlengine/functions", "sqlengine/sqlmode", "sqlengine/charset", "sqlengine/iters", "sqlengine/sqlerr", "sqlengine/storeval", "sqlengine/auth", "sqlengine/lookup", "sqlengine/planstats", "sqlengine/explain", "sqlengine/storedfn", "sqlengine/sysschema", "sqlengine/stmtstat", "sqlengine/tablelocks", "sqlengine/sqltest"},
	// Rewrites that need no table: GMS's plan nodes and parse trees alone.
	"sqlengine/rewrite": {"internal/*", "sqlengine/sqlmode"},
	// MySQL's string semantics: collation keys, sorts, LIKE (PAD SPACE
	// as storage/keys encodes it).
	"sqlengine/collate": {"internal/*", "storage/keys"},
	// MySQL's arithmetic and conversions over GMS's expressions.
	"sqlengine/arith": {"internal/*", "sqlengine/sqlmode"},
	// Correlated subqueries remembered and grouped.
	"sqlengine/subquery": {"internal/*", "sqlengine/rewrite"},
	// Index statistics from a sample of keys: a pure core.
	"sqlengine/histogram": {"internal/*"},
	// SQL functions registered over GMS's.
	"sqlengine/functions": {"internal/*", "sqlengine/arith"},
	// Statement text under sql_mode, before it is parsed.
	"sqlengine/sqlmode": {"internal/*"},
	// Results in the client's character set.
	"sqlengine/charset": {"internal/*"},
	// Row iterators built in place of GMS's (GROUP BY, hash lookups).
	"sqlengine/iters": {"internal/*", "sqlengine/collate"},
	// The SQL layer's half of the one error mapping (GMS's kinds).
	"sqlengine/sqlerr": {"internal/*"},
	// Values stored as MySQL stores them (sql_mode, warnings).
	"sqlengine/storeval": {"internal/*", "storage/keys", "sqlengine/arith", "sqlengine/sqlerr", "sqlengine/sqlmode"},
	// Authentication methods over vitess's handshake.
	"sqlengine/auth": {"internal/*", "sqlengine/wire"},
	// Index lookups for correlated subqueries and anti joins, over
	// interfaces the backend's tables implement.
	"sqlengine/lookup": {"internal/*"},
	// The planner's statistics and estimates, over the backend's tables
	// through interfaces (planstats.Table, Index).
	"sqlengine/planstats": {"internal/*", "storage", "sqlengine/histogram", "sqlengine/lookup", "sqlengine/rewrite"},
	// EXPLAIN's outputs from GMS's plan and planstats' estimates.
	"sqlengine/explain": {"internal/*", "sqlengine/planstats", "sqlengine/rewrite"},
	// CREATE/DROP FUNCTION read from their text (vitess parses neither):
	// a pure core over sqlmode's tokens.
	"sqlengine/storedfn": {"internal/*", "sqlengine/sqlmode"},
	// performance_schema: tables the stages register.
	"sqlengine/sysschema": {"internal/*"},
	// Statements counted by kind (Questions, Com_*): a pure core.
	"sqlengine/stmtstat":   {"internal/*"},
	"sqlengine/tablelocks": {"internal/*"},
	// The wire layer under vitess: no SQL, no sessions (sqlengine gives it
	// settings, accounts and its command state through interfaces).
	"sqlengine/wire": {"internal/*"},
	// The executors: the backend's Executor, through its executor API.
	"sqlengine/fastpath":                   {"internal/*", "storage", "storage/keys", "sqlengine", "sqlengine/sqlmode"},
	"sqlengine/enginetest":                 {"internal/*", "storage", "storage/keys", "sqlengine"},
	"sqlengine/sqltest":                    {"sqlengine"},
	"sqlengine/enginetest/cmd/enginecount": {"sqlengine/enginetest"},

	// Replication never imports sqlengine: node adapts.
	"repl/source":  {"internal/*", "binlog", "binlog/rowenc", "storage", "semisync"},
	"repl/replica": {"internal/*", "binlog", "binlog/rowenc", "storage", "semisync"},
	// The relay role's sink: received transactions into the relay's own
	// binlog (the receiver in repl/replica calls it through an interface).
	"repl/relay": {"internal/*", "binlog"},

	// Each stage's SQL surface: statements, variables and status
	// variables, registered through sqlengine's extension points, in a
	// package under surface/ (the stage itself never imports sqlengine).
	// Typed settings behind system variables, pushed to their owners:
	// GMS's registry alone, so every surface and node may use it.
	"surface/sysvar":    nil,
	"surface/binlogsql": {"internal/*", "binlog", "storage", "sqlengine", "surface/sysvar"},
	// The stages below them too: their tests build a real engine (and
	// replica and source) over storage and a binary log.
	"surface/semisyncsql": {"internal/*", "semisync", "storage", "sqlengine", "sqlengine/sqltest", "surface/sysvar"},
	"surface/replsql":     {"internal/*", "repl/replica", "repl/source", "binlog", "storage", "sqlengine", "sqlengine/sqltest", "surface/sysvar"},
	"surface/clonesql":    {"internal/*", "clone", "binlog", "storage", "sqlengine", "sqlengine/wire", "sqlengine/sqltest", "surface/sysvar"},

	"node": {"internal/*", "storage", "storage/keys", "binlog", "binlog/rowenc", "semisync", "sqlengine", "sqlengine/wire", "sqlengine/fastpath", "repl/source", "repl/replica", "repl/relay",
		"surface/binlogsql", "surface/semisyncsql", "surface/replsql", "clone", "surface/clonesql", "surface/sysvar"},

	// The failover detector and promotion policy: a pure core.
	"failover": {"internal/base"},
	// cluster runs petrel processes: no server package.
	"cluster": {"internal/*", "failover"},
	// proxy is a client of its backends, as cluster: no server package.
	"proxy":      {"internal/*"},
	"cmd/petrel": {"internal/*", "node", "cluster", "proxy", "binlog", "binlog/remote", "clone"},

	// lab starts processes and builds cmd/petrel; it imports none of it.
	"lab": nil,
	// End-to-end tests drive real processes through lab; they may use the
	// pure value types (GTID sets, the semi-sync ack format), never a
	// server stage.
	"e2e": {"lab", "internal/base", "semisync"},
	// The experiment runner (petrel-lab): lab's harness and nothing of
	// the server; its binary is separate so the server stays lean.
	"labrun":         {"lab", "internal/leakcheck"},
	"cmd/petrel-lab": {"labrun", "lab", "internal/leakcheck"},
}

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// listPackages runs `go list -json ./...` at the module root.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(out)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// local strips the module prefix; ok is false for other modules.
func local(path string) (string, bool) {
	if !strings.HasPrefix(path, module+"/") {
		return "", false
	}
	return strings.TrimPrefix(path, module+"/"), true
}

func permits(rules []string, imp string) bool {
	for _, r := range rules {
		if r == imp || (strings.HasSuffix(r, "/*") && strings.HasPrefix(imp, strings.TrimSuffix(r, "*"))) {
			return true
		}
	}
	return false
}

// violations checks every package against the rules and reports each
// import they do not allow, and each package they do not place.
func violations(pkgs []pkg, rules map[string][]string) []string {
	var bad []string
	for _, p := range pkgs {
		name, ok := local(p.ImportPath)
		if !ok {
			continue
		}
		r, placed := rules[name]
		if !placed {
			bad = append(bad, name+": not in the import rules (docs/ARCHITECTURE.md, internal/archtest)")
			continue
		}
		check := func(kind string, imps []string) {
			for _, i := range imps {
				imp, ok := local(i)
				if !ok || imp == name {
					continue
				}
				if !permits(r, imp) {
					bad = append(bad, name+" ("+kind+") imports "+imp)
				}
			}
		}
		check("code", p.Imports)
		check("tests", p.TestImports)
		check("external tests", p.XTestImports)
	}
	sort.Strings(bad)
	return bad
}

// TestImportRules: no package, and no package's tests, imports a stage
// the architecture does not allow, and every package has a place in it.
func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages; expected the whole module", len(pkgs))
	}
	for _, v := range violations(pkgs, allowed) {
		t.Error(v)
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		if n, ok := local(p.ImportPath); ok {
			seen[n] = true
		}
	}
	for n := range allowed {
		if !seen[n] {
			t.Errorf("the rules name %s, which no longer exists", n)
		}
	}
}

// TestImportRulesCatch: the checker itself reports what it must (a
// stage importing upward, a test doing so, an unplaced package).
func TestImportRulesCatch(t *testing.T) {
	pkgs := []pkg{
		{ImportPath: "petrel/storage", Imports: []string{"petrel/internal/base", "petrel/binlog", "fmt"}},
		{ImportPath: "petrel/sqlengine", XTestImports: []string{"petrel/node"}},
		{ImportPath: "petrel/semisync", TestImports: []string{"petrel/internal/base", "github.com/cockroachdb/datadriven"}},
		{ImportPath: "petrel/newthing"},
	}
	got := violations(pkgs, allowed)
	want := []string{
		"newthing: not in the import rules (docs/ARCHITECTURE.md, internal/archtest)",
		"sqlengine (external tests) imports node",
		"storage (code) imports binlog",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// clockStages are the packages that take time only from their injected
// base.Clock.
var clockStages = []string{"binlog", "storage", "repl", "semisync", "node"}

// TestOneClock: the stages read time through their injected base.Clock,
// never time.Now or time.Since directly, except for what the kernel or a
// context measures against the wall clock (socket deadlines, a context's
// deadline), which the line says ("Deadline" or "wall-clock").
func TestOneClock(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	checked := 0
	for _, stage := range clockStages {
		err := filepath.WalkDir(filepath.Join(root, stage), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			checked++
			for i, line := range strings.Split(string(src), "\n") {
				if !strings.Contains(line, "time.Now()") && !strings.Contains(line, "time.Since(") {
					continue
				}
				if strings.Contains(line, "Deadline") || strings.Contains(line, "wall-clock") {
					continue
				}
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d reads the wall clock; take the injected base.Clock: %s", rel, i+1, strings.TrimSpace(line))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 30 {
		t.Fatalf("checked %d files; expected the stages' sources", checked)
	}
}
