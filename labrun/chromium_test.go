package labrun

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The browser check: the report opened in headless Chromium (Debian's
// chromium, installed by scripts/deps.sh) with a probe script appended to
// a copy of it, the DOM dumped, and the probe's verdict read back.

// browserProbe measures every chart as the browser laid it out.
const browserProbe = `<script>
(function () {
  var r = {charts: 0, emptyCharts: [], marks: 0, flatMarks: [], resources: 0};
  try {
    r.resources = performance.getEntriesByType('resource').length;
    document.querySelectorAll('svg.chart').forEach(function (svg) {
      r.charts++;
      var marks = svg.querySelectorAll('path.series, path.bar');
      if (marks.length === 0) r.emptyCharts.push(svg.id);
      marks.forEach(function (p) {
        r.marks++;
        var b = p.getBBox();
        if (!(p.getAttribute('d') || '').trim() || (b.width === 0 && b.height === 0)) r.flatMarks.push(svg.id);
      });
    });
  } catch (e) { r.error = String(e); }
  var pre = document.createElement('pre');
  pre.id = 'labprobe';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
})();
</script>`

type probeResult struct {
	Charts      int      `json:"charts"`
	EmptyCharts []string `json:"emptyCharts"`
	Marks       int      `json:"marks"`
	FlatMarks   []string `json:"flatMarks"`
	Resources   int      `json:"resources"`
	Error       string   `json:"error"`
}

// renderInChromium opens html in headless Chromium and returns the probe's
// result and Chromium's console messages.
func renderInChromium(t *testing.T, html []byte) (probeResult, string) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found (Debian package chromium; run scripts/deps.sh): %v", err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	withProbe := strings.Replace(string(html), "</body>", browserProbe+"</body>", 1)
	if err := os.WriteFile(page, []byte(withProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0",
		"--virtual-time-budget=2000", "--dump-dom", "file://"+page)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`(?s)<pre id="labprobe">(.*?)</pre>`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the probe left no result in the dumped DOM (%d bytes); stderr:\n%s", len(out), stderr.String())
	}
	var r probeResult
	if err := json.Unmarshal([]byte(strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(string(m[1]))), &r); err != nil {
		t.Fatalf("probe result %q: %v", m[1], err)
	}
	var console []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			console = append(console, line)
		}
	}
	return r, strings.Join(console, "\n")
}

// checkRendered fails unless every one of wantCharts charts drew at least
// one non-degenerate mark, nothing was fetched and nothing was logged to
// the console.
func checkRendered(t *testing.T, html []byte, wantCharts int) {
	t.Helper()
	r, console := renderInChromium(t, html)
	if r.Error != "" {
		t.Errorf("probe error: %s", r.Error)
	}
	if r.Charts != wantCharts {
		t.Errorf("browser laid out %d charts, want %d", r.Charts, wantCharts)
	}
	if len(r.EmptyCharts) > 0 {
		t.Errorf("charts without a mark: %v", r.EmptyCharts)
	}
	if len(r.FlatMarks) > 0 {
		t.Errorf("marks with an empty path or zero-size box in %v", r.FlatMarks)
	}
	if r.Marks == 0 {
		t.Error("no marks at all")
	}
	if r.Resources != 0 {
		t.Errorf("the report fetched %d resources; it must be self-contained", r.Resources)
	}
	if console != "" {
		t.Errorf("console messages:\n%s", console)
	}
}

// TestReportRendersInChromium opens the fixture's report in a real
// browser: its three charts with samples draw paths with a real extent.
func TestReportRendersInChromium(t *testing.T) {
	run := fixtureRun()
	run.Experiments[0].Charts = run.Experiments[0].Charts[:3] // without the empty one
	checkRendered(t, RenderHTML(run), 3)
	// And the probe does see an empty chart.
	run = fixtureRun()
	r, _ := renderInChromium(t, RenderHTML(run))
	if len(r.EmptyCharts) != 1 || r.EmptyCharts[0] != "chart-empty" {
		t.Errorf("empty charts seen by the probe: %v, want [chart-empty]", r.EmptyCharts)
	}
}
