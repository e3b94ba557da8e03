package main

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"
)

// Parquet files are read back with two readers: parquet-go's, the
// library itick writes with, and Apache Arrow's, written independently of
// it, and both must see what the CSV of the same command holds.

// grid is rows of named text values, as CSV gives them.
type grid struct {
	columns []string
	rows    [][]string
}

// csvTable reads CSV.
func csvTable(t *testing.T, data string) grid {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("not CSV: %v\n%s", err, data)
	}
	return grid{columns: recs[0], rows: recs[1:]}
}

// arrowTable reads a Parquet file with Apache Arrow, writing each value as
// the CSV does: times in RFC 3339 (the column must be a UTC timestamp),
// numbers in their shortest form, nulls empty. It also returns the file's
// key-value metadata.
func arrowTable(t *testing.T, data []byte) (grid, map[string]string) {
	t.Helper()
	rdr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Arrow cannot open the file: %v", err)
	}
	defer rdr.Close()
	meta := map[string]string{}
	for _, kv := range rdr.MetaData().KeyValueMetadata() {
		if kv.Value != nil {
			meta[kv.Key] = *kv.Value
		}
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(t.Context())
	if err != nil {
		t.Fatalf("Arrow cannot read the file: %v", err)
	}
	defer tbl.Release()
	var out grid
	n := int(tbl.NumRows())
	out.rows = make([][]string, n)
	for c := 0; c < int(tbl.NumCols()); c++ {
		col := tbl.Column(c)
		out.columns = append(out.columns, col.Name())
		i := 0
		for _, chunk := range col.Data().Chunks() {
			for j := 0; j < chunk.Len(); j++ {
				out.rows[i] = append(out.rows[i], arrowValue(t, col.Name(), chunk, j))
				i++
			}
		}
	}
	return out, meta
}

func arrowValue(t *testing.T, name string, a arrow.Array, i int) string {
	if a.IsNull(i) {
		return ""
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'f', -1, 64)
	case *array.Timestamp:
		ts := a.DataType().(*arrow.TimestampType)
		if ts.Unit != arrow.Millisecond || ts.TimeZone != "UTC" {
			t.Fatalf("column %s is %s; want a UTC timestamp in milliseconds", name, ts)
		}
		return time.UnixMilli(int64(a.Value(i))).UTC().Format(time.RFC3339Nano)
	case *array.Dictionary:
		return arrowValue(t, name, a.Dictionary(), a.GetValueIndex(i))
	}
	t.Fatalf("column %s has type %s", name, a.DataType())
	return ""
}

// parquetGoKlines reads a klines file with parquet-go's reader, into the
// CSV's form.
func parquetGoKlines(t *testing.T, data []byte) grid {
	t.Helper()
	r := parquet.NewGenericReader[parquetKline](bytes.NewReader(data))
	defer r.Close()
	out := grid{columns: []string{"class", "region", "code", "time", "open", "high", "low", "close", "volume", "turnover"}}
	buf := make([]parquetKline, 1000)
	for {
		n, err := r.Read(buf)
		for _, k := range buf[:n] {
			out.rows = append(out.rows, []string{k.Class, k.Region, k.Code, k.Time.UTC().Format(time.RFC3339Nano),
				text(k.Open), text(k.High), text(k.Low), text(k.Close), text(k.Volume), text(k.Turnover)})
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("parquet-go cannot read the file: %v", err)
		}
	}
}

