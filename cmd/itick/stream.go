package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

// streamColumns are the CSV columns of every kind of event; each kind fills
// the ones it has, and what fits none goes to detail.
var streamColumns = cols("event", "symbol", "time", "last", "open", "high", "low", "close", "volume", "turnover",
	"bid", "bid_volume", "ask", "ask_volume", "interval", "detail")

func (a *app) streamCommand() *cobra.Command {
	var (
		channelsText string
		count        int
	)
	cmd := &cobra.Command{
		Use:   "stream CLASS SYMBOL...",
		Short: "Print live events, one per line, until Ctrl-C",
		Long: `Print the live feed of products of one class (` + classList + `), one
line per event, until Ctrl-C, --count events or --timeout. Symbols are
code$REGION (quote them in the shell: '700$HK'), or code$EXCHANGE$REGION.

Channels are quote, tick, depth and kline@INTERVAL (kline@1m, ...). Besides
the market's events it shows "disconnect" when a connection is lost and
"gap" once it is back, naming the time range whose events were missed, and
"error" for a push it could not read. The table shows control characters
in the service's text escaped (\x1b); CSV and JSON carry it exactly.

Formats: table (one line per event), csv (every kind of event in one set of
columns: best bid and ask for depth, the rest in detail) or json (one object
per line, the default when stdout is not a terminal; depth with every level).

Like the service, the stream pushes nothing for a closed market: when every
subscribed market is closed, a line on stderr says so and when each opens.
Ctrl-C, --count and --timeout (how long to listen: none by default) end it
with exit code 0; a connection refused from the start, a refused token or a
plan limit end it with their exit codes.`,
		Example: `  itick stream stock '700$HK' 'AAPL$US'
  itick stream crypto 'BTCUSDT$BA' --channels tick,depth --format csv > feed.csv
  itick stream forex 'EURUSD$GB' --channels quote,kline@1m --count 10`,
		Args: minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			class, err := parseClass(args[0])
			if err != nil {
				return err
			}
			channels, err := parseChannels(channelsText)
			if err != nil {
				return err
			}
			if count < 0 {
				return invalidf("--count %d is negative", count)
			}
			if a.format == formatParquet {
				return invalidf("--format parquet applies to quote and klines; stream writes table, csv or json")
			}
			env, err := a.open()
			if err != nil {
				return err
			}
			defer env.Close()
			ctx, cancel := a.commandContext(cmd, 0)
			defer cancel()
			err = a.stream(ctx, env.Client, class, args[1:], channels, count)
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return nil // Ctrl-C or --timeout: the way a stream ends
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&channelsText, "channels", "quote", "comma-separated channels: quote, tick, depth, kline@INTERVAL")
	f.IntVar(&count, "count", 0, "stop after this many market events (0: no limit)")
	return cmd
}

func parseChannels(s string) ([]itick.Channel, error) {
	var out []itick.Channel
	for _, part := range strings.Split(s, ",") {
		name := strings.ToLower(strings.TrimSpace(part))
		switch {
		case name == "quote" || name == "tick" || name == "depth":
			out = append(out, itick.Channel(name))
		case strings.HasPrefix(name, "kline@"):
			i, err := parseInterval(strings.TrimSpace(part)[len("kline@"):])
			if err != nil {
				return nil, invalidf("channel %q: %v", part, err)
			}
			out = append(out, itick.ChannelKline(i))
		default:
			return nil, invalidf("channel %q is not quote, tick, depth or kline@INTERVAL", part)
		}
	}
	return out, nil
}

func (a *app) stream(ctx context.Context, c *itick.Client, class itick.AssetType, symbols []string,
	channels []itick.Channel, count int) error {
	s, err := c.Stream(ctx, class)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Subscribe(ctx, symbols, channels...); err != nil {
		return err
	}
	if note := closedNotice(ctx, c, symbols); note != "" {
		fmt.Fprintln(a.stderr, "itick: "+note)
	}
	out := newEventWriter(a.writer(), a.outFormat(formatJSON))
	seen := 0
	for ev := range s.Events() {
		if err := out.write(eventFields(ev)); err != nil {
			return err
		}
		switch ev.(type) {
		case itick.QuoteEvent, itick.TickEvent, itick.DepthEvent, itick.KlineEvent:
			seen++
		}
		if count > 0 && seen >= count {
			a.noteDropped(s.Dropped())
			return nil
		}
	}
	a.noteDropped(s.Dropped())
	return s.Err()
}

// noteDropped says on stderr that events were lost to a slow reader.
func (a *app) noteDropped(n uint64) {
	if n > 0 {
		fmt.Fprintf(a.stderr, "itick: %d events were dropped: the output did not keep up with the stream\n", n)
	}
}

// field is one named value of an event.
type field struct {
	key string
	val any
}

