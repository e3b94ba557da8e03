package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// rangeArgs is a range fetch of 44 pages: 15 days of minute candles of a
// pair that trades around the clock.
var (
	rangeFrom = time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
	rangeTo   = time.Date(2025, 5, 16, 0, 0, 0, 0, time.UTC)
	rangeArgs = []string{"klines", "crypto", "BA", "BTCUSDT", "--interval", "1m",
		"--from", "2025-05-01", "--to", "2025-05-16"}
)

// btc is the product of rangeArgs.
var btc = itick.Product{Class: itick.AssetCrypto, Region: itick.RegionBA, Code: "BTCUSDT"}

// seriesCSV is the CSV the range fetch must write: every candle the
// simulator has in the range, as klines writes them.
func seriesCSV(t *testing.T, srv *markettest.Server) string {
	t.Helper()
	series := srv.Series(markettest.Crypto, itick.RegionBA, "BTCUSDT", itick.OneMinute, rangeFrom, rangeTo)
	if len(series) != 15*24*60 {
		t.Fatalf("the simulator has %d candles in the range, want %d", len(series), 15*24*60)
	}
	var b strings.Builder
	w := newCSVRows(&b, klineColumns)
	for _, k := range series {
		if err := w.Write(klineRow(btc, k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestKlinesProgressOnTerminal runs a range fetch with stderr on a
// pseudo-terminal: the progress bar is drawn there, and stdout, a file,
// holds only the CSV.
func TestKlinesProgressOnTerminal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("pseudo-terminals are Unix's")
	}
	t.Parallel()
	srv := newServer(t)
	srv.AddLatency(5 * time.Millisecond) // each page takes a moment, as over a network
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(t.TempDir(), "candles.csv")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()

	cmd := itickCmd(t, serverEnv(srv), rangeArgs...)
	cmd.Stdout, cmd.Stderr = out, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the command holds the terminal now; reading ends when it exits
	var screen bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&screen, ptmx) //nolint:errcheck // ends with EIO once the command has exited
		close(copied)
	}()
	code := exitCode(t, cmd.Wait())
	<-copied
	if code != 0 {
		t.Fatalf("exit code %d; terminal:\n%q", code, screen.String())
	}

	drawn := screen.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`\d+ requests, ~\d+ left, \d+ candles`),
		regexp.MustCompile(`[1-9]\d* requests, ~\d+ left, [1-9]\d* candles`), // a page arrived
		regexp.MustCompile(`\d+%`),
		regexp.MustCompile("\r"),
	} {
		if !want.MatchString(drawn) {
			t.Errorf("the terminal shows no %q; it got:\n%q", want, drawn)
		}
	}
	got, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(seriesCSV(t, srv), string(got)); diff != "" {
		t.Errorf("the CSV differs from the simulator's series (-want +got):\n%s", diff)
	}
}

// TestKlinesNoProgressOnPipe runs the same fetch with stderr on a pipe:
// nothing is drawn, and the CSV is the same.
func TestKlinesNoProgressOnPipe(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := runCLI(t, serverEnv(srv), rangeArgs...)
	if r.code != 0 || !regexp.MustCompile(`^itick: 44 requests, 21600 candles of 1 product in [0-9.]+m?s, quota wait 0s\n$`).MatchString(r.stderr) {
		t.Fatalf("exit code %d, stderr %q; want 0 and the summary alone", r.code, r.stderr)
	}
	if diff := cmp.Diff(seriesCSV(t, srv), r.stdout); diff != "" {
		t.Errorf("the CSV differs from the simulator's series (-want +got):\n%s", diff)
	}
}

// TestDefaultFormatOnTerminal checks that rows come out as a table when
// stdout is a terminal.
func TestDefaultFormatOnTerminal(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	cmd := itickCmd(t, serverEnv(srv), "quote", "stock", "US", "AAPL", "MSFT")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	screen, code := runOnTerminal(t, cmd)
	if code != 0 {
		t.Fatalf("exit code %d, stderr %q", code, errOut.String())
	}
	want, err := os.ReadFile(filepath.Join("testdata", "quote.table"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), screen); diff != "" {
		t.Errorf("terminal output differs from testdata/quote.table (-want +got):\n%s", diff)
	}
}

