package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
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

// TestRenderDrawsEveryCandle renders known candles: one group per kline
// in order, coloured by direction, and volume bars and labels for both
// axes.
func TestRenderDrawsEveryCandle(t *testing.T) {
	day := time.Date(2025, 1, 30, 0, 0, 0, 0, time.UTC)
	ks := []itick.Kline{
		{Time: day, Open: 10, High: 12, Low: 9, Close: 11, Volume: 100},                   // up
		{Time: day.AddDate(0, 0, 1), Open: 11, High: 11.5, Low: 8, Close: 9, Volume: 300}, // down
		{Time: day.AddDate(0, 0, 4), Open: 9, High: 9, Low: 9, Close: 9, Volume: 0},       // flat counts as up
	}
	var buf bytes.Buffer
	if err := render(&buf, "X <test>", ks); err != nil {
		t.Fatal(err)
	}
	root := parseSVG(t, &buf)
	var groups, volumes []node
	var yLabels, xLabels []string
	var scripts int
	root.walk(func(n node) {
		class := n.attr("class")
		switch {
		case strings.HasPrefix(class, "candle "):
			groups = append(groups, n)
		case strings.HasPrefix(class, "volume "):
			volumes = append(volumes, n)
		case class == "axis y":
			yLabels = append(yLabels, n.Text)
		case class == "axis x":
			xLabels = append(xLabels, n.Text)
		}
		if n.XMLName.Local == "script" || n.attr("href") != "" {
			scripts++
		}
	})
	if len(groups) != len(ks) || len(volumes) != len(ks) {
		t.Fatalf("%d candles and %d volume bars for %d klines", len(groups), len(volumes), len(ks))
	}
	wantDir := []string{"up", "down", "up"}
	wantColour := map[string]string{"up": upColour, "down": downColour}
	for i, g := range groups {
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
		if volumes[i].attr("fill") != wantColour[dir] {
			t.Errorf("volume %d: colour %s, want %s", i, volumes[i].attr("fill"), wantColour[dir])
		}
	}
	// The tallest volume bar is the second candle's.
	h := func(n node) float64 { v, _ := strconv.ParseFloat(n.attr("height"), 64); return v }
	if !(h(volumes[1]) > h(volumes[0]) && h(volumes[0]) > h(volumes[2])) {
		t.Errorf("volume bar heights %v %v %v do not follow the volumes", h(volumes[0]), h(volumes[1]), h(volumes[2]))
	}
	// Price labels cover the range 8..12; dates name both months.
	var prices []float64
	for _, l := range yLabels {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatalf("price label %q: %v", l, err)
		}
		prices = append(prices, v)
	}
	if len(prices) < 3 || prices[0] > 8 || prices[len(prices)-1] < 12 {
		t.Errorf("price labels %v do not cover 8..12", prices)
	}
	if strings.Join(xLabels, ",") != "Jan 2025,Feb 2025" {
		t.Errorf("date labels %q", xLabels)
	}
	if scripts != 0 {
		t.Errorf("%d scripts or links in a standalone SVG", scripts)
	}
}

func TestRunOffline(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	out := filepath.Join(t.TempDir(), "chart.svg")
	var buf bytes.Buffer
	if err := run(t.Context(), []string{"-code", "MSFT", "-out", out}, &buf); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`Wrote 120 candles of MSFT from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d to `).MatchString(buf.String()) {
		t.Errorf("output:\n%s", buf.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	parseSVG(t, f).walk(func(x node) {
		if strings.HasPrefix(x.attr("class"), "candle ") {
			n++
		}
	})
	if n != candles {
		t.Errorf("%d candles drawn, want %d", n, candles)
	}
}