// eventFields lists what an event says, its kind first.
func eventFields(ev itick.Event) []field {
	switch ev := ev.(type) {
	case itick.QuoteEvent:
		q := ev.Quote
		return []field{{"event", "quote"}, {"symbol", ev.Symbol()}, {"time", q.Time}, {"last", q.Last},
			{"open", q.Open}, {"high", q.High}, {"low", q.Low}, {"volume", q.Volume}, {"turnover", q.Turnover}}
	case itick.TickEvent:
		t := ev.Tick
		return []field{{"event", "tick"}, {"symbol", ev.Symbol()}, {"time", t.Time}, {"last", t.Last},
			{"volume", t.Volume}}
	case itick.DepthEvent:
		f := []field{{"event", "depth"}, {"symbol", ev.Symbol()}}
		if len(ev.Depth.Bids) > 0 {
			f = append(f, field{"bid", ev.Depth.Bids[0].Price}, field{"bid_volume", ev.Depth.Bids[0].Volume})
		}
		if len(ev.Depth.Asks) > 0 {
			f = append(f, field{"ask", ev.Depth.Asks[0].Price}, field{"ask_volume", ev.Depth.Asks[0].Volume})
		}
		return append(f, field{"bids", levels(ev.Depth.Bids)}, field{"asks", levels(ev.Depth.Asks)})
	case itick.KlineEvent:
		k := ev.Kline
		return []field{{"event", "kline"}, {"symbol", ev.Symbol()}, {"time", k.Time}, {"open", k.Open},
			{"high", k.High}, {"low", k.Low}, {"close", k.Close}, {"volume", k.Volume}, {"turnover", k.Turnover},
			{"interval", ev.Interval.String()}}
	case itick.DisconnectEvent:
		return []field{{"event", "disconnect"}, {"time", ev.At}, {"detail", fmt.Sprintf(
			"connection %d lost (%s); reconnecting: events of %s are missing until a gap line says it is back",
			ev.Conn, reason(ev.Reason), strings.Join(ev.Symbols, " "))}}
	case itick.GapEvent:
		return []field{{"event", "gap"}, {"time", ev.To}, {"detail", fmt.Sprintf(
			"connection %d was down from %s to %s (%s): events of %s in that time are missing",
			ev.Conn, text(ev.From), text(ev.To), reason(ev.Reason), strings.Join(ev.Symbols, " "))}}
	case itick.ErrorEvent:
		if ev.Conn < 0 { // not of a connection
			return []field{{"event", "error"}, {"detail", reason(ev.Err)}}
		}
		return []field{{"event", "error"}, {"detail", fmt.Sprintf("connection %d: %s", ev.Conn, reason(ev.Err))}}
	}
	return []field{{"event", "unknown"}, {"detail", fmt.Sprintf("%T", ev)}}
}

// reason is an event's error as text, without the SDK's package prefix.
func reason(err error) string {
	if err == nil {
		return "no reason given"
	}
	return detail(err)
}

// level is one book level under readable JSON keys.
type level struct {
	Level  int     `json:"level"`
	Price  float64 `json:"price"`
	Volume float64 `json:"volume"`
	Orders float64 `json:"orders"`
}

func levels(ls []itick.DepthLevel) []level {
	out := make([]level, len(ls))
	for i, l := range ls {
		out[i] = level(l)
	}
	return out
}

// eventWriter writes events one per line and sends each at once.
type eventWriter struct {
	w   io.Writer
	f   format
	csv *csvRows
}

func newEventWriter(w io.Writer, f format) *eventWriter {
	e := &eventWriter{w: w, f: f}
	if f == formatCSV {
		e.csv = newCSVRows(w, streamColumns)
	}
	return e
}

func (e *eventWriter) write(fields []field) error {
	switch e.f {
	case formatCSV:
		r := make(row, len(streamColumns))
		for _, f := range fields {
			if i := columnIndex(f.key); i >= 0 {
				r[i] = f.val
			}
		}
		if err := e.csv.Write(r); err != nil {
			return err
		}
		return e.csv.Flush()
	case formatJSON:
		b := []byte{'{'}
		for i, f := range fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, f.key)
			b = append(b, ':')
			v, err := jsonValue(f.val)
			if err != nil {
				return fmt.Errorf("%s: %w", f.key, err)
			}
			b = append(b, v...)
		}
		_, err := e.w.Write(append(b, '}', '\n'))
		return err
	default:
		_, err := io.WriteString(e.w, eventLine(fields)+"\n")
		return err
	}
}

// eventLine is an event for reading: time, kind, symbol, then key=value.
func eventLine(fields []field) string {
	var head [3]string
	var rest []string
	for _, f := range fields {
		switch f.key {
		case "time":
			head[0] = text(f.val)
		case "event":
			head[1] = text(f.val)
		case "symbol":
			head[2] = text(f.val)
		case "bids", "asks":
		default:
			rest = append(rest, f.key+"="+tableCell(text(f.val)))
		}
	}
	if head[0] == "" {
		head[0] = "-"
	}
	for i := range head {
		head[i] = terminalName(head[i])
	}
	return fmt.Sprintf("%-24s %-10s %-14s %s", head[0], head[1], head[2], strings.Join(rest, " "))
}

func columnIndex(key string) int {
	for i, c := range streamColumns {
		if c.name == key {
			return i
		}
	}
	return -1
}
