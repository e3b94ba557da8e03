package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick"
)

// Candles as rows and files: the writers of every format, the reader of
// the files klines writes (for --resume), and the atomic rewrite of one.

var klineColumns = cols("class", "region", "code", "time", "open", "high", "low", "close", "volume", "turnover")

// splitColumn says, in each row of split-adjusted candles, up to when
// splits are accounted for (RFC 3339).
const splitColumn = "split_adjusted_as_of"

// klineSink takes candles, product by product, in one format.
type klineSink interface {
	Write(p itick.Product, k itick.Kline) error
	Close() error
}

// newKlineSink writes candles to w in format f; a non-empty splitAsOf
// marks them as adjusted for the splits up to then: a column in CSV, JSON
// and the table, metadata in Parquet.
func newKlineSink(w io.Writer, f format, interval itick.Interval, splitAsOf string) klineSink {
	if f == formatParquet {
		return newParquetKlines(w, interval, splitAsOf)
	}
	columns := klineColumns
	if splitAsOf != "" {
		columns = append(append([]column(nil), klineColumns...), column{name: splitColumn, table: true})
	}
	return &rowKlines{w: newRowWriter(w, f, columns), asOf: splitAsOf}
}

type rowKlines struct {
	w    rowWriter
	asOf string
}

func (r *rowKlines) Write(p itick.Product, k itick.Kline) error {
	rw := klineRow(p, k)
	if r.asOf != "" {
		rw = append(rw, r.asOf)
	}
	return r.w.Write(rw)
}

func (r *rowKlines) Close() error { return r.w.Close() }

func klineRow(p itick.Product, k itick.Kline) row {
	return row{string(p.Class), string(p.Region), p.Code, k.Time, k.Open, k.High, k.Low, k.Close, k.Volume, k.Turnover}
}

// writeCandles writes the candles of products, in their order, to sink and
// closes it. With cut, a second Ctrl-C stops the writing at a row
// boundary. It returns how many rows it wrote.
func (a *app) writeCandles(sink klineSink, products []itick.Product, candles map[itick.Product][]itick.Kline, cut bool) (int, error) {
	n := 0
rows:
	for _, p := range products {
		for _, k := range candles[p] {
			if cut && a.sig.again() {
				break rows
			}
			if err := sink.Write(p, k); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, sink.Close()
}

// klineFile is what a file klines wrote holds.
type klineFile struct {
	format    format
	candles   map[itick.Product][]itick.Kline
	splitAsOf string // "" when not adjusted
}

// fileFormat is the format of the --resume file: --format when given,
// else its extension's (.parquet, .json; CSV otherwise).
func fileFormat(path string, flag format) (format, error) {
	switch flag {
	case formatAuto:
	case formatTable:
		return flag, invalidf("--resume writes csv, json or parquet, not a table")
	default:
		return flag, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return formatParquet, nil
	case ".json":
		return formatJSON, nil
	}
	return formatCSV, nil
}

// readKlineFile reads a file klines wrote, in any of its formats, taking
// rows without class and region (files of older versions) as of the
// command's one class and region, single. It returns nil for a file that
// does not exist.
func readKlineFile(path string, single *group) (*klineFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	kf := &klineFile{candles: map[itick.Product][]itick.Kline{}}
	switch trimmed := bytes.TrimLeft(data, " \t\r\n"); {
	case bytes.HasPrefix(data, []byte("PAR1")):
		kf.format = formatParquet
		kf.candles, _, kf.splitAsOf, err = readParquetKlines(data)
	case len(trimmed) == 0:
		kf.format = formatCSV // an empty file: a run that wrote nothing yet
	case trimmed[0] == '[':
		kf.format = formatJSON
		err = kf.readJSON(data, single)
	default:
		kf.format = formatCSV
		err = kf.readCSV(data, single)
	}
	if err != nil {
		return nil, invalidf("--resume %s is not a file of candles klines wrote: %v", path, err)
	}
	return kf, nil
}

// readCSV reads the CSV klines writes: a header naming the columns, then
// one candle a row.
func (kf *klineFile) readCSV(data []byte, single *group) error {
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return err
	}
	at := map[string]int{}
	for i, name := range header {
		at[name] = i
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		field := func(name string) string {
			if i, ok := at[name]; ok && i < len(rec) {
				return rec[i]
			}
			return ""
		}
		if err := kf.add(field, single); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
}

// readJSON reads the JSON klines writes: an array of objects.
func (kf *klineFile) readJSON(data []byte, single *group) error {
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		return err
	}
	for i, obj := range rows {
		field := func(name string) string {
			switch v := obj[name].(type) {
			case string:
				return v
			case float64:
				return strconv.FormatFloat(v, 'f', -1, 64)
			}
			return ""
		}
		if err := kf.add(field, single); err != nil {
			return fmt.Errorf("row %d: %w", i+1, err)
		}
	}
	return nil
}

// add reads one row whose fields field gives by column name.
func (kf *klineFile) add(field func(string) string, single *group) error {
	class, region := field("class"), field("region")
	if class == "" && region == "" {
		if single == nil {
			return errors.New("no class and region columns, and the command names products of several")
		}
		class, region = string(single.class), string(single.region)
	}
	p, err := parseProduct(class + ":" + region + ":" + field("code"))
	if err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339Nano, field("time"))
	if err != nil {
		return fmt.Errorf("time %q is not RFC 3339", field("time"))
	}
	k := itick.Kline{Time: t.UTC()}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"open", &k.Open}, {"high", &k.High}, {"low", &k.Low}, {"close", &k.Close}, {"volume", &k.Volume}, {"turnover", &k.Turnover}} {
		if *f.v, err = strconv.ParseFloat(field(f.name), 64); err != nil {
			return fmt.Errorf("%s %q is not a number", f.name, field(f.name))
		}
	}
	asOf := field(splitColumn)
	if len(kf.candles) > 0 && asOf != kf.splitAsOf {
		return fmt.Errorf("%s %q differs from the rows before (%q)", splitColumn, asOf, kf.splitAsOf)
	}
	kf.splitAsOf = asOf
	kf.candles[p] = append(kf.candles[p], k)
	return nil
}

// writeFileAtomic writes path through write: to a temporary file in the
// same folder, synced and then renamed over path, so that a crash or a
// failed write leaves the old file whole, never half a new one.
func writeFileAtomic(path string, write func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return outputError{err}
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err := write(bw); err != nil {
		return err
	}
	for _, step := range []func() error{bw.Flush, func() error { return tmp.Chmod(mode) }, tmp.Sync, tmp.Close,
		func() error { return os.Rename(tmp.Name(), path) }} {
		if err := step(); err != nil {
			return outputError{err}
		}
	}
	return nil
}

// resumeCommand is the command line that goes on with the run in file:
// this one, with --resume file (and no --dry-run).
func resumeCommand(file string) string {
	words := []string{"itick"}
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--resume":
			i++
		case strings.HasPrefix(a, "--resume="), a == "--dry-run":
		default:
			words = append(words, shellQuote(a))
		}
	}
	return strings.Join(append(words, "--resume", shellQuote(file)), " ")
}

// stdoutPath is the file stdout writes to, relative to the working
// folder where it is under it, or "" when it is no regular file.
func stdoutPath(f *os.File) string {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || !filepath.IsAbs(p) {
		return ""
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}
