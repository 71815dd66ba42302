package labrun

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the report golden files")

// fixtureRun is a run with every kind of chart, two systems and two
// rounds, and a failed check: the report writers' whole input.
func fixtureRun() Run {
	return Run{
		ID: "lab-20260101-000000", Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Elapsed: 95 * time.Second,
		Mode: "tiny", Command: "petrel-lab run all --tiny",
		Host:     Host{Hostname: "h", Cores: 2, Kernel: "6.1", Go: "go1.26", FsyncMicros: 812.5, LoopbackRTTMicros: 21.25, Root: true},
		Versions: map[string]string{"petrel": "8.0.40-petrel", "mariadb": "10.11.6-MariaDB"},
		Notes:    []string{"a note <with> markup & pipes | here"},
		Complete: false,
		Experiments: []ExperimentResult{{
			Name: "packet-loss", Description: "lag under loss", Systems: []string{"petrel", "mariadb"}, Rounds: 2,
			Commands: []Command{{System: "petrel", What: "primary", Text: "petrel server --port 1"}},
			Charts: []Chart{
				{ID: "lag", Title: "Lag", Kind: Lines, XLabel: "time (s)", YLabel: "lag (s)",
					Shade: []Span{{From: 1, To: 2, Label: "5% loss"}},
					Series: []Series{
						{System: "petrel", Round: 1, Points: []Point{{0, 0}, {1, 0.2}, {2, 0.4}, {3, 0}}},
						{System: "mariadb", Round: 1, Points: []Point{{0, 0}, {1, 1.5}, {2, 3.25}, {3, 0.5}}},
						{System: "mariadb", Round: 2, Points: []Point{{0, 0}, {1, 1.25}, {2, 3}, {3, 0.25}}},
						{System: "petrel", Round: 2, Points: []Point{{0, 0}, {1, 0.1}, {2, 0.5}, {3, 0}}},
					}},
				{ID: "tps", Title: "TPS", Kind: Lines, LogX: true, XLabel: "clients", YLabel: "commits/s",
					Series: []Series{
						{System: "petrel", Round: 1, Points: []Point{{1, 900}, {10, 5000}, {100, 12000}, {1000, 11000}}},
						{System: "mariadb", Round: 1, Points: []Point{{1, 700}, {10, 4000}, {100, 9000}, {1000, 6000}}},
					}},
				{ID: "rates", Title: "Rates", Kind: Bars, YLabel: "txn/s", Categories: []string{"production", "apply"},
					Series: []Series{
						{System: "petrel", Round: 1, Points: []Point{{0, 2000}, {1, 40000}}},
						{System: "petrel", Round: 2, Points: []Point{{0, 2100}, {1, 38000}}},
						{System: "mariadb", Round: 1, Points: []Point{{0, 2200}, {1, 350}}},
					}},
				{ID: "empty", Title: "Nothing", Kind: Lines},
			},
			Metrics: []Metric{
				{Name: "max lag", Unit: "s", System: "petrel", Values: []float64{0.4, 0.5}, LowerIsBetter: true},
				{Name: "max lag", Unit: "s", System: "mariadb", Values: []float64{3.25, 3}, LowerIsBetter: true},
				{Name: "apply rate", Unit: "txn/s", System: "petrel", Values: []float64{40000.4, 38000.6}},
				{Name: "tiny", Unit: "ratio", System: "mariadb", Values: []float64{0.00123}},
			},
			Checks: []Check{
				{System: "petrel", Round: 1, What: "replica1 rows = primary rows", OK: true, Detail: "1 tables, 10 rows"},
				{System: "mariadb", Round: 1, What: "replica1 rows = primary rows", OK: false, Detail: "differ: t"},
			},
			Elapsed: 12 * time.Second,
			Err:     "mariadb round 2: boom",
		}},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update after checking the change):\n%s", name, firstDiff(string(got), string(want)))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + al[i] + "\n want " + bl[i]
		}
	}
	return "lengths differ"
}

// TestReportGolden pins the writers' output for a fixed run: they are
// pure functions of it.
func TestReportGolden(t *testing.T) {
	run := fixtureRun()
	golden(t, "report.golden.md", RenderMarkdown(run))
	golden(t, "report.golden.html", RenderHTML(run))
	golden(t, "samples.golden.csv", RenderSamplesCSV(run))
	golden(t, "metrics.golden.csv", RenderMetricsCSV(run))
	if !bytes.Equal(RenderHTML(run), RenderHTML(fixtureRun())) {
		t.Error("RenderHTML is not deterministic")
	}
}

// TestReportIncomplete: an incomplete run says so at the top of the
// Markdown and the HTML; a complete one does not.
func TestReportIncomplete(t *testing.T) {
	run := fixtureRun()
	if md := string(RenderMarkdown(run)); !strings.Contains(strings.SplitN(md, "\n\n", 3)[1], "INCOMPLETE") {
		t.Errorf("incomplete run's Markdown status line: %q", strings.SplitN(md, "\n\n", 3)[1])
	}
	if h := string(RenderHTML(run)); !strings.Contains(h, `<p id="status" class="status-incomplete">Status: INCOMPLETE`) {
		t.Error("incomplete run's HTML has no INCOMPLETE status")
	}
	run.Complete = true
	if h := string(RenderHTML(run)) + string(RenderMarkdown(run)); strings.Contains(h, "INCOMPLETE") {
		t.Error("complete run's report says INCOMPLETE")
	}
}

