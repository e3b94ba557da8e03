// Command chart draws a candlestick chart, with volume bars and their
// scale, of a stock's last 120 daily candles and writes it as a standalone
// SVG file that any browser opens: no network, no JavaScript. The title
// gives the dates drawn and the last close, and says when the prices are
// simulated.
//
//	go run ./examples/chart -code AAPL -out aapl.svg
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return // -h: the usage is printed
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
}

// Candles to draw.
const candles = 120

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("chart", flag.ContinueOnError)
	fs.SetOutput(w)
	region := fs.String("region", "US", "market of the stock")
	code := fs.String("code", "AAPL", "stock code")
	out := fs.String("out", "chart.svg", "SVG file to write")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: chart [flags]

Chart draws a candlestick chart, with volume bars, of a stock's last %d
daily candles and writes it as a standalone SVG file that any browser
opens. It asks the iTick service when ITICK_TOKEN is set and an offline
simulator otherwise, and then says the prices are simulated.

Flags:
`, candles)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	env, err := markettest.OpenEnv(sim)
	if err != nil {
		return err
	}
	defer env.Close()
	if env.Offline() {
		fmt.Fprintf(w, "ITICK_TOKEN is not set: using the offline simulator at %s (synthetic data).\n", env.Server.URL)
	} else {
		fmt.Fprintf(w, "Using the iTick service at %s (ITICK_TOKEN is set).\n", env.Client.BaseURL())
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	ks, err := env.Client.Stock.Kline(ctx, itick.Region(*region), *code, itick.OneDay, candles)
	if err != nil {
		return err
	}
	if len(ks) == 0 {
		return errors.New("no candles to draw")
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	ch := chart{Code: *code, Region: *region, Simulated: env.Offline()}
	if err := render(f, ch, ks); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(w, "Wrote %d candles of %s from %s to %s to %s: %s.\n", len(ks), *code,
		ks[0].Time.Format(time.DateOnly), ks[len(ks)-1].Time.Format(time.DateOnly), *out, ch.title(ks))
	return nil
}

// chart is what the drawing shows besides the candles.
type chart struct {
	Code, Region string
	Simulated    bool // the prices come from the simulator, and the title says so
}

// title names the stock, the dates drawn and the last close.
func (c chart) title(ks []itick.Kline) string {
	last := ks[len(ks)-1]
	t := fmt.Sprintf("%s (%s), daily, %s to %s, last close %s", c.Code, c.Region,
		ks[0].Time.Format("2 Jan 2006"), last.Time.Format("2 Jan 2006"), strconv.FormatFloat(last.Close, 'f', -1, 64))
	if c.Simulated {
		t += " (simulated prices)"
	}
	return t
}

// Colours of rising and falling candles.
const (
	upColour   = "#26a69a"
	downColour = "#ef5350"
)

// Layout, in SVG units.
const (
	width, height = 1200.0, 640.0
	left, right   = 40.0, 80.0 // margins; prices and volumes are labelled on the right
	top           = 40.0
	priceBottom   = 460.0 // the price pane ends, the volume pane starts below
	volumeTop     = 480.0
	volumeBottom  = 600.0
	// monthGap is the least room between two date labels, which are
	// about 55 units wide at font size 12.
	monthGap = 70.0
)

// render writes ks (oldest first), which are not empty, as a candlestick
// chart with volume bars, titled from c.
func render(w io.Writer, c chart, ks []itick.Kline) error {
	lo, hi, maxVol := math.Inf(1), math.Inf(-1), 0.0
	for _, k := range ks {
		lo, hi, maxVol = min(lo, k.Low), max(hi, k.High), max(maxVol, k.Volume)
	}
	step := niceStep((hi - lo) / 5)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	if hi == lo {
		hi = lo + step
	}
	// The volume scale runs from 0 to a round number at or above the
	// largest volume, in two or three steps.
	volStep := niceStep(maxVol / 2)
	volTop := math.Ceil(maxVol/volStep) * volStep
	if volTop == 0 {
		volTop = volStep
	}
	slot := (width - left - right) / float64(len(ks))
	x := func(i int) float64 { return left + slot*(float64(i)+0.5) }
	y := func(p float64) float64 { return priceBottom - (p-lo)/(hi-lo)*(priceBottom-top) }
	vy := func(v float64) float64 { return volumeBottom - v/volTop*(volumeBottom-volumeTop) }

	p := &printer{w: w}
	p.f(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	p.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	p.f(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	p.f(`<text class="title" x="%g" y="24" font-size="16" fill="#222">%s</text>`+"\n", left, escape(c.title(ks)))

	// Price grid and labels.
	for v := lo; v <= hi+step/2; v += step {
		p.f(`<line class="grid" x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", left, width-right, y(v), y(v))
		p.f(`<text class="axis y" x="%g" y="%.1f" fill="#555" dominant-baseline="middle">%s</text>`+"\n",
			width-right+6, y(v), strconv.FormatFloat(v, 'f', decimals(step), 64))
	}
	// Volume grid and labels.
	for n := 0; float64(n)*volStep <= volTop+volStep/2; n++ {
		v := float64(n) * volStep
		p.f(`<line class="grid" x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#f0f0f0"/>`+"\n", left, width-right, vy(v), vy(v))
		p.f(`<text class="axis volume" x="%g" y="%.1f" fill="#555" dominant-baseline="middle">%s</text>`+"\n",
			width-right+6, vy(v), compact(v))
	}
	// A date label at each month's first candle, where it has room.
	for _, i := range monthStarts(ks, slot) {
		p.f(`<line class="grid" x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#f0f0f0"/>`+"\n", x(i), x(i), top, volumeBottom)
		p.f(`<text class="axis x" x="%.1f" y="%g" fill="#555" text-anchor="middle">%s</text>`+"\n",
			x(i), volumeBottom+18, ks[i].Time.Format("Jan 2006"))
	}

	body := max(1, slot*0.7)
	for i, k := range ks {
		colour, dir := upColour, "up"
		if k.Close < k.Open {
			colour, dir = downColour, "down"
		}
		top, bottom := y(max(k.Open, k.Close)), y(min(k.Open, k.Close))
		p.f(`<g class="candle %s" data-time="%s"><title>%s O %g H %g L %g C %g V %g</title>`, dir,
			k.Time.Format(time.DateOnly), k.Time.Format(time.DateOnly), k.Open, k.High, k.Low, k.Close, k.Volume)
		p.f(`<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, x(i), x(i), y(k.High), y(k.Low), colour)
		p.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/></g>`+"\n",
			x(i)-body/2, top, body, max(bottom-top, 1), colour)
		p.f(`<rect class="volume %s" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.6"/>`+"\n",
			dir, x(i)-body/2, vy(k.Volume), body, volumeBottom-vy(k.Volume), colour)
	}
	p.f("</svg>\n")
	return p.err
}

