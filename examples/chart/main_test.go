package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampletest"
)

// node is any SVG element, with its attributes, text and children.
type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []node     `xml:",any"`
}

func (n node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n node) walk(f func(node)) {
	f(n)
	for _, c := range n.Nodes {
		c.walk(f)
	}
}

func parseSVG(t *testing.T, r io.Reader) node {
	t.Helper()
	var root node
	if err := xml.NewDecoder(r).Decode(&root); err != nil {
		t.Fatalf("the SVG does not parse: %v", err)
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root element %v", root.XMLName)
	}
	return root
}

// svgParts are the parts of a drawn chart a reader looks at.
type svgParts struct {
	title                 string
	groups, volumes       []node
	yLabels, volumeLabels []string
	xLabels               []node
	scripts               int
}

func parts(root node) svgParts {
	var p svgParts
	root.walk(func(n node) {
		class := n.attr("class")
		switch {
		case class == "title":
			p.title = n.Text
		case strings.HasPrefix(class, "candle "):
			p.groups = append(p.groups, n)
		case strings.HasPrefix(class, "volume "):
			p.volumes = append(p.volumes, n)
		case class == "axis y":
			p.yLabels = append(p.yLabels, n.Text)
		case class == "axis volume":
			p.volumeLabels = append(p.volumeLabels, n.Text)
		case class == "axis x":
			p.xLabels = append(p.xLabels, n)
		}
		if n.XMLName.Local == "script" || n.attr("href") != "" {
			p.scripts++
		}
	})
	return p
}

// TestRenderDrawsEveryCandle renders known candles: one group per kline
// in order, coloured by direction, volume bars with their scale, labels
// for both axes, and a title with the dates and the last close.
func TestRenderDrawsEveryCandle(t *testing.T) {
	t.Parallel()
	day := time.Date(2025, 1, 30, 0, 0, 0, 0, time.UTC)
	ks := []itick.Kline{
		{Time: day, Open: 10, High: 12, Low: 9, Close: 11, Volume: 1200},                   // up
		{Time: day.AddDate(0, 0, 1), Open: 11, High: 11.5, Low: 8, Close: 9, Volume: 3400}, // down
		{Time: day.AddDate(0, 0, 4), Open: 9, High: 9, Low: 9, Close: 9.25, Volume: 0},     // up
	}
	var buf bytes.Buffer
	if err := render(&buf, chart{Code: "X<", Region: "US", Simulated: true}, ks); err != nil {
		t.Fatal(err)
	}
	p := parts(parseSVG(t, &buf))
	if want := "X< (US), daily, 30 Jan 2025 to 3 Feb 2025, last close 9.25 (simulated prices)"; p.title != want {
		t.Errorf("title %q, want %q", p.title, want)
	}
	if len(p.groups) != len(ks) || len(p.volumes) != len(ks) {
		t.Fatalf("%d candles and %d volume bars for %d klines", len(p.groups), len(p.volumes), len(ks))
	}
	wantDir := []string{"up", "down", "up"}
	wantColour := map[string]string{"up": upColour, "down": downColour}
	for i, g := range p.groups {
		dir := strings.TrimPrefix(g.attr("class"), "candle ")
		if dir != wantDir[i] || g.attr("data-time") != ks[i].Time.Format(time.DateOnly) {
			t.Errorf("candle %d: class %q time %q", i, g.attr("class"), g.attr("data-time"))
		}
		for _, part := range g.Nodes {
			switch part.XMLName.Local {
			case "line":
				if part.attr("stroke") != wantColour[dir] {
					t.Errorf("candle %d: wick colour %s, want %s", i, part.attr("stroke"), wantColour[dir])
				}
			case "rect":
				if part.attr("fill") != wantColour[dir] {
					t.Errorf("candle %d: body colour %s, want %s", i, part.attr("fill"), wantColour[dir])
				}
			}
		}
		if p.volumes[i].attr("fill") != wantColour[dir] {
			t.Errorf("volume %d: colour %s, want %s", i, p.volumes[i].attr("fill"), wantColour[dir])
		}
	}
	// The tallest volume bar is the second candle's.
	h := func(n node) float64 { v, _ := strconv.ParseFloat(n.attr("height"), 64); return v }
	if !(h(p.volumes[1]) > h(p.volumes[0]) && h(p.volumes[0]) > h(p.volumes[2])) {
		t.Errorf("volume bar heights %v %v %v do not follow the volumes", h(p.volumes[0]), h(p.volumes[1]), h(p.volumes[2]))
	}
	// The volume scale runs from 0 past the largest volume, 3400.
	if strings.Join(p.volumeLabels, ",") != "0,2K,4K" {
		t.Errorf("volume labels %q, want 0,2K,4K", p.volumeLabels)
	}
	// Price labels cover the range 8..12; dates name both months.
	var prices []float64
	for _, l := range p.yLabels {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatalf("price label %q: %v", l, err)
		}
		prices = append(prices, v)
	}
	if len(prices) < 3 || prices[0] > 8 || prices[len(prices)-1] < 12 {
		t.Errorf("price labels %v do not cover 8..12", prices)
	}
	if got := labelTexts(p.xLabels); got != "Jan 2025,Feb 2025" {
		t.Errorf("date labels %q", got)
	}
	if p.scripts != 0 {
		t.Errorf("%d scripts or links in a standalone SVG", p.scripts)
	}
}