// TestReportHTMLSelfContained: no script, no external resource.
func TestReportHTMLSelfContained(t *testing.T) {
	h := string(RenderHTML(fixtureRun()))
	for _, bad := range []string{"<script", "http://", "https://", "src=", "<link"} {
		if strings.Contains(strings.ReplaceAll(h, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("report.html contains %q", bad)
		}
	}
	if n := strings.Count(h, "<svg "); n != 4 {
		t.Errorf("%d charts, want 4", n)
	}
	if !strings.Contains(h, "&lt;with&gt; markup &amp; pipes") {
		t.Error("a note is not escaped")
	}
}

// CheckReport checks a report directory the way the tiny-run test and a
// reader would: every chart has samples for each system, the CSV files
// parse, and every figure in the Markdown tables equals the metrics CSV's
// value printed by fmtNum (mean, min, max and each round).
func CheckReport(run Run, md, samples, metrics []byte) []string {
	var problems []string
	for _, e := range run.Experiments {
		for _, c := range e.Charts {
			for _, sys := range e.Systems {
				n := 0
				for _, s := range c.Series {
					if s.System == sys {
						n += len(s.Points)
					}
				}
				if n == 0 {
					problems = append(problems, e.Name+"/"+c.ID+": no samples for "+sys)
				}
			}
		}
	}
	srows, err := csv.NewReader(bytes.NewReader(samples)).ReadAll()
	if err != nil {
		return append(problems, "samples.csv: "+err.Error())
	}
	nSamples := 0
	for _, e := range run.Experiments {
		for _, c := range e.Charts {
			for _, s := range c.Series {
				nSamples += len(s.Points)
			}
		}
	}
	if len(srows)-1 != nSamples {
		problems = append(problems, "samples.csv has "+strconv.Itoa(len(srows)-1)+" rows, run "+strconv.Itoa(nSamples)+" samples")
	}
	for _, r := range srows[1:] {
		for _, f := range r[4:] {
			if _, err := strconv.ParseFloat(f, 64); err != nil {
				problems = append(problems, "samples.csv: "+err.Error())
			}
		}
	}
	mrows, err := csv.NewReader(bytes.NewReader(metrics)).ReadAll()
	if err != nil {
		return append(problems, "metrics.csv: "+err.Error())
	}
	values := map[string][]float64{} // experiment|metric|system -> rounds
	for _, r := range mrows[1:] {
		v, err := strconv.ParseFloat(r[5], 64)
		if err != nil {
			problems = append(problems, "metrics.csv: "+err.Error())
			continue
		}
		k := r[0] + "|" + r[1] + "|" + r[3]
		values[k] = append(values[k], v)
	}
	// Walk the Markdown: "## experiment" headings, then table rows.
	exp := ""
	rowRE := regexp.MustCompile(`^\| (.+) \|$`)
	seen := 0
	for _, line := range strings.Split(string(md), "\n") {
		if name, ok := strings.CutPrefix(line, "## "); ok {
			exp = name
			continue
		}
		m := rowRE.FindStringSubmatch(line)
		if m == nil || exp == "" {
			continue
		}
		cells := strings.Split(m[1], " | ")
		if len(cells) != len(metricHeader) || cells[0] == "metric" {
			continue
		}
		vals, ok := values[exp+"|"+cells[0]+"|"+cells[2]]
		if !ok {
			problems = append(problems, "Markdown row "+line+" is not in metrics.csv")
			continue
		}
		seen++
		mean, lo, hi := meanMinMax(vals)
		want := []string{fmtNum(mean), fmtNum(lo), fmtNum(hi)}
		for i, w := range want {
			if cells[3+i] != w {
				problems = append(problems, "Markdown "+exp+"/"+cells[0]+"/"+cells[2]+": "+metricHeader[3+i]+" "+cells[3+i]+", CSV gives "+w)
			}
		}
		rounds := strings.Split(cells[7], " / ")
		if len(rounds) != len(vals) {
			problems = append(problems, "Markdown "+exp+"/"+cells[0]+": "+strconv.Itoa(len(rounds))+" rounds, CSV "+strconv.Itoa(len(vals)))
			continue
		}
		for i, r := range rounds {
			if r != fmtNum(vals[i]) {
				problems = append(problems, "Markdown "+exp+"/"+cells[0]+" round "+strconv.Itoa(i+1)+": "+r+", CSV gives "+fmtNum(vals[i]))
			}
		}
	}
	if seen != len(values) {
		problems = append(problems, "Markdown shows "+strconv.Itoa(seen)+" metric rows, metrics.csv has "+strconv.Itoa(len(values)))
	}
	return problems
}

// TestCheckReportFixture: the checker accepts the fixture's report and
// catches a Markdown figure that differs from the CSV, and a chart with no
// samples for a system.
func TestCheckReportFixture(t *testing.T) {
	run := fixtureRun()
	run.Experiments[0].Charts = run.Experiments[0].Charts[:3]
	md, s, m := RenderMarkdown(run), RenderSamplesCSV(run), RenderMetricsCSV(run)
	if p := CheckReport(run, md, s, m); len(p) > 0 {
		t.Fatalf("fixture report: %v", p)
	}
	bad := bytes.Replace(md, []byte("| 3.12 |"), []byte("| 3.13 |"), 1)
	if bytes.Equal(bad, md) {
		t.Fatal("fixture Markdown has no mean 3.12 to alter")
	}
	if p := CheckReport(run, bad, s, m); len(p) != 1 || !strings.Contains(p[0], "mean 3.13, CSV gives 3.12") {
		t.Errorf("altered Markdown: problems %v", p)
	}
	run.Experiments[0].Charts[2].Series = run.Experiments[0].Charts[2].Series[:2]
	if p := CheckReport(run, RenderMarkdown(run), RenderSamplesCSV(run), m); len(p) != 1 || p[0] != "packet-loss/rates: no samples for mariadb" {
		t.Errorf("chart without mariadb: problems %v", p)
	}
}
