package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/examples/internal/exampletest"
	"github.com/d19c4e34/itick/markettest"
)

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// runFor runs the program for a while with the simulator's clock at at,
// and returns its output lines.
func runFor(t *testing.T, at time.Time, args ...string) []string {
	t.Helper()
	t.Setenv("ITICK_TOKEN", "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	args = append(args, "-duration", "1s")
	if err := run(ctx, args, &out, exampletest.At(at), markettest.WithStreamInterval(20*time.Millisecond)); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	exampletest.CheckOffline(t, out.String())
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// quotes counts the quote lines per product, checks every line is a
// quote but the first two, the notes and the summary, and that the
// summary counts them.
func quotes(t *testing.T, lines []string, notes int) map[string]int {
	t.Helper()
	quote := regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{3} (\w+\$\w+) last=\d+(\.\d+)? high=\d+(\.\d+)? low=\d+(\.\d+)? volume=\d+(\.\d+)?$`)
	seen := map[string]int{}
	n := 0
	for _, l := range lines[2+notes : len(lines)-1] {
		m := quote.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("unexpected line %q", l)
			continue
		}
		seen[m[1]]++
		n++
	}
	summary := regexp.MustCompile(`^(\d+) quotes, 0 dropped$`).FindStringSubmatch(lines[len(lines)-1])
	if summary == nil || summary[1] != strconv.Itoa(n) {
		t.Errorf("last line = %q, want the count of the %d quote lines", lines[len(lines)-1], n)
	}
	return seen
}

// TestRunCryptoAtAnyHour: the default products trade at any hour, and
// their prices print with every digit.
func TestRunCryptoAtAnyHour(t *testing.T) {
	for _, at := range []time.Time{exampletest.Weekend, exampletest.Night, exampletest.NewYorkTrading} {
		t.Run(at.Weekday().String()+at.Format("-15:04"), func(t *testing.T) {
			lines := runFor(t, at)
			if lines[1] != "streaming crypto quotes for BTCUSDT$BA, ETHUSDT$BA, DOGEUSDT$BA" {
				t.Errorf("second line = %q", lines[1])
			}
			seen := quotes(t, lines, 0)
			for _, p := range []string{"BTCUSDT$BA", "ETHUSDT$BA", "DOGEUSDT$BA"} {
				if seen[p] == 0 {
					t.Errorf("no quote of %s: %v", p, seen)
				}
			}
			// DOGEUSDT trades around 0.15 and is quoted to five decimals.
			if !regexp.MustCompile(`DOGEUSDT\$BA last=0\.\d{4,}`).MatchString(strings.Join(lines, "\n")) {
				t.Errorf("DOGEUSDT not printed at full precision:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// TestRunStocks: stocks are quoted while their market trades; for a
// market that is closed the program says so.
func TestRunStocks(t *testing.T) {
	args := []string{"-class", "stock", "-symbols", "700$HK,AAPL$US"}
	lines := runFor(t, exampletest.NewYorkTrading, args...)
	if lines[1] != "streaming stock quotes for 700$HK, AAPL$US" {
		t.Errorf("second line = %q", lines[1])
	}
	if !regexp.MustCompile(`^the HK market is closed \(local time 2025-06-04 23:30:00\): its quotes arrive once it opens$`).MatchString(lines[2]) {
		t.Errorf("third line = %q, want a note that Hong Kong is closed", lines[2])
	}
	if seen := quotes(t, lines, 1); seen["AAPL$US"] == 0 || seen["700$HK"] != 0 {
		t.Errorf("quotes per product = %v, want AAPL's only", seen)
	}

	lines = runFor(t, exampletest.Weekend, args...)
	for i, market := range []string{"HK", "US"} {
		if want := "the " + market + " market is closed for the weekend"; !strings.HasPrefix(lines[2+i], want) {
			t.Errorf("line %d = %q, want %q", 2+i, lines[2+i], want)
		}
	}
	if seen := quotes(t, lines, 2); len(seen) != 0 {
		t.Errorf("quotes on a weekend: %v", seen)
	}
}

func TestRunRejectsBadArguments(t *testing.T) {
	usage := exampletest.RunRejectsArguments(t, run, "Usage: stream [flags]\n\nStream subscribes ",
		[]string{"-symbols", "700", "-duration", "1s"}, []string{"-duration", "soon"})
	if !strings.Contains(usage, "-symbols string") {
		t.Errorf("-h printed %q", usage)
	}
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: stream [flags]\n\nStream subscribes ")
}
