package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/d19c4e34/itick"
)

// Tests of the candle writers and of the atomic rewrite of a file.

// TestWriteKlinesCut checks what is written after a Ctrl-C: every candle
// that arrived, and after a second one nothing more than whole rows.
func TestWriteKlinesCut(t *testing.T) {
	t.Parallel()
	a, b := itick.Product{Class: itick.AssetStock, Region: itick.RegionUS, Code: "A"},
		itick.Product{Class: itick.AssetCrypto, Region: itick.RegionBA, Code: "B"}
	candles := map[itick.Product][]itick.Kline{
		a: {{Time: fixedNow, Open: 1, High: 2, Low: 0.5, Close: 1.5, Volume: 10, Turnover: 15}},
		b: {{Time: fixedNow, Open: 3, High: 4, Low: 2.5, Close: 3.5, Volume: 20, Turnover: 70}},
	}
	header := "class,region,code,time,open,high,low,close,volume,turnover\n"
	for _, c := range []struct {
		signals int32
		want    string
		n       int
	}{
		{1, header + "stock,US,A,2025-06-02T14:30:00Z,1,2,0.5,1.5,10,15\ncrypto,BA,B,2025-06-02T14:30:00Z,3,4,2.5,3.5,20,70\n", 2},
		{2, header, 0},
	} {
		var out strings.Builder
		app := &app{stdout: newLineRedactor(&out, ""), sig: &interrupts{}, format: formatCSV}
		app.sig.count.Store(c.signals)
		n, err := app.writeCandles(newKlineSink(app.writer(), formatCSV, itick.OneDay, ""), []itick.Product{a, b}, candles, true)
		app.stdout.Flush()
		if err != nil || n != c.n || out.String() != c.want {
			t.Errorf("after %d signals: %d rows, %v, output %q; want %d rows, %q", c.signals, n, err, out.String(), c.n, c.want)
		}
	}
}

// TestWriteFileAtomic: a write that fails half-way leaves the file as it
// was and no temporary file beside it.
func TestWriteFileAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "candles.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := writeFileAtomic(path, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte("new row\n"), 1<<18)) //nolint:errcheck // the half written
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("the file holds %d bytes after a failed write; want the old ones", len(got))
	}
	if err := writeFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if got, _ := os.ReadFile(path); string(got) != "new\n" || err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("after a write: %q, mode %v, %v; want the new bytes and the old mode", got, fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want the one", len(entries))
	}
}
