package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/d19c4e34/itick"
)

// resumeState is what -resume keeps beside its CSV file, in FILE.state:
// the range the file was started with, so that a later run asks for the
// same one, and the stocks whose ranges are complete, so that it asks
// nothing more for them.
type resumeState struct {
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	Complete []string  `json:"complete"`
}

// csvHeader is the first row of every file the program writes.
var csvHeader = []string{"code", "date", "open", "high", "low", "close", "volume", "turnover"}

// backfillResume completes file, a CSV file of candles, from what it holds
// and its state: the stocks not complete are asked for what they lack, a
// group of them at a time, and each group's new candles are appended and
// the state saved as soon as its call returns. Once every stock is
// complete, the file is rewritten in stock order, oldest first, as a run
// without -resume writes it.
//
// A range call pages back from its end, so what a stopped run fetched of
// a stock is the newest part of its range: what it lacks is from the
// range's start to its oldest candle, which a call ending there asks for
// alone. Stocks that lack the same share calls. (WithResume would also
// fetch each stock's newest candle again, in case it was still forming
// when stored; -resume's range ends at a fixed day, and WithClosedOnly
// keeps only final candles, so nothing newer is ever missing.)
func backfillResume(ctx context.Context, c *itick.Client, file string, from, to time.Time, stderr io.Writer) error {
	st, have, err := openResume(file, from, to)
	if err != nil {
		return err
	}
	done := make(map[string]bool, len(usStocks))
	for _, code := range st.Complete {
		done[code] = true
	}
	// The stocks to ask for, by the end of what each lacks, in stock order.
	lacks := map[time.Time][]string{}
	var ends []time.Time
	for _, code := range usStocks {
		if done[code] {
			continue
		}
		end := st.To
		if ks := have[code]; len(ks) > 0 {
			end = oldest(ks)
		}
		if !st.From.Before(end) {
			st.Complete = append(st.Complete, code) // its oldest candle is at from
			done[code] = true
			continue
		}
		if lacks[end] == nil {
			ends = append(ends, end)
		}
		lacks[end] = append(lacks[end], code)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()

	// A group is as many stocks as the client has requests in flight,
	// so that each round of pages goes out at once; the file gains a
	// group's candles as soon as its call returns.
	group := c.BatchSize() * itick.DefaultConcurrency
	line := &progressLine{w: stderr, start: time.Now(), total: len(usStocks), done: len(done)}
	var stop error    // ends the run: ctx, a spent quota, a whole group failing
	var partial error // some stocks' ranges failed; the others go on
	type call struct {
		codes []string
		end   time.Time
	}
	var calls []call
	for _, end := range ends {
		for codes := range slices.Chunk(lacks[end], group) {
			calls = append(calls, call{codes, end})
		}
	}
	for i := 0; i < len(calls) && stop == nil; i++ {
		codes := calls[i].codes
		got, err := c.Stock.KlinesRange(ctx, itick.RegionUS, codes, itick.OneDay, st.From, calls[i].end,
			itick.WithClosedOnly(), itick.WithProgress(line.report))
		// What arrived is kept even for an incomplete stock: it is the
		// newest part of its range, and the next run asks only for the
		// rest.
		cw := csv.NewWriter(f)
		for _, code := range codes {
			for _, k := range got[code] {
				if ks := have[code]; len(ks) == 0 || k.Time.Before(oldest(ks)) {
					cw.Write(row(code, k))
				}
			}
		}
		cw.Flush()
		if err := errors.Join(cw.Error(), f.Sync()); err != nil {
			return err
		}
		complete := codes
		var be *itick.BatchError
		switch {
		case err == nil:
		case errors.As(err, &be):
			failed := be.FailedCodes()
			complete = slices.DeleteFunc(slices.Clone(codes), func(c string) bool { return slices.Contains(failed, c) })
			if ctx.Err() != nil || errors.Is(err, itick.ErrRateLimited) {
				stop = err
			} else {
				partial = errors.Join(partial, err)
			}
		default:
			complete, stop = nil, err // no telling which stocks are complete
		}
		for _, code := range complete {
			st.Complete = append(st.Complete, code)
			done[code] = true
		}
		if err := saveState(file, st); err != nil {
			return err
		}
		line.finish(len(complete))
	}
	fmt.Fprintln(stderr)
	if left := len(usStocks) - len(done); left > 0 {
		return fmt.Errorf("%d of %d stocks incomplete; run again with -resume %s to continue: %w",
			left, len(usStocks), file, errors.Join(stop, partial))
	}
	if err := compact(file); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s holds every candle of %d stocks from %s to %s (%s)\n", file, len(usStocks),
		st.From.Format(time.DateOnly), st.To.Format(time.DateOnly), time.Since(line.start).Round(time.Millisecond))
	return nil
}

