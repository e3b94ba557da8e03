package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// TestNumbersExact checks CSV and JSON give back every float64 exactly,
// in plain decimal for CSV: the values the service is known to send
// (float noise, index turnover near 1e13, tiny crypto sizes) and random ones.
func TestNumbersExact(t *testing.T) {
	t.Parallel()
	values := []float64{0, 616, 1.3431899999999999, 2.1e13, 0.30000000000000004, 1e-8, 0.00012345, -0.91,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 123456789012345678}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		values = append(values, math.Float64frombits(r.Uint64()&^(0x7ff<<52)|uint64(r.IntN(0x7fe))<<52))
	}
	for _, v := range values {
		s := text(v)
		if strings.ContainsAny(s, "eE") {
			t.Errorf("CSV of %v is %q: not plain decimal", v, s)
		}
		if back, err := strconv.ParseFloat(s, 64); err != nil || back != v {
			t.Errorf("CSV of %v is %q, which reads back as %v (%v)", v, s, back, err)
		}
		b, err := jsonValue(v)
		if err != nil {
			t.Fatalf("JSON of %v: %v", v, err)
		}
		var back float64
		if err := json.Unmarshal(b, &back); err != nil || back != v {
			t.Errorf("JSON of %v is %s, which reads back as %v (%v)", v, b, back, err)
		}
	}
}

// TestRowWriters writes awkward rows in each format and reads them back.
func TestRowWriters(t *testing.T) {
	t.Parallel()
	columns := cols("title", "price", "-time", "open", "sessions")
	at := time.Date(2025, 6, 2, 14, 30, 0, 123000000, time.FixedZone("HKT", 8*3600))
	rows := []row{
		{`Acme, "the" best` + "\nsecond line", 1.5, at, true, []string{"09:30-12:00", "13:00-16:00"}},
		{"tab\there", 2e13, time.Time{}, false, []string{}},
	}
	write := func(f format) string {
		var b strings.Builder
		w := newRowWriter(&b, f, columns)
		for _, r := range rows {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}

	recs, err := csv.NewReader(strings.NewReader(write(formatCSV))).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not read back: %v", err)
	}
	wantCSV := [][]string{
		{"title", "price", "time", "open", "sessions"},
		{`Acme, "the" best` + "\nsecond line", "1.5", "2025-06-02T06:30:00.123Z", "true", "09:30-12:00 13:00-16:00"},
		{"tab\there", "20000000000000", "", "false", ""},
	}
	if diff := cmp.Diff(wantCSV, recs); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}

	var objs []map[string]any
	if err := json.Unmarshal([]byte(write(formatJSON)), &objs); err != nil {
		t.Fatalf("JSON does not read back: %v", err)
	}
	wantJSON := []map[string]any{
		{"title": `Acme, "the" best` + "\nsecond line", "price": 1.5, "time": "2025-06-02T06:30:00.123Z", "open": true,
			"sessions": []any{"09:30-12:00", "13:00-16:00"}},
		{"title": "tab\there", "price": 2e13, "time": nil, "open": false, "sessions": []any{}},
	}
	if diff := cmp.Diff(wantJSON, objs); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}

	wantTable := "TITLE                         PRICE           OPEN   SESSIONS\n" +
		`Acme, "the" best second line  1.5             true   09:30-12:00 13:00-16:00` + "\n" +
		"tab here                      20000000000000  false\n"
	if diff := cmp.Diff(wantTable, write(formatTable)); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// TestEmptyOutput checks that no rows still give a header (CSV, table)
// and an empty array (JSON).
func TestEmptyOutput(t *testing.T) {
	t.Parallel()
	for f, want := range map[format]string{formatCSV: "code,last\n", formatJSON: "[]\n", formatTable: "CODE  LAST\n"} {
		var b strings.Builder
		if err := newRowWriter(&b, f, cols("code", "last")).Close(); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("%s: %q, want %q", f, b.String(), want)
		}
	}
}

func TestProgressView(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		p     itick.RangeProgress
		guess int
		wait  time.Duration
		steps int
		line  string
	}{
		{"before the first page", itick.RangeProgress{}, 44, 0, 0, "0 requests, ~44 left, 0 candles"},
		{"waiting for the quota", itick.RangeProgress{}, 44, 65 * time.Second, 0,
			"0 requests, ~44 left, 0 candles, quota wait 1m5s"},
		{"a short wait is not shown", itick.RangeProgress{}, 3, 400 * time.Millisecond, 0, "0 requests, ~3 left, 0 candles"},
		{"done", itick.RangeProgress{Requests: 44, Candles: 21600, Codes: 1, Done: 1}, 44, 0, barSteps,
			"44 requests, ~0 left, 21600 candles"},
	}
	for _, c := range cases {
		steps, line := progressView(sumOf([]itick.RangeProgress{c.p}, []int{1}), c.guess, c.wait)
		if steps != c.steps || line != c.line {
			t.Errorf("%s: %d, %q; want %d, %q", c.name, steps, line, c.steps, c.line)
		}
	}
}

func TestRequestGuess(t *testing.T) {
	t.Parallel()
	from := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		codes, batch int
		interval     itick.Interval
		to           time.Time
		want         int
	}{
		{1, 10, itick.OneMinute, from.AddDate(0, 0, 15), 44},
		{25, 10, itick.OneMinute, from.AddDate(0, 0, 15), 3 * 44},
		{2, 10, itick.OneDay, from.AddDate(0, 0, 3), 1},
		{50, 50, itick.OneDay, from.AddDate(2, 0, 0), 2},
	}
	for _, c := range cases {
		if got := requestGuess(c.codes, c.batch, c.interval, from, c.to); got != c.want {
			t.Errorf("requestGuess(%d codes, batch %d, %s, to %s) = %d, want %d",
				c.codes, c.batch, c.interval, c.to.Format(time.DateOnly), got, c.want)
		}
	}
}

func TestParseArguments(t *testing.T) {
	t.Parallel()
	if got, err := parseInterval("1M"); err != nil || got != itick.OneMonth {
		t.Errorf("parseInterval(1M) = %v, %v", got, err)
	}
	if got, err := parseInterval("1m"); err != nil || got != itick.OneMinute {
		t.Errorf("parseInterval(1m) = %v, %v", got, err)
	}
	if got, err := parseTime("from", "2025-06-02T22:30:00+08:00"); err != nil || !got.Equal(fixedNow) {
		t.Errorf("parseTime = %v, %v", got, err)
	}
	if got, err := parseCodes([]string{" AAPL", "MSFT", "AAPL "}); err != nil || !cmp.Equal(got, []string{"AAPL", "MSFT"}) {
		t.Errorf("parseCodes = %q, %v; want the first of each, in order", got, err)
	}
	if got, err := parseRegion("hk"); err != nil || got != itick.RegionHK {
		t.Errorf("parseRegion(hk) = %q, %v", got, err)
	}
	if got, err := parseChannels("quote, kline@5m"); err != nil ||
		!cmp.Equal(got, []itick.Channel{itick.ChannelQuote, itick.ChannelKline(itick.FiveMinutes)}) {
		t.Errorf("parseChannels = %q, %v", got, err)
	}
}
