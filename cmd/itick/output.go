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
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// format is how rows come out; it is the --format flag's value.
type format string

const (
	formatAuto    format = ""
	formatTable   format = "table"
	formatCSV     format = "csv"
	formatJSON    format = "json"
	formatParquet format = "parquet" // quote and klines only
)

func (f *format) String() string { return string(*f) }
func (f *format) Type() string   { return "format" }

func (f *format) Set(s string) error {
	switch v := format(strings.ToLower(strings.TrimSpace(s))); v {
	case formatTable, formatCSV, formatJSON, formatParquet:
		*f = v
		return nil
	}
	return errors.New("not table, csv, json or parquet")
}

// rowsFormat is the format rows come out in (outFormat, CSV off a
// terminal). Parquet is for the commands that say so (parquetOK), and goes
// to a file or a pipe, never to a terminal.
func (a *app) rowsFormat(parquetOK bool) (format, error) {
	f := a.outFormat(formatCSV)
	switch {
	case f != formatParquet:
		return f, nil
	case !parquetOK:
		return f, invalidf("--format parquet applies to quote and klines; this command writes table, csv or json")
	case a.outTTY:
		return f, invalidf("--format parquet writes a binary file: send stdout to a file (> quotes.parquet)")
	}
	return f, nil
}

// stdoutWriter is stdout. It marks its write errors as the output's
// (outputError), never the network's, and remembers the first, so that a
// failure no command reports, such as help text to a full disk, still ends
// the process with a failure.
type stdoutWriter struct {
	f *os.File

	mu  sync.Mutex
	err *outputError
}

func (w *stdoutWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err == nil {
		return n, nil
	}
	oe := outputError{err}
	w.mu.Lock()
	if w.err == nil {
		w.err = &oe
	}
	w.mu.Unlock()
	return n, oe
}

// failed returns the first write error, if any.
func (w *stdoutWriter) failed() (outputError, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		return outputError{}, false
	}
	return *w.err, true
}

// column is one field of a row: its CSV header and JSON key, and whether
// the table, which keeps to what a reader needs, shows it.
type column struct {
	name  string
	table bool
}

// cols builds columns; a name starting with "-" is left out of the table.
func cols(names ...string) []column {
	out := make([]column, len(names))
	for i, n := range names {
		out[i] = column{name: strings.TrimPrefix(n, "-"), table: !strings.HasPrefix(n, "-")}
	}
	return out
}

// row holds one value per column: string, float64, int, bool, time.Time
// or []string.
type row []any

// rowWriter writes rows in one format. Close ends the output (the table
// is aligned and written then, the JSON array closed); after an error the
// output holds only whole rows.
type rowWriter interface {
	Write(r row) error
	Close() error
}

// newRowWriter returns a writer of rows with columns in format f.
func newRowWriter(w io.Writer, f format, columns []column) rowWriter {
	switch f {
	case formatJSON:
		return &jsonRows{w: bufio.NewWriter(w), cols: columns}
	case formatTable:
		return newTable(w, columns)
	default:
		return newCSVRows(w, columns)
	}
}

// csvRows writes RFC 4180 CSV with a header line.
type csvRows struct {
	w      *csv.Writer
	cols   []column
	header bool
}

func newCSVRows(w io.Writer, columns []column) *csvRows {
	return &csvRows{w: csv.NewWriter(w), cols: columns}
}

func (c *csvRows) writeHeader() error {
	if c.header {
		return nil
	}
	c.header = true
	names := make([]string, len(c.cols))
	for i, col := range c.cols {
		names[i] = col.name
	}
	return c.w.Write(names)
}

func (c *csvRows) Write(r row) error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	rec := make([]string, len(r))
	for i, v := range r {
		rec[i] = text(v)
	}
	return c.w.Write(rec)
}

// Flush sends the rows written so far, for output read as it comes.
func (c *csvRows) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

func (c *csvRows) Close() error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	return c.Flush()
}