// openResume reads file and its state, or starts both with the range from
// to to when neither exists yet. A file without its state is refused: it
// is not one this program started, and it would be written over.
func openResume(file string, from, to time.Time) (*resumeState, map[string][]itick.Kline, error) {
	b, err := os.ReadFile(file + ".state")
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s exists but %s.state does not: not a file -resume started; remove it or name another", file, file)
		}
		st := &resumeState{From: from, To: to, Complete: []string{}}
		if err := writeCSV(file, nil); err != nil {
			return nil, nil, err
		}
		return st, map[string][]itick.Kline{}, saveState(file, st)
	case err != nil:
		return nil, nil, err
	}
	st := &resumeState{}
	if err := json.Unmarshal(b, st); err != nil || st.From.IsZero() || !st.From.Before(st.To) {
		return nil, nil, fmt.Errorf("%s.state: not a state this program wrote (%v)", file, err)
	}
	have, err := readCSV(file)
	return st, have, err
}

// readCSV reads the candles of a file the program wrote, keyed by code.
func readCSV(file string) (map[string][]itick.Kline, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = len(csvHeader)
	have := map[string][]itick.Kline{}
	for n := 1; ; n++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return have, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if n == 1 {
			continue // the header
		}
		k, err := parseRow(rec)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", file, n, err)
		}
		have[rec[0]] = append(have[rec[0]], k)
	}
}

// compact rewrites file in stock order, each stock's candles oldest first.
func compact(file string) error {
	have, err := readCSV(file)
	if err != nil {
		return err
	}
	for _, ks := range have {
		slices.SortFunc(ks, func(a, b itick.Kline) int { return a.Time.Compare(b.Time) })
	}
	return writeCSV(file, have)
}

// writeCSV writes the header and candles, in stock order, to file through
// a temporary file renamed over it, so that file is never half written.
func writeCSV(file string, candles map[string][]itick.Kline) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	cw := csv.NewWriter(tmp)
	cw.Write(csvHeader)
	for _, code := range usStocks {
		for _, k := range candles[code] {
			cw.Write(row(code, k))
		}
	}
	cw.Flush()
	if err := errors.Join(cw.Error(), tmp.Sync(), tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// saveState writes st beside file, through a temporary file renamed over
// the old state.
func saveState(file string, st *resumeState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := file + ".state.tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file+".state")
}

func oldest(ks []itick.Kline) time.Time {
	t := ks[0].Time
	for _, k := range ks[1:] {
		if k.Time.Before(t) {
			t = k.Time
		}
	}
	return t
}

// progressLine is the progress line of a run made of several range calls:
// the stocks done before the current call count as done.
type progressLine struct {
	w        io.Writer
	start    time.Time
	total    int // stocks
	done     int // stocks complete before the current call
	requests int // of the calls before
	candles  int
	last     itick.RangeProgress // of the current call
}

func (l *progressLine) report(p itick.RangeProgress) {
	pct := int(100 * (float64(l.done) + p.Fraction()*float64(p.Codes)) / float64(l.total))
	if l.done+p.Done < l.total {
		pct = min(pct, 99)
	}
	l.last = p
	fmt.Fprintf(l.w, "\r%3d%%  %d requests  %d candles  %d of %d stocks done  back to %s  %s",
		pct, l.requests+p.Requests, l.candles+p.Candles, l.done+p.Done, l.total, p.Reached.Format(time.DateOnly),
		time.Since(l.start).Round(time.Second))
}

// finish closes the current call, which completed n stocks.
func (l *progressLine) finish(n int) {
	l.done += n
	l.requests += l.last.Requests
	l.candles += l.last.Candles
	l.last = itick.RangeProgress{}
}