// TestParquetKlines: the same candles as CSV and as Parquet, read back by
// two readers, are the same values, in the same order; a split-adjusted
// file says so in its metadata and CSV in its column.
func TestParquetKlines(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"range", []string{"klines", "stock:US:AAPL", "crypto:BA:BTCUSDT", "forex:GB:EURUSD", "--interval", "1h",
			"--from", "2025-05-01", "--to", "2025-05-20"}},
		{"latest", []string{"klines", "stock", "HK", "700", "9988", "--interval", "1d", "--limit", "50"}},
		{"adjusted", []string{"klines", "stock:US:AAPL", "stock:US:NVDA", "--interval", "1d", "--from", "2025-01-01",
			"--adjust", "splits"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, serverEnv(srv), append(c.args, "--format", "csv")...)
			if r.code != 0 {
				t.Fatalf("csv: exit code %d, stderr %q", r.code, r.stderr)
			}
			want := csvTable(t, r.stdout)
			if len(want.rows) < 40 {
				t.Fatalf("only %d rows", len(want.rows))
			}
			path := filepath.Join(dir, c.name+".parquet")
			out, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			cmd := itickCmd(t, serverEnv(srv), append(c.args, "--format", "parquet")...)
			var errOut strings.Builder
			cmd.Stdout, cmd.Stderr = out, &errOut
			if code := exitCode(t, cmd.Run()); code != 0 {
				t.Fatalf("parquet: exit code %d, stderr %q", code, errOut.String())
			}
			out.Close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			asOf := ""
			if i := len(want.columns) - 1; want.columns[i] == splitColumn {
				asOf = want.rows[0][i]
				want.columns = want.columns[:i]
				for j := range want.rows {
					want.rows[j] = want.rows[j][:i]
				}
			}
			got, meta := arrowTable(t, data)
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(grid{})); diff != "" {
				t.Errorf("Arrow's reading differs from the CSV (-csv +parquet):\n%s", diff)
			}
			if diff := cmp.Diff(want, parquetGoKlines(t, data), cmp.AllowUnexported(grid{})); diff != "" {
				t.Errorf("parquet-go's reading differs from the CSV (-csv +parquet):\n%s", diff)
			}
			// Each run adjusts as of its own now: the client's, the real
			// clock's against a service.
			csvAt, err1 := time.Parse(time.RFC3339, firstOf(asOf, "-"))
			pqAt, err2 := time.Parse(time.RFC3339, firstOf(meta[metaSplitAsOf], "-"))
			if adjusted := err1 == nil && err2 == nil && pqAt.Sub(csvAt).Abs() < time.Minute; adjusted != (asOf != "") ||
				(asOf == "") != (meta[metaSplitAsOf] == "") || !strings.HasPrefix(meta[metaWriter], "itick ") || meta[metaInterval] == "" {
				t.Errorf("metadata %v; want %s about %q, the writer and the interval", meta, metaSplitAsOf, asOf)
			}
			if (asOf != "") != (c.name == "adjusted") {
				t.Errorf("adjusted as of %q", asOf)
			}
		})
	}
}

// TestParquetQuotes: quotes of several classes as Parquet, read by Arrow,
// are the CSV's values, with the change of a crypto pair null.
func TestParquetQuotes(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	args := []string{"quote", "stock:US:AAPL", "crypto:BA:BTCUSDT", "stock:HK:700", "future:US:GC"}
	r := runCLI(t, serverEnv(srv), append(args, "--format", "csv")...)
	if r.code != 0 {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	want := csvTable(t, r.stdout)
	path := filepath.Join(t.TempDir(), "quotes.parquet")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	cmd := itickCmd(t, serverEnv(srv), append(args, "--format", "parquet")...)
	cmd.Stdout = out
	if code := exitCode(t, cmd.Run()); code != 0 {
		t.Fatalf("parquet: exit code %d", code)
	}
	out.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := arrowTable(t, data)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(grid{})); diff != "" {
		t.Errorf("Arrow's reading differs from the CSV (-csv +parquet):\n%s", diff)
	}
	if len(got.rows) != 4 || got.rows[1][4] != "" || got.rows[0][4] == "" {
		t.Errorf("rows %q: want four, BTCUSDT's change null and AAPL's set", got.rows)
	}
}

// TestParquetNotToATerminal: Parquet is a binary file, refused on a
// terminal, and by commands that do not write it.
func TestParquetNotToATerminal(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	cmd := itickCmd(t, serverEnv(srv), "quote", "stock", "US", "AAPL", "--format", "parquet")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	screen, code := runOnTerminal(t, cmd)
	if code != exitInvalid || screen != "" || !strings.Contains(errOut.String(), "send stdout to a file") {
		t.Errorf("exit code %d, screen %q, stderr %q; want %d and nothing drawn", code, screen, errOut.String(), exitInvalid)
	}
}
