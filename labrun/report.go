package labrun

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Report files, written by WriteReport into the run's directory.
const (
	ReportHTML    = "report.html"
	ReportMD      = "report.md"
	ReportJSON    = "run.json"
	ReportSamples = "samples.csv"
	ReportMetrics = "metrics.csv"
)

// WriteReport writes the run's five report files into dir. Each file is
// written to a temporary name and renamed, so a crash leaves either the
// previous file or the new one, never half of one; an incomplete run
// (run.Complete false) says so at the top of every human-readable file.
func WriteReport(dir string, run Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{ReportJSON, append(js, '\n')},
		{ReportSamples, RenderSamplesCSV(run)},
		{ReportMetrics, RenderMetricsCSV(run)},
		{ReportMD, RenderMarkdown(run)},
		{ReportHTML, RenderHTML(run)},
	}
	var errs []error
	for _, f := range files {
		tmp := filepath.Join(dir, "."+f.name+".tmp")
		if err := os.WriteFile(tmp, f.data, 0o644); err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, os.Rename(tmp, filepath.Join(dir, f.name)))
	}
	return errors.Join(errs...)
}

// RenderSamplesCSV is every chart point: experiment, chart, system, round,
// x, y, with exact values.
func RenderSamplesCSV(run Run) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"experiment", "chart", "system", "round", "x", "y"})
	for _, e := range run.Experiments {
		for _, c := range e.Charts {
			for _, s := range c.Series {
				for _, p := range s.Points {
					w.Write([]string{e.Name, c.ID, s.System, strconv.Itoa(s.Round), exact(p.X), exact(p.Y)})
				}
			}
		}
	}
	w.Flush()
	return buf.Bytes()
}

// RenderMetricsCSV is every headline figure: experiment, metric, unit,
// system, round, value.
func RenderMetricsCSV(run Run) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"experiment", "metric", "unit", "system", "round", "value"})
	for _, e := range run.Experiments {
		for _, m := range e.Metrics {
			for i, v := range m.Values {
				w.Write([]string{e.Name, m.Name, m.Unit, m.System, strconv.Itoa(i + 1), exact(v)})
			}
		}
	}
	w.Flush()
	return buf.Bytes()
}

func exact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// spread is (max - min) / mean of a metric's rounds, in percent.
func spread(v []float64) float64 {
	m, lo, hi := meanMinMax(v)
	if len(v) < 2 || m == 0 {
		return 0
	}
	return (hi - lo) / m * 100
}

func statusLine(run Run) string {
	if run.Complete {
		return "complete"
	}
	return "INCOMPLETE: interrupted or failed; the figures below are partial"
}

func hostLines(run Run) [][2]string {
	h := run.Host
	rows := [][2]string{
		{"host", h.Hostname},
		{"cores", strconv.Itoa(h.Cores)},
		{"kernel", h.Kernel},
		{"go", h.Go},
		{"fsync (4 KiB, median of 50)", fmtNum(h.FsyncMicros) + " µs"},
		{"loopback TCP RTT (median of 200)", fmtNum(h.LoopbackRTTMicros) + " µs"},
		{"root (namespaces, TUN)", strconv.FormatBool(h.Root)},
	}
	for _, k := range sortedKeys(run.Versions) {
		rows = append(rows, [2]string{"version " + k, run.Versions[k]})
	}
	return rows
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// metricRow is one Markdown/HTML metrics table row.
func metricRow(m Metric) []string {
	mean, lo, hi := meanMinMax(m.Values)
	rounds := make([]string, len(m.Values))
	for i, v := range m.Values {
		rounds[i] = fmtNum(v)
	}
	return []string{m.Name, m.Unit, m.System, fmtNum(mean), fmtNum(lo), fmtNum(hi), fmtNum(spread(m.Values)) + "%", strings.Join(rounds, " / ")}
}

var metricHeader = []string{"metric", "unit", "system", "mean", "min", "max", "spread", "rounds"}

// RenderMarkdown is the report as Markdown: the same tables as the HTML,
// charts replaced by a pointer to report.html and samples.csv.
func RenderMarkdown(run Run) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Petrel lab run %s\n\n", run.ID)
	fmt.Fprintf(&b, "Status: **%s**. Mode: %s. Started %s, took %s.\n\n", statusLine(run), run.Mode,
		run.Started.UTC().Format(time.RFC3339), run.Elapsed.Round(time.Second))
	fmt.Fprintf(&b, "Command: `%s`\n\n", run.Command)
	for _, n := range run.Notes {
		fmt.Fprintf(&b, "- Note: %s\n", n)
	}
	if len(run.Notes) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("| host | |\n|---|---|\n")
	for _, r := range hostLines(run) {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], mdEscape(r[1]))
	}
	b.WriteString("\nCharts: report.html. Every sample: samples.csv; every figure: metrics.csv.\n")
	for _, e := range run.Experiments {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", e.Name, e.Description)
		fmt.Fprintf(&b, "Systems: %s; rounds: %d; took %s.\n\n", strings.Join(e.Systems, ", "), e.Rounds, e.Elapsed.Round(time.Millisecond))
		if e.Err != "" {
			fmt.Fprintf(&b, "**FAILED**: %s\n\n", mdEscape(e.Err))
		}
		for _, n := range e.Notes {
			fmt.Fprintf(&b, "- Note: %s\n", mdEscape(n))
		}
		if len(e.Notes) > 0 {
			b.WriteString("\n")
		}
		if len(e.Metrics) > 0 {
			b.WriteString("| " + strings.Join(metricHeader, " | ") + " |\n")
			b.WriteString(strings.Repeat("|---", len(metricHeader)) + "|\n")
			for _, m := range e.Metrics {
				b.WriteString("| " + strings.Join(metricRow(m), " | ") + " |\n")
			}
			b.WriteString("\n")
		}
		if len(e.Checks) > 0 {
			b.WriteString("End state:\n\n")
			for _, c := range e.Checks {
				fmt.Fprintf(&b, "- %s %s round %d: %s: %s\n", okWord(c.OK), c.System, c.Round, c.What, mdEscape(c.Detail))
			}
			b.WriteString("\n")
		}
		if len(e.Commands) > 0 {
			b.WriteString("Commands:\n\n```\n")
			for _, c := range e.Commands {
				fmt.Fprintf(&b, "# %s: %s\n%s\n", c.System, c.What, c.Text)
			}
			b.WriteString("```\n")
		}
	}
	return []byte(b.String())
}