// jsonRows writes an array of objects, one per line, or, with lines, one
// object per line and nothing else.
type jsonRows struct {
	w     *bufio.Writer
	cols  []column
	lines bool
	n     int
}

func (j *jsonRows) Write(r row) error {
	obj, err := jsonObject(j.cols, r)
	if err != nil {
		return err
	}
	switch {
	case j.lines:
	case j.n == 0:
		j.w.WriteString("[\n")
	default:
		j.w.WriteString(",\n")
	}
	j.n++
	j.w.Write(obj)
	if j.lines {
		j.w.WriteByte('\n')
		return j.w.Flush()
	}
	return nil
}

func (j *jsonRows) Close() error {
	switch {
	case j.lines:
	case j.n == 0:
		j.w.WriteString("[]\n")
	default:
		j.w.WriteString("\n]\n")
	}
	return j.w.Flush()
}

// jsonObject encodes a row as an object whose keys keep the columns' order.
func jsonObject(columns []column, r row) ([]byte, error) {
	b := []byte{'{'}
	for i, col := range columns {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, col.name)
		b = append(b, ':')
		v, err := jsonValue(r[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", col.name, err)
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// jsonValue encodes one value: numbers as encoding/json writes them (the
// shortest form that reads back as the same float64), times as RFC 3339
// strings, a zero time as null, and text exactly, with what could drive a
// terminal escaped (see jsonSafe).
func jsonValue(v any) ([]byte, error) {
	switch v := v.(type) {
	case time.Time:
		if v.IsZero() {
			return []byte("null"), nil
		}
		return json.Marshal(v.UTC().Format(time.RFC3339Nano))
	case json.RawMessage:
		return jsonSafe(v), nil
	}
	b, err := json.Marshal(v)
	return jsonSafe(b), err
}

// text is a value as CSV and the table show it: floats in the shortest
// decimal form that reads back as the same float64, never rounded and never
// in exponent form.
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	case time.Time:
		if v.IsZero() {
			return ""
		}
		return v.UTC().Format(time.RFC3339Nano)
	case []string:
		return strings.Join(v, " ")
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// table aligns the columns that have table set, once every row is in.
type table struct {
	w    io.Writer
	buf  bytes.Buffer
	tw   *tabwriter.Writer
	cols []column
}

func newTable(w io.Writer, columns []column) *table {
	t := &table{w: w, cols: columns}
	t.tw = tabwriter.NewWriter(&t.buf, 0, 0, 2, ' ', 0)
	t.line(func(i int) string { return title(columns[i].name) })
	return t
}

func (t *table) line(cell func(i int) string) {
	first := true
	for i, col := range t.cols {
		if !col.table {
			continue
		}
		if !first {
			io.WriteString(t.tw, "\t")
		}
		first = false
		io.WriteString(t.tw, tableCell(cell(i)))
	}
	io.WriteString(t.tw, "\n")
}

func (t *table) Write(r row) error {
	t.line(func(i int) string { return text(r[i]) })
	return nil
}

// Close aligns the rows and writes them, without the padding an empty last
// cell would leave at the end of a line.
func (t *table) Close() error {
	if err := t.tw.Flush(); err != nil {
		return err
	}
	var out bytes.Buffer
	for line := range bytes.Lines(t.buf.Bytes()) {
		out.Write(bytes.TrimRight(line, " \n"))
		out.WriteByte('\n')
	}
	_, err := t.w.Write(out.Bytes())
	return err
}

// title is a column's table header: "change_percent" is "CHANGE %".
func title(name string) string {
	name = strings.ReplaceAll(name, "_percent", " %")
	return strings.ToUpper(strings.ReplaceAll(name, "_", " "))
}

// tableCell keeps a cell on its line, since a tab or newline in the
// service's text would break the columns, and keeps the terminal from
// acting on the service's text (see terminalSafe).
func tableCell(s string) string { return terminalSafe(s) }