// TestKlinesInterruptLeavesValidCSV interrupts a long range fetch, as
// Ctrl-C does: the command stops at once with exit code 130, and the file
// holds a header and whole rows, the newest part of each code's range.
func TestKlinesInterruptLeavesValidCSV(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.AddLatency(50 * time.Millisecond) // about 1,500 pages: over a minute to fetch them all
	to := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	codes := []string{"BTCUSDT", "ETHUSDT"}
	outPath := filepath.Join(t.TempDir(), "candles.csv")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var errOut bytes.Buffer
	cmd := itickCmd(t, serverEnv(srv), append(append([]string{"klines", "crypto", "BA"}, codes...),
		"--interval", "1m", "--from", "2024-01-01", "--to", "2025-06-01")...)
	cmd.Stdout, cmd.Stderr = out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Pages of one chunk go one after the other, so a third request
	// means two pages have arrived.
	eventually(t, time.Minute, "a third page asked for", func() bool { return len(srv.Requests()) >= 3 })
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd.Wait()); code != exitInterrupted {
		t.Fatalf("exit code %d, want %d; stderr %q", code, exitInterrupted, errOut.String())
	}
	if n := len(srv.Requests()); n > 100 {
		t.Errorf("%d requests: the fetch went on after the interrupt", n)
	}
	m := regexp.MustCompile(`^itick: interrupted: wrote the (\d+) candles that arrived, the newest part of each product's range; ` +
		`to go on: itick klines crypto BA BTCUSDT ETHUSDT --interval 1m --from 2024-01-01 --to 2025-06-01 --resume (\S+)\n$`).
		FindStringSubmatch(withoutSummary(t, errOut.String()))
	if m == nil {
		t.Fatalf("stderr %q does not say what was written", errOut.String())
	}
	wrote, _ := strconv.Atoi(m[1])
	if m[2] != outPath {
		t.Errorf("the command to go on names %s, want stdout's file %s", m[2], outPath)
	}

	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("the file does not end with a whole line: ...%q", data[max(len(data)-80, 0):])
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = len(klineColumns)
	records, err := r.ReadAll()
	if err != nil {
		t.Fatalf("the file is not valid CSV: %v", err)
	}
	if got, want := strings.Join(records[0], ","), "class,region,code,time,open,high,low,close,volume,turnover"; got != want {
		t.Fatalf("header %q, want %q", got, want)
	}
	rows := records[1:]
	if len(rows) != wrote || wrote < 2*2*itick.DefaultPageSize {
		t.Fatalf("%d rows, the message says %d; want at least two pages of both codes (%d)",
			len(rows), wrote, 2*2*itick.DefaultPageSize)
	}
	// Each code's rows are minute after minute, up to the end of the range.
	last := map[string]time.Time{}
	count := map[string]int{}
	for i, rec := range rows {
		rec = rec[2:] // class and region: crypto, BA
		at, err := time.Parse(time.RFC3339, rec[1])
		if err != nil {
			t.Fatalf("row %d: %v", i+1, err)
		}
		for _, v := range rec[2:] {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				t.Fatalf("row %d: %v", i+1, err)
			}
		}
		if prev, ok := last[rec[0]]; ok && at.Sub(prev) != time.Minute {
			t.Fatalf("row %d: %s follows %s", i+1, at, prev)
		}
		last[rec[0]] = at
		count[rec[0]]++
	}
	for _, code := range codes {
		if count[code] == 0 || !last[code].Equal(to.Add(-time.Minute)) {
			t.Errorf("%s: %d rows ending at %s, want some ending at %s", code, count[code], last[code], to.Add(-time.Minute))
		}
	}
}

// refusePages puts a server in front of srv that lets the first `after`
// requests that match through and answers HTTP 400 to the later ones,
// and returns the environment that points a command at it.
func refusePages(t *testing.T, srv *markettest.Server, after int32, match func(r *http.Request) bool) []string {
	t.Helper()
	var matched atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if match(r) && matched.Add(1) > after {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"code":400,"msg":"page refused","data":null}`) //nolint:errcheck
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return []string{"ITICK_TOKEN=" + srv.Token, "ITICK_BASE_URL=" + front.URL}
}

// TestKlinesRangeKeepsPagesBeforeAFailure fails the third page of a range
// of one code (one chunk, so the SDK returns the error as it is): the two
// pages that arrived, the newest candles, are written, and the error says
// so, with the exit code of its kind.
func TestKlinesRangeKeepsPagesBeforeAFailure(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	env := refusePages(t, srv, 2, func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/klines") })
	r := runCLI(t, env, rangeArgs...)
	if r.code != exitFailure {
		t.Errorf("exit code %d, want %d", r.code, exitFailure)
	}
	m := regexp.MustCompile(`^itick: .*page refused.*; incomplete, only the newest part of the range written: BTCUSDT; ` +
		`wrote the (\d+) candles that arrived, the newest part of each product's range; ` +
		`to go on: itick klines crypto BA BTCUSDT --interval 1m --from 2025-05-01 --to 2025-05-16 --resume FILE\n$`).
		FindStringSubmatch(withoutSummary(t, r.stderr))
	if m == nil {
		t.Fatalf("stderr %q does not give the error and what was written", r.stderr)
	}
	all := strings.SplitAfter(seriesCSV(t, srv), "\n")
	all = all[:len(all)-1] // after the last line's end
	want := all[0] + strings.Join(all[len(all)-2*itick.DefaultPageSize:], "")
	if diff := cmp.Diff(want, r.stdout); diff != "" {
		t.Errorf("stdout is not the header and the two newest pages (-want +got):\n%s", diff)
	}
	if n, _ := strconv.Atoi(m[1]); n != 2*itick.DefaultPageSize {
		t.Errorf("the message says %d candles, want %d", n, 2*itick.DefaultPageSize)
	}
}

