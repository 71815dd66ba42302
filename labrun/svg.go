package labrun

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Charts are drawn here as inline SVG, by hand: the report must open from
// a file with no network and no script, and a few hundred lines of Go are
// easier to test than an embedded charting library.

const (
	svgW, svgH                     = 720, 320
	padL, padR, padT, padB float64 = 64, 150, 28, 44
)

// systemColor gives each system one colour in every chart.
func systemColor(system string) string {
	switch system {
	case "petrel":
		return "#1f6fb4"
	case "mariadb":
		return "#d4572a"
	}
	return "#555555"
}

// roundDash tells a system's rounds apart.
func roundDash(round int) string {
	return [...]string{"", "6 3", "2 3", "8 3 2 3"}[(round-1+4)%4]
}

// axis maps data to pixels on one dimension.
type axis struct {
	lo, hi   float64
	log      bool
	p0, p1   float64 // pixel of lo and hi
	ticks    []float64
	tickText func(float64) string
}

func (a axis) pos(v float64) float64 {
	lo, hi := a.lo, a.hi
	if a.log {
		v, lo, hi = math.Log10(math.Max(v, a.lo)), math.Log10(lo), math.Log10(hi)
	}
	if hi == lo {
		return (a.p0 + a.p1) / 2
	}
	return a.p0 + (v-lo)/(hi-lo)*(a.p1-a.p0)
}

// niceAxis covers [lo, hi] with about five round ticks.
func niceAxis(lo, hi float64, logScale bool, p0, p1 float64) axis {
	a := axis{p0: p0, p1: p1, log: logScale, tickText: tickText}
	if logScale {
		lo = math.Max(lo, 1e-9)
		elo, ehi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(math.Max(hi, lo)))
		if ehi == elo {
			ehi++
		}
		a.lo, a.hi = math.Pow(10, elo), math.Pow(10, ehi)
		for e := elo; e <= ehi; e++ {
			a.ticks = append(a.ticks, math.Pow(10, e))
		}
		return a
	}
	if hi <= lo {
		hi = lo + 1
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(step*m) <= 6 {
			step *= m
			break
		}
	}
	a.lo, a.hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	for v := a.lo; v <= a.hi+step/2 && len(a.ticks) < 20; v += step {
		a.ticks = append(a.ticks, v)
	}
	return a
}

// chartSVG draws c. A chart without points says so in place of a plot.
func chartSVG(c Chart) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="chart-%s" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		html.EscapeString(c.ID), svgW, svgH, svgW, svgH, html.EscapeString(c.Title))
	fmt.Fprintf(&b, `<text x="%d" y="18" class="title">%s</text>`, svgW/2, html.EscapeString(c.Title))
	if countPoints(c) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="empty">no samples</text></svg>`, svgW/2, svgH/2)
		return b.String()
	}
	if c.Kind == Bars {
		drawBars(&b, c)
	} else {
		drawLines(&b, c)
	}
	drawLegend(&b, c)
	b.WriteString("</svg>")
	return b.String()
}

func countPoints(c Chart) int {
	n := 0
	for _, s := range c.Series {
		n += len(s.Points)
	}
	return n
}

func drawFrame(b *strings.Builder, c Chart, x, y axis, xTicks bool) {
	for _, t := range y.ticks {
		py := y.pos(t)
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, padL, py, svgW-padR, py)
		fmt.Fprintf(b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, padL-6, py+4, y.tickText(t))
	}
	if xTicks {
		for _, t := range x.ticks {
			px := x.pos(t)
			fmt.Fprintf(b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, px, padT, px, svgH-padB)
			fmt.Fprintf(b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, px, svgH-padB+16, x.tickText(t))
		}
	}
	fmt.Fprintf(b, `<rect class="frame" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, padL, padT, svgW-padR-padL, svgH-padB-padT)
	fmt.Fprintf(b, `<text class="label" x="%.1f" y="%d" text-anchor="middle">%s</text>`, (padL+svgW-padR)/2, svgH-6, html.EscapeString(c.XLabel))
	fmt.Fprintf(b, `<text class="label" transform="translate(14 %.1f) rotate(-90)" text-anchor="middle">%s</text>`, (padT+svgH-padB)/2, html.EscapeString(c.YLabel))
}

