package main

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/d19c4e34/itick"
)

// Parquet output: typed columns (class, region and code as dictionary
// strings, times as UTC timestamps in milliseconds, prices and volumes as
// doubles), zstd-compressed, with the file's provenance in its key-value
// metadata.

// parquetKline is one row of a klines Parquet file.
type parquetKline struct {
	Class    string    `parquet:"class,dict"`
	Region   string    `parquet:"region,dict"`
	Code     string    `parquet:"code,dict"`
	Time     time.Time `parquet:"time,timestamp(millisecond:utc)"`
	Open     float64   `parquet:"open"`
	High     float64   `parquet:"high"`
	Low      float64   `parquet:"low"`
	Close    float64   `parquet:"close"`
	Volume   float64   `parquet:"volume"`
	Turnover float64   `parquet:"turnover"`
}

// parquetQuote is one row of a quotes Parquet file; the fields crypto,
// forex and index quotes do not carry are null.
type parquetQuote struct {
	Class         string    `parquet:"class,dict"`
	Region        string    `parquet:"region,dict"`
	Code          string    `parquet:"code,dict"`
	Last          float64   `parquet:"last"`
	Change        *float64  `parquet:"change,optional"`
	ChangePercent *float64  `parquet:"change_percent,optional"`
	Time          time.Time `parquet:"time,timestamp(millisecond:utc)"`
	Open          float64   `parquet:"open"`
	High          float64   `parquet:"high"`
	Low           float64   `parquet:"low"`
	PrevClose     *float64  `parquet:"prev_close,optional"`
	Volume        float64   `parquet:"volume"`
	Turnover      float64   `parquet:"turnover"`
	Status        string    `parquet:"status,dict"`
}

// Metadata keys of the files itick writes.
const (
	metaWriter    = "itick.writer"               // itick and its version
	metaSplitAsOf = "itick.split_adjusted_as_of" // RFC 3339: candles adjusted for the splits up to then
	metaInterval  = "itick.interval"             // the candles' interval, 1m to 1M
)

// parquetBatch is how many rows a Parquet writer is handed at once.
const parquetBatch = 4096

// parquetOptions are the writer options of every file: zstd, and the
// metadata given as key and value pairs.
func parquetOptions(meta ...string) []parquet.WriterOption {
	opts := []parquet.WriterOption{
		parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("itick", cliVersion(), ""),
		parquet.KeyValueMetadata(metaWriter, "itick "+cliVersion()),
	}
	for i := 0; i+1 < len(meta); i += 2 {
		if meta[i+1] != "" {
			opts = append(opts, parquet.KeyValueMetadata(meta[i], meta[i+1]))
		}
	}
	return opts
}

// parquetKlines writes candles as Parquet rows, a batch at a time.
type parquetKlines struct {
	w   *parquet.GenericWriter[parquetKline]
	buf []parquetKline
}

func newParquetKlines(w io.Writer, interval itick.Interval, splitAsOf string) *parquetKlines {
	return &parquetKlines{
		w:   parquet.NewGenericWriter[parquetKline](w, parquetOptions(metaInterval, interval.String(), metaSplitAsOf, splitAsOf)...),
		buf: make([]parquetKline, 0, parquetBatch),
	}
}

func (p *parquetKlines) Write(pr itick.Product, k itick.Kline) error {
	p.buf = append(p.buf, parquetKline{Class: string(pr.Class), Region: string(pr.Region), Code: pr.Code,
		Time: k.Time.UTC(), Open: k.Open, High: k.High, Low: k.Low, Close: k.Close, Volume: k.Volume, Turnover: k.Turnover})
	if len(p.buf) == cap(p.buf) {
		return p.flush()
	}
	return nil
}

func (p *parquetKlines) flush() error {
	_, err := p.w.Write(p.buf)
	p.buf = p.buf[:0]
	return err
}

func (p *parquetKlines) Close() error {
	if err := p.flush(); err != nil {
		return err
	}
	return p.w.Close()
}

// readParquetKlines reads a klines Parquet file itick wrote: its candles
// by product, in the file's order, and its split_adjusted_as_of metadata.
func readParquetKlines(data []byte) (map[itick.Product][]itick.Kline, []itick.Product, string, error) {
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, "", err
	}
	asOf, _ := f.Lookup(metaSplitAsOf)
	r := parquet.NewGenericReader[parquetKline](f)
	defer r.Close()
	out := map[itick.Product][]itick.Kline{}
	var order []itick.Product
	buf := make([]parquetKline, parquetBatch)
	for {
		n, err := r.Read(buf)
		for _, row := range buf[:n] {
			p, perr := parseProduct(row.Class + ":" + row.Region + ":" + row.Code)
			if perr != nil {
				return nil, nil, "", perr
			}
			if _, ok := out[p]; !ok {
				order = append(order, p)
			}
			out[p] = append(out[p], itick.Kline{Time: row.Time.UTC(), Open: row.Open, High: row.High, Low: row.Low,
				Close: row.Close, Volume: row.Volume, Turnover: row.Turnover})
		}
		if err == io.EOF {
			return out, order, asOf, nil
		}
		if err != nil {
			return nil, nil, "", err
		}
	}
}

// writeQuotesParquet writes the quotes of products as Parquet to stdout,
// as writeQuotes does the other formats.
func (a *app) writeQuotesParquet(products []itick.Product, quotes map[itick.Product]itick.Quote,
	failed map[itick.Product]bool) ([]string, error) {
	w := parquet.NewGenericWriter[parquetQuote](a.rawOut, parquetOptions()...)
	rows := make([]parquetQuote, 0, len(products))
	var missing []string
	for _, p := range products {
		q, ok := quotes[p]
		if !ok {
			if !failed[p] {
				missing = append(missing, productName(products, p))
			}
			continue
		}
		r := parquetQuote{Class: string(p.Class), Region: string(p.Region), Code: p.Code, Last: q.Last,
			Time: q.Time.UTC(), Open: q.Open, High: q.High, Low: q.Low, Volume: q.Volume, Turnover: q.Turnover,
			Status: q.TradingStatus().String()}
		if hasChange(p.Class) {
			ch, chp, prev := q.Change, q.ChangePercent, q.PrevClose
			r.Change, r.ChangePercent, r.PrevClose = &ch, &chp, &prev
		}
		rows = append(rows, r)
	}
	if _, err := w.Write(rows); err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	return missing, w.Close()
}