// TestKlinesRangeNamesIncompleteCodes fails the second page of one chunk
// of a range of 11 codes (two chunks on the Base plan): the other chunk's
// codes are written whole, the failed one's newest page too, and the
// message names it as incomplete.
func TestKlinesRangeNamesIncompleteCodes(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	env := refusePages(t, srv, 1, func(r *http.Request) bool { return strings.Contains(r.URL.Query().Get("codes"), "C10") })
	codes := make([]string, 11)
	for i := range codes {
		codes[i] = fmt.Sprintf("C%02d", i)
	}
	r := runCLI(t, env,
		append(append([]string{"klines", "stock", "US"}, codes...), "--interval", "1d", "--from", "2020-01-01", "--to", "2025-05-01")...)
	if r.code != exitFailure {
		t.Errorf("exit code %d, want %d", r.code, exitFailure)
	}
	if !regexp.MustCompile(`^itick: .*page refused.*; incomplete, only the newest part of the range written: C10; wrote`).
		MatchString(withoutSummary(t, r.stderr)) {
		t.Errorf("stderr %q does not name C10 as incomplete", r.stderr)
	}
	rows := map[string]int{}
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("stdout is not CSV with rows: %v", err)
	}
	for _, rec := range recs[1:] {
		rows[rec[2]]++
	}
	if rows["C00"] < 1000 || rows["C09"] != rows["C00"] || rows["C10"] != itick.DefaultPageSize {
		t.Errorf("rows per code %v: want over five years of daily candles for C00 to C09 and one page (%d) for C10",
			rows, itick.DefaultPageSize)
	}
}

// TestKlinesClosedOnlyAndAdjusted: on the simulator's clock (a Monday at
// 14:30 UTC), --closed-only leaves out the day still forming, and --adjust
// splits divides the prices before a listed split by its ratio, as the
// SDK's WithSplitAdjusted does, marking every row.
func TestKlinesClosedOnlyAndAdjusted(t *testing.T) {
	t.Parallel()
	last := func(r result) []string {
		recs := csvTable(t, r.stdout).rows
		return recs[len(recs)-1]
	}
	args := []string{"--sim", "klines", "stock", "US", "AAPL", "--interval", "1d", "--limit", "3", "--format", "csv"}
	if r := runCLI(t, nil, args...); r.code != 0 || last(r)[3] != "2025-06-02T00:00:00Z" {
		t.Errorf("without --closed-only: exit code %d, last row %q; want today's", r.code, last(r))
	}
	if r := runCLI(t, nil, append(args, "--closed-only")...); r.code != 0 || last(r)[3] != "2025-05-30T00:00:00Z" {
		t.Errorf("with --closed-only: exit code %d, last row %q; want Friday's", r.code, last(r))
	}

	split := markettest.NewGenerator(1).Splits(itick.RegionUS, fixedNow)[3]
	var a, b float64
	if _, err := fmt.Sscanf(split.Ratio, "%g:%g", &a, &b); err != nil {
		t.Fatal(err)
	}
	from, to := split.ExDate.AddDate(0, 0, -7).Format(time.DateOnly), split.ExDate.AddDate(0, 0, 7).Format(time.DateOnly)
	base := []string{"--sim", "klines", "stock:US:" + split.Code, "--interval", "1d", "--from", from, "--to", to, "--format", "csv"}
	raw, adj := runCLI(t, nil, base...), runCLI(t, nil, append(base, "--adjust", "splits")...)
	rawRows, adjTable := csvTable(t, raw.stdout).rows, csvTable(t, adj.stdout)
	if raw.code != 0 || adj.code != 0 || len(rawRows) < 5 || len(rawRows) != len(adjTable.rows) ||
		adjTable.columns[len(adjTable.columns)-1] != splitColumn {
		t.Fatalf("exit codes %d and %d, %d and %d rows, columns %q", raw.code, adj.code, len(rawRows), len(adjTable.rows), adjTable.columns)
	}
	for i, row := range rawRows {
		at, _ := time.Parse(time.RFC3339, row[3])
		f := 1.0
		if at.Before(split.ExDate) {
			f = a / b
		}
		open, _ := strconv.ParseFloat(row[4], 64)
		vol, _ := strconv.ParseFloat(row[8], 64)
		got := adjTable.rows[i]
		if got[4] != text(open/f) || got[8] != text(vol*f) || got[9] != row[9] || got[10] != fixedNow.Format(time.RFC3339) {
			t.Errorf("%s %s, row of %s: raw %q, adjusted %q; want open / %g, volume * %g, turnover kept, adjusted as of now",
				split.Code, split.Ratio, row[3], row, got, f, f)
		}
	}
}