func labelTexts(ns []node) string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Text)
	}
	return strings.Join(out, ",")
}

// TestMonthLabelsHaveRoom draws 120 days whose first is a month's last:
// its label would sit on the next month's, so only the next one shows,
// and no two labels are closer than their width.
func TestMonthLabelsHaveRoom(t *testing.T) {
	t.Parallel()
	var ks []itick.Kline
	for d := time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC); len(ks) < candles; d = d.AddDate(0, 0, 1) {
		if d.Weekday() != time.Saturday && d.Weekday() != time.Sunday {
			ks = append(ks, itick.Kline{Time: d, Open: 10, High: 11, Low: 9, Close: 10.5, Volume: 1e6})
		}
	}
	var buf bytes.Buffer
	if err := render(&buf, chart{Code: "X", Region: "US"}, ks); err != nil {
		t.Fatal(err)
	}
	p := parts(parseSVG(t, &buf))
	if got := labelTexts(p.xLabels); got != "Feb 2025,Mar 2025,Apr 2025,May 2025,Jun 2025,Jul 2025" {
		t.Errorf("date labels %q", got)
	}
	assertLabelsApart(t, p.xLabels)
	if strings.Contains(p.title, "simulated") {
		t.Errorf("title %q calls real prices simulated", p.title)
	}
}

// assertLabelsApart checks that no two date labels overlap: 8 characters
// at font size 12 take some 55 units.
func assertLabelsApart(t *testing.T, labels []node) {
	t.Helper()
	prev := math.Inf(-1)
	for _, l := range labels {
		x, err := strconv.ParseFloat(l.attr("x"), 64)
		if err != nil {
			t.Fatalf("label %q at %q: %v", l.Text, l.attr("x"), err)
		}
		if x-prev < 60 {
			t.Errorf("label %q at %v is %v units from the one before", l.Text, x, x-prev)
		}
		prev = x
	}
}

// TestRunOffline draws a chart from the simulator at several clock times:
// every candle drawn, the title names the simulator, and the labels have
// room.
func TestRunOffline(t *testing.T) {
	for _, at := range []time.Time{
		exampletest.Weekend,
		exampletest.Night,
		exampletest.NewYorkTrading,
		time.Date(2025, 8, 1, 15, 30, 0, 0, time.UTC), // 120 days back is a month's last day
	} {
		out := filepath.Join(t.TempDir(), "chart.svg")
		printed := exampletest.RunOffline(t, run, at, "-code", "MSFT", "-out", out)
		if !regexp.MustCompile(`(?m)^ITICK_TOKEN is not set: using the offline simulator at http://127\.0\.0\.1:\d+ \(synthetic data\)\.\nWrote 120 candles of MSFT from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d to .*chart\.svg: MSFT \(US\), daily, .* \(simulated prices\)\.\n$`).MatchString(printed) {
			t.Errorf("at %s, output:\n%s", at, printed)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		p := parts(parseSVG(t, f))
		f.Close()
		if len(p.groups) != candles {
			t.Errorf("at %s: %d candles drawn, want %d", at, len(p.groups), candles)
		}
		last := p.groups[len(p.groups)-1].attr("data-time")
		if !regexp.MustCompile(`^MSFT \(US\), daily, \d+ \w{3} \d{4} to \d+ \w{3} \d{4}, last close \d+(\.\d+)? \(simulated prices\)$`).MatchString(p.title) ||
			!strings.Contains(p.title, mustDate(t, last).Format("2 Jan 2006")) {
			t.Errorf("at %s: title %q, last candle %s", at, p.title, last)
		}
		if len(p.volumeLabels) < 2 || p.volumeLabels[0] != "0" {
			t.Errorf("at %s: volume labels %q", at, p.volumeLabels)
		}
		assertLabelsApart(t, p.xLabels)
	}
}

func mustDate(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRunRejectsBadArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: chart [flags]\n\nChart draws ")
}

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: chart [flags]\n\nChart draws ", "-code string")
}
