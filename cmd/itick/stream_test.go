package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// startStream runs "itick stream" against srv with JSON lines on stdout and
// waits for its first event.
func startStream(t *testing.T, srv *markettest.Server, args ...string) (*exec.Cmd, *lineLog, *bytes.Buffer) {
	t.Helper()
	cmd := itickCmd(t, serverEnv(srv), append([]string{"stream", "stock", "AAPL$US", "--format", "json"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(stdout)
	lines.waitFor(t, time.Minute, "a quote", eventIs("quote"))
	return cmd, lines, &errOut
}

// eventIs accepts a JSON line of the given event.
func eventIs(kind string) func(string) bool {
	return func(line string) bool {
		var ev struct {
			Event string `json:"event"`
		}
		return json.Unmarshal([]byte(line), &ev) == nil && ev.Event == kind
	}
}

// stopStream interrupts the stream, as Ctrl-C does, and checks it ends
// with exit code 0 and every line whole JSON.
func stopStream(t *testing.T, cmd *exec.Cmd, lines *lineLog, errOut *bytes.Buffer) {
	t.Helper()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd.Wait()); code != 0 {
		t.Errorf("exit code %d after Ctrl-C, want 0; stderr %q", code, errOut.String())
	}
	for i, line := range lines.all() {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %d is not JSON: %q", i+1, line)
		}
	}
}

// TestStreamShowsGap drops the stream's connection: the command goes on
// and shows the gap once it has reconnected, then quotes again.
func TestStreamShowsGap(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	cmd, lines, errOut := startStream(t, srv)
	if n := srv.DropStreams(); n != 1 {
		t.Fatalf("dropped %d connections, want 1", n)
	}
	i, gap := lines.waitFrom(t, 0, time.Minute, "a gap", eventIs("gap"))
	if !strings.Contains(gap, "AAPL$US") || !strings.Contains(gap, "connection 0 was down from") {
		t.Errorf("gap line %q does not say which products missed what", gap)
	}
	lines.waitFrom(t, i+1, time.Minute, "a quote after the gap", eventIs("quote"))
	stopStream(t, cmd, lines, errOut)
}

// TestStreamShowsDisconnect stops the server under the stream: the command
// shows the lost connection while it tries to reconnect.
func TestStreamShowsDisconnect(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	cmd, lines, errOut := startStream(t, srv)
	srv.Close()
	line := lines.waitFor(t, time.Minute, "a disconnect", eventIs("disconnect"))
	var ev struct{ Time, Detail string }
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse(time.RFC3339Nano, ev.Time); err != nil ||
		!regexp.MustCompile(`^connection 0 lost \(.+\); reconnecting: events of AAPL\$US are missing`).MatchString(ev.Detail) {
		t.Errorf("disconnect line %q does not say when, which connection and which products", line)
	}
	stopStream(t, cmd, lines, errOut)
}

// TestStreamCount checks --count ends the stream after that many market
// events, with exit code 0.
func TestStreamCount(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := runCLI(t, serverEnv(srv), "stream", "crypto", "BTCUSDT$BA", "ETHUSDT$BA", "--channels", "tick", "--count", "7")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines, want 7:\n%s", len(lines), r.stdout)
	}
	for _, line := range lines {
		if !eventIs("tick")(line) {
			t.Errorf("line %q is not a tick", line)
		}
	}
}

// TestStreamClosedMarkets: at a pinned weekend moment the simulator, like
// the service, pushes nothing; the stream says so on stderr, and when each
// market opens, and --timeout ends it with exit code 0, as its help says.
// When a market trades, nothing is said.
func TestStreamClosedMarkets(t *testing.T) {
	t.Parallel()
	saturday := []string{markettest.EnvSimTime + "=2025-06-07T14:30:00Z"}
	r := runCLI(t, saturday, "--sim", "stream", "stock", "AAPL$US", "700$HK", "--timeout", "1s")
	want := "itick: every subscribed market is closed, and the service pushes nothing until one opens: " +
		"US is closed for the weekend and opens at 2025-06-09T13:30:00Z (2025-06-09T09:30:00-04:00 local); " +
		"HK is closed for the weekend and opens at 2025-06-09T01:30:00Z (2025-06-09T09:30:00+08:00 local) (Ctrl-C stops)\n"
	if r.code != 0 || r.stdout != "" || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("exit code %d, stdout %q, stderr %q; want 0, nothing, and %q", r.code, r.stdout, r.stderr, want)
	}
	// Thursday 2025-06-19, Juneteenth: New York is closed for the holiday
	// and opens the next day.
	r = runCLI(t, []string{markettest.EnvSimTime + "=2025-06-19T15:00:00Z"}, "--sim", "stream", "stock", "AAPL$US", "--timeout", "1s")
	if r.code != 0 || !strings.Contains(r.stderr, "US is closed for a holiday and opens at 2025-06-20T13:30:00Z") {
		t.Errorf("on a holiday: exit code %d, stderr %q", r.code, r.stderr)
	}
	srv := newServer(t) // Monday, New York trading
	r = runCLI(t, serverEnv(srv), "stream", "stock", "AAPL$US", "700$HK", "--timeout", "1s", "--format", "json")
	if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, `"symbol":"AAPL$US"`) {
		t.Errorf("a market trading: exit code %d, stderr %q; want 0, AAPL's events and nothing on stderr", r.code, r.stderr)
	}
}