func drawLines(b *strings.Builder, c Chart) {
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), 0.0, math.Inf(-1)
	for _, s := range c.Series {
		for _, p := range s.Points {
			xlo, xhi = math.Min(xlo, p.X), math.Max(xhi, p.X)
			ylo, yhi = math.Min(ylo, p.Y), math.Max(yhi, p.Y)
		}
	}
	for _, sp := range c.Shade {
		xlo, xhi = math.Min(xlo, sp.From), math.Max(xhi, sp.To)
	}
	x := niceAxis(xlo, xhi, c.LogX, padL, svgW-padR)
	y := niceAxis(ylo, yhi, false, svgH-padB, padT)
	for _, sp := range c.Shade {
		x0, x1 := x.pos(sp.From), x.pos(sp.To)
		fmt.Fprintf(b, `<rect class="shade" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s</title></rect>`,
			x0, padT, math.Max(x1-x0, 1), svgH-padB-padT, html.EscapeString(sp.Label))
		fmt.Fprintf(b, `<text class="shadelabel" x="%.1f" y="%.1f">%s</text>`, x0+3, padT+12, html.EscapeString(sp.Label))
	}
	drawFrame(b, c, x, y, true)
	for _, s := range c.Series {
		if len(s.Points) == 0 {
			continue
		}
		var d strings.Builder
		for i, p := range s.Points {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", cmd, x.pos(p.X), y.pos(p.Y))
		}
		fmt.Fprintf(b, `<path class="series" data-system="%s" data-round="%d" d="%s" stroke="%s" stroke-dasharray="%s"/>`,
			html.EscapeString(s.System), s.Round, strings.TrimSpace(d.String()), systemColor(s.System), roundDash(s.Round))
		if len(s.Points) <= 12 {
			for _, p := range s.Points {
				fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`, x.pos(p.X), y.pos(p.Y), systemColor(s.System))
			}
		}
	}
}

// drawBars draws, per category, one bar per system at the mean of its
// rounds with a whisker from the lowest to the highest round.
func drawBars(b *strings.Builder, c Chart) {
	systems := chartSystems(c)
	type agg struct{ mean, lo, hi float64 }
	vals := map[string]map[int]agg{}
	yhi := 0.0
	for _, sys := range systems {
		vals[sys] = map[int]agg{}
		byCat := map[int][]float64{}
		for _, s := range c.Series {
			if s.System != sys {
				continue
			}
			for _, p := range s.Points {
				byCat[int(p.X)] = append(byCat[int(p.X)], p.Y)
			}
		}
		for cat, ys := range byCat {
			m, lo, hi := meanMinMax(ys)
			vals[sys][cat] = agg{m, lo, hi}
			yhi = math.Max(yhi, hi)
		}
	}
	y := niceAxis(0, yhi, false, svgH-padB, padT)
	drawFrame(b, c, axis{}, y, false)
	n := max(len(c.Categories), 1)
	slot := (svgW - padR - padL) / float64(n)
	bw := slot * 0.7 / float64(max(len(systems), 1))
	for ci, cat := range c.Categories {
		x0 := padL + float64(ci)*slot + slot*0.15
		fmt.Fprintf(b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, padL+float64(ci)*slot+slot/2, svgH-padB+16, html.EscapeString(cat))
		for si, sys := range systems {
			a, ok := vals[sys][ci]
			if !ok {
				continue
			}
			bx := x0 + float64(si)*bw
			top := y.pos(a.mean)
			fmt.Fprintf(b, `<path class="bar" data-system="%s" d="M%.1f %.1f H%.1f V%.1f H%.1f Z" fill="%s"><title>%s %s: %s</title></path>`,
				html.EscapeString(sys), bx, y.pos(0), bx+bw-2, top, bx, systemColor(sys), html.EscapeString(sys), html.EscapeString(cat), fmtNum(a.mean))
			if a.hi > a.lo {
				mid := bx + (bw-2)/2
				fmt.Fprintf(b, `<path class="whisker" d="M%.1f %.1f V%.1f M%.1f %.1f H%.1f M%.1f %.1f H%.1f"/>`,
					mid, y.pos(a.lo), y.pos(a.hi), mid-4, y.pos(a.lo), mid+4, mid-4, y.pos(a.hi), mid+4)
			}
			fmt.Fprintf(b, `<text class="value" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, bx+(bw-2)/2, top-4, fmtNum(a.mean))
		}
	}
}

func chartSystems(c Chart) []string {
	var out []string
	for _, s := range c.Series {
		if !slices.Contains(out, s.System) {
			out = append(out, s.System)
		}
	}
	return out
}

func drawLegend(b *strings.Builder, c Chart) {
	y := padT + 6
	type key struct {
		system string
		round  int
	}
	var keys []key
	for _, s := range c.Series {
		k := key{s.System, s.Round}
		if c.Kind == Bars {
			k.round = 0
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		label := k.system
		dash := ""
		if k.round > 0 {
			label = fmt.Sprintf("%s r%d", k.system, k.round)
			dash = roundDash(k.round)
		}
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3" stroke-dasharray="%s"/>`,
			svgW-padR+12, y, svgW-padR+36, y, systemColor(k.system), dash)
		fmt.Fprintf(b, `<text class="legend" x="%.1f" y="%.1f">%s</text>`, svgW-padR+42, y+4, html.EscapeString(label))
		y += 16
	}
	if c.Kind == Bars {
		fmt.Fprintf(b, `<text class="legend" x="%.1f" y="%.1f">bar: mean of rounds</text>`, svgW-padR+12, y+4)
		fmt.Fprintf(b, `<text class="legend" x="%.1f" y="%.1f">whisker: min–max</text>`, svgW-padR+12, y+18)
	}
}

func meanMinMax(v []float64) (mean, lo, hi float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		mean += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return mean / float64(len(v)), lo, hi
}

// fmtNum prints a figure with about four significant digits and no
// exponent; the Markdown and the HTML print every figure through it, so
// a test can compare them with the CSV's exact values.
func fmtNum(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	case a == 0:
		return "0"
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

// tickText prints an axis tick without trailing zeros ("0.5", "1000").
func tickText(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}