func okWord(ok bool) string {
	if ok {
		return "OK"
	}
	return "MISMATCH"
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

const reportCSS = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#222}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.status-complete{color:#186a1e}.status-incomplete{color:#b00;font-weight:bold}
.fail{color:#b00;font-weight:bold}pre{background:#f4f4f4;padding:8px;overflow-x:auto;font-size:12px}
svg.chart{display:block;margin:12px 0;background:#fff}
svg .title{font-size:14px;font-weight:600;text-anchor:middle}svg .tick,svg .legend,svg .value{font-size:11px}
svg .label{font-size:12px}svg .empty{font-size:14px;fill:#b00;text-anchor:middle}
svg .grid{stroke:#e6e6e6}svg .frame{fill:none;stroke:#888}svg .series{fill:none;stroke-width:2}
svg .shade{fill:#999;fill-opacity:.18}svg .shadelabel{font-size:10px;fill:#666}svg .whisker{stroke:#222;fill:none}`

// RenderHTML is the report as one self-contained page: inline CSS and
// SVG, no script, no external resource.
func RenderHTML(run Run) []byte {
	var b strings.Builder
	e := html.EscapeString
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
	fmt.Fprintf(&b, "<title>Petrel lab %s</title><style>%s</style></head><body>\n", e(run.ID), reportCSS)
	fmt.Fprintf(&b, "<h1>Petrel lab run %s</h1>\n", e(run.ID))
	cls := "status-complete"
	if !run.Complete {
		cls = "status-incomplete"
	}
	fmt.Fprintf(&b, "<p id=\"status\" class=\"%s\">Status: %s</p>\n", cls, e(statusLine(run)))
	fmt.Fprintf(&b, "<p>Mode: %s. Started %s, took %s.</p><p>Command: <code>%s</code></p>\n", e(run.Mode),
		run.Started.UTC().Format(time.RFC3339), run.Elapsed.Round(time.Second), e(run.Command))
	if len(run.Notes) > 0 {
		b.WriteString("<ul class=\"notes\">")
		for _, n := range run.Notes {
			fmt.Fprintf(&b, "<li>%s</li>", e(n))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("<table class=\"host\">")
	for _, r := range hostLines(run) {
		fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>", e(r[0]), e(r[1]))
	}
	b.WriteString("</table>\n<p>Every sample is in samples.csv, every figure in metrics.csv, the whole run in run.json.</p>\n")
	b.WriteString("<ul class=\"toc\">")
	for _, x := range run.Experiments {
		fmt.Fprintf(&b, "<li><a href=\"#exp-%s\">%s</a></li>", e(x.Name), e(x.Name))
	}
	b.WriteString("</ul>\n")
	for _, x := range run.Experiments {
		fmt.Fprintf(&b, "<section id=\"exp-%s\"><h2>%s</h2><p>%s</p>\n", e(x.Name), e(x.Name), e(x.Description))
		fmt.Fprintf(&b, "<p>Systems: %s; rounds: %d; took %s.</p>\n", e(strings.Join(x.Systems, ", ")), x.Rounds, x.Elapsed.Round(time.Millisecond))
		if x.Err != "" {
			fmt.Fprintf(&b, "<p class=\"fail\">FAILED: %s</p>\n", e(x.Err))
		}
		for _, n := range x.Notes {
			fmt.Fprintf(&b, "<p class=\"note\">Note: %s</p>\n", e(n))
		}
		for _, c := range x.Charts {
			b.WriteString(chartSVG(c))
			b.WriteString("\n")
		}
		if len(x.Metrics) > 0 {
			b.WriteString("<table class=\"metrics\"><tr>")
			for _, h := range metricHeader {
				fmt.Fprintf(&b, "<th>%s</th>", h)
			}
			b.WriteString("</tr>")
			for _, m := range x.Metrics {
				b.WriteString("<tr>")
				for i, v := range metricRow(m) {
					if i >= 3 {
						fmt.Fprintf(&b, "<td class=\"n\">%s</td>", e(v))
					} else {
						fmt.Fprintf(&b, "<td>%s</td>", e(v))
					}
				}
				b.WriteString("</tr>")
			}
			b.WriteString("</table>\n")
		}
		if len(x.Checks) > 0 {
			b.WriteString("<ul class=\"checks\">")
			for _, c := range x.Checks {
				fmt.Fprintf(&b, "<li>%s %s round %d: %s: %s</li>", okWord(c.OK), e(c.System), c.Round, e(c.What), e(c.Detail))
			}
			b.WriteString("</ul>\n")
		}
		if len(x.Commands) > 0 {
			b.WriteString("<details><summary>Commands</summary><pre>")
			for _, c := range x.Commands {
				fmt.Fprintf(&b, "# %s: %s\n%s\n", e(c.System), e(c.What), e(c.Text))
			}
			b.WriteString("</pre></details>\n")
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}