// monthStarts returns the candles, slot units apart, that get a date
// label: each month's first, as long as it lies monthGap or more from the
// label before. The first candle, which starts a month only in part,
// gives way to the next month's when the two would touch.
func monthStarts(ks []itick.Kline, slot float64) []int {
	var starts []int
	for i, k := range ks {
		if i == 0 || k.Time.Month() != ks[i-1].Time.Month() {
			starts = append(starts, i)
		}
	}
	if len(starts) > 1 && float64(starts[1]-starts[0])*slot < monthGap {
		starts = starts[1:]
	}
	var out []int
	for _, i := range starts {
		if len(out) == 0 || float64(i-out[len(out)-1])*slot >= monthGap {
			out = append(out, i)
		}
	}
	return out
}

// compact writes a volume with a unit and three digits at most: 850,
// 12.5K, 3M, 1.2B.
func compact(v float64) string {
	for _, u := range []struct {
		size float64
		unit string
	}{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}} {
		if v >= u.size {
			return strconv.FormatFloat(v/u.size, 'g', 3, 64) + u.unit
		}
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// printer writes formatted text and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// niceStep rounds a raw grid step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsInf(raw, 0) || math.IsNaN(raw) {
		return 1
	}
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*pow {
			return m * pow
		}
	}
	return 10 * pow
}

// decimals is how many decimals a label needs for a grid of step.
func decimals(step float64) int {
	return max(0, int(-math.Floor(math.Log10(step))))
}

func escape(s string) string {
	var b []byte
	for _, r := range s {
		switch r {
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '&':
			b = append(b, "&amp;"...)
		case '"':
			b = append(b, "&quot;"...)
		default:
			b = append(b, string(r)...)
		}
	}
	return string(b)
}