// sdkEventTypes lists the SDK's stream event types: the exported types
// with the methods of its Event interface, read from its source.
func sdkEventTypes(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "github.com/d19c4e34/itick").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	var marks []string // the methods of Event
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Event" {
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					for _, m := range it.Methods.List {
						for _, name := range m.Names {
							marks = append(marks, name.Name)
						}
					}
				}
			}
			return true
		})
	}
	if len(marks) == 0 {
		t.Fatalf("no Event interface with methods in %s", dir)
	}
	has := map[string]map[string]bool{} // type -> its methods among marks
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !slices.Contains(marks, fd.Name.Name) {
				continue
			}
			typ := fd.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				if has[id.Name] == nil {
					has[id.Name] = map[string]bool{}
				}
				has[id.Name][fd.Name.Name] = true
			}
		}
	}
	var types []string
	for name, methods := range has {
		if len(methods) == len(marks) && ast.IsExported(name) {
			types = append(types, name)
		}
	}
	sort.Strings(types)
	return types
}

// sampleEvents holds one event of every type the SDK's Stream delivers,
// with the service's text hostile wherever it can reach. A new event type
// fails TestEveryEventPrinted until it is added here and has a printed
// form.
var sampleEvents = []itick.Event{
	itick.QuoteEvent{Code: "AAPL\n" + hostileText, Region: itick.RegionUS,
		Quote: itick.Quote{Symbol: "AAPL", Last: 150.5, Open: 150, High: 151, Low: 149, Time: fixedNow, Volume: 100, Turnover: 15050}},
	itick.TickEvent{Code: "AAPL", Region: "US\x1b[2J", Tick: itick.Tick{Symbol: "AAPL", Last: 150.5, Volume: 10, Time: fixedNow}},
	itick.DepthEvent{Code: "700", Exchange: "X\u202e", Region: itick.RegionHK, Depth: itick.DepthBook{Symbol: "700",
		Asks: []itick.DepthLevel{{Level: 1, Price: 616.5, Volume: 1200, Orders: 3}},
		Bids: []itick.DepthLevel{{Level: 1, Price: 616, Volume: 800, Orders: 2}}}},
	itick.KlineEvent{Code: "BTCUSDT", Region: itick.RegionBA, Interval: itick.OneMinute,
		Kline: itick.Kline{Time: fixedNow, Open: 1, High: 2, Low: 0.5, Close: 1.5, Volume: 3, Turnover: 4.5}},
	itick.DisconnectEvent{Conn: 1, At: fixedNow, Reason: errors.New(hostileText), Symbols: []string{"AAPL$US", "MSFT$US"}},
	itick.GapEvent{Conn: 1, From: fixedNow, To: fixedNow.Add(time.Minute), Reason: errors.New(hostileText), Symbols: []string{"AAPL$US"}},
	itick.ErrorEvent{Conn: 0, Err: errors.New("push: " + hostileText)},
}

// TestEveryEventPrinted checks that every type of stream event the SDK
// has comes out in every format as one line of its own kind, with the
// service's text escaped in the table and exact in CSV and JSON.
func TestEveryEventPrinted(t *testing.T) {
	t.Parallel()
	var have []string
	for _, ev := range sampleEvents {
		have = append(have, reflect.TypeOf(ev).Name())
	}
	sort.Strings(have)
	if diff := cmp.Diff(sdkEventTypes(t), have); diff != "" {
		t.Errorf("sampleEvents does not hold one event of each SDK event type (-SDK +sampleEvents):\n%s", diff)
	}
	for _, ev := range sampleEvents {
		name := reflect.TypeOf(ev).Name()
		kind := text(eventFields(ev)[0].val)
		if want := strings.ToLower(strings.TrimSuffix(name, "Event")); kind != want {
			t.Errorf("%s prints as event %q, want %q", name, kind, want)
		}
		for _, f := range []format{formatTable, formatCSV, formatJSON} {
			var b strings.Builder
			w := newEventWriter(&b, f)
			if err := w.write(eventFields(ev)); err != nil {
				t.Fatalf("%s as %s: %v", name, f, err)
			}
			out := b.String()
			switch f {
			case formatTable:
				if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 || !strings.Contains(out, " "+kind+" ") {
					t.Errorf("%s as a table is not one line of %s: %q", name, kind, out)
				}
				if cs := controls(strings.TrimSuffix(out, "\n")); len(cs) > 0 {
					t.Errorf("%s as a table holds %q raw: %q", name, cs, out)
				}
			case formatCSV:
				recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
				if err != nil || len(recs) != 2 || recs[1][0] != kind || !slices.Equal(recs[0], columnNames(streamColumns)) {
					t.Errorf("%s as CSV: %v, %q", name, err, out)
				}
			case formatJSON:
				var obj map[string]any
				if err := json.Unmarshal([]byte(out), &obj); err != nil || obj["event"] != kind || strings.Count(out, "\n") != 1 {
					t.Errorf("%s as JSON: %v, %q", name, err, out)
				}
			}
		}
	}
}

func columnNames(cs []column) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.name)
	}
	return out
}
