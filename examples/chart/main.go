// Command chart draws a candlestick chart, with volume bars, of a stock's
// last 120 daily candles and writes it as a standalone SVG file that any
// browser opens: no network, no JavaScript.
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
	"strconv"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampleenv"
)

func main() {
	exampleenv.Main("chart", func(ctx context.Context, w io.Writer) error {
		return run(ctx, os.Args[1:], w)
	})
}

// Candles to draw.
const candles = 120

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("chart", flag.ContinueOnError)
	fs.SetOutput(w)
	region := fs.String("region", "US", "market of the stock")
	code := fs.String("code", "AAPL", "stock code")
	out := fs.String("out", "chart.svg", "SVG file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	env, err := exampleenv.Open(w)
	if err != nil {
		return err
	}
	defer env.Close()
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
	if err := render(f, *code+" ("+*region+"), daily", ks); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(w, "Wrote %d candles of %s from %s to %s to %s.\n", len(ks), *code,
		ks[0].Time.Format(time.DateOnly), ks[len(ks)-1].Time.Format(time.DateOnly), *out)
	return nil
}

// Colours of rising and falling candles.
const (
	upColour   = "#26a69a"
	downColour = "#ef5350"
)

// Layout, in SVG units.
const (
	width, height = 1200.0, 640.0
	left, right   = 40.0, 80.0 // margins; prices are labelled on the right
	top           = 40.0
	priceBottom   = 460.0 // the price pane ends, the volume pane starts below
	volumeTop     = 480.0
	volumeBottom  = 600.0
)

// render writes ks (oldest first) as a candlestick chart with volume bars.
func render(w io.Writer, title string, ks []itick.Kline) error {
	lo, hi, maxVol := math.Inf(1), math.Inf(-1), 0.0
	for _, k := range ks {
		lo, hi, maxVol = min(lo, k.Low), max(hi, k.High), max(maxVol, k.Volume)
	}
	step := niceStep((hi - lo) / 5)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	if hi == lo {
		hi = lo + step
	}
	slot := (width - left - right) / float64(len(ks))
	x := func(i int) float64 { return left + slot*(float64(i)+0.5) }
	y := func(p float64) float64 { return priceBottom - (p-lo)/(hi-lo)*(priceBottom-top) }
	vy := func(v float64) float64 {
		if maxVol == 0 {
			return volumeBottom
		}
		return volumeBottom - v/maxVol*(volumeBottom-volumeTop)
	}

	p := &printer{w: w}
	p.f(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	p.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	p.f(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	p.f(`<text class="title" x="%g" y="24" font-size="16" fill="#222">%s</text>`+"\n", left, escape(title))

	// Price grid and labels.
	for v := lo; v <= hi+step/2; v += step {
		p.f(`<line class="grid" x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", left, width-right, y(v), y(v))
		p.f(`<text class="axis y" x="%g" y="%.1f" fill="#555" dominant-baseline="middle">%s</text>`+"\n",
			width-right+6, y(v), strconv.FormatFloat(v, 'f', decimals(step), 64))
	}
	// A date label at each month's first candle.
	for i, k := range ks {
		if i == 0 || k.Time.Month() != ks[i-1].Time.Month() {
			p.f(`<line class="grid" x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#f0f0f0"/>`+"\n", x(i), x(i), top, volumeBottom)
			p.f(`<text class="axis x" x="%.1f" y="%g" fill="#555" text-anchor="middle">%s</text>`+"\n",
				x(i), volumeBottom+18, k.Time.Format("Jan 2006"))
		}
	}
	p.f(`<text class="axis volume" x="%g" y="%g" fill="#555">volume</text>`+"\n", width-right+6, volumeTop+10)

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
