package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestGolden runs every command in every format against a simulator on a
// fixed clock and compares its output with testdata/<name>.<format>.
func TestGolden(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	env := serverEnv(srv)
	commands := []struct {
		name    string
		args    []string
		formats []string
	}{
		{"quote", []string{"quote", "stock", "US", "AAPL", "MSFT"}, nil},
		{"quote-crypto", []string{"quote", "crypto", "BA", "BTCUSDT"}, nil},
		{"quote-products", []string{"quote", "stock:US:AAPL", "crypto:BA:BTCUSDT", "forex:GB:EURUSD", "stock:HK:700"}, nil},
		{"depth", []string{"depth", "stock", "HK", "700"}, nil},
		{"depth-crypto", []string{"depth", "crypto", "BA", "BTCUSDT"}, nil},
		{"klines", []string{"klines", "stock", "US", "AAPL", "MSFT", "--interval", "1d", "--limit", "5"}, nil},
		{"klines-range", []string{"klines", "forex", "GB", "EURUSD", "GBPUSD", "--interval", "1d",
			"--from", "2025-05-01", "--to", "2025-05-15"}, nil},
		{"news", []string{"news", "--limit", "3"}, nil},
		{"status", []string{"status", "HK"}, nil},
		{"get", []string{"get", "/symbol/info", "type=stock", "region=HK", "code=700"}, []string{"json"}},
		{"stream", []string{"stream", "stock", "AAPL$US", "--channels", "quote,tick,depth,kline@1m", "--count", "4"}, nil},
	}
	for _, c := range commands {
		formats := c.formats
		if formats == nil {
			formats = []string{"table", "csv", "json"}
		}
		for _, f := range formats {
			t.Run(c.name+"."+f, func(t *testing.T) {
				t.Parallel()
				r := runCLI(t, env, append(c.args, "--format", f)...)
				if r.code != 0 || !quietStderr(c.args, r.stderr) {
					t.Fatalf("exit code %d, stderr %q; want 0 and nothing (a range: its summary)", r.code, r.stderr)
				}
				checkGolden(t, c.name+"."+f, r.stdout)
			})
		}
	}
}

// TestHelp holds the help text, which documents the formats and the exit
// codes, to its golden file, and checks the exit codes it lists are the
// ones the command uses.
func TestHelp(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "help")
	if r.code != 0 {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	checkGolden(t, "help.txt", r.stdout)
	for _, code := range []string{"0", "1", "2", "3", "4", "5", "6", "130"} {
		if !strings.Contains(r.stdout, "\n  "+code+" ") {
			t.Errorf("help lists no exit code %s", code)
		}
	}
}

// TestDefaultFormatToFile checks that with stdout on a file every row
// command writes CSV, byte for byte what --format csv writes, and nothing
// on stderr.
func TestDefaultFormatToFile(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, c := range []struct{ golden, args string }{
		{"quote.csv", "quote stock US AAPL MSFT"},
		{"klines-range.csv", "klines forex GB EURUSD GBPUSD --interval 1d --from 2025-05-01 --to 2025-05-15"},
		{"status.csv", "status HK"},
		{"stream.json", "stream stock AAPL$US --channels quote,tick,depth,kline@1m --count 4"},
	} {
		t.Run(c.golden, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "out")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var errOut strings.Builder
			cmd := itickCmd(t, serverEnv(srv), strings.Fields(c.args)...)
			cmd.Stdout, cmd.Stderr = f, &errOut
			if code := exitCode(t, cmd.Run()); code != 0 || !quietStderr(strings.Fields(c.args), errOut.String()) {
				t.Fatalf("exit code %d, stderr %q; want 0 and nothing (a range: its summary)", code, errOut.String())
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				return // the golden files are TestGolden's to write
			}
			checkGolden(t, c.golden, string(got))
		})
	}
}

// summaryLine is the line a klines range sums itself up with on stderr.
var summaryLine = regexp.MustCompile(`^itick: \d+ requests?, \d+ candles? of \d+ products? in [0-9.]+m?s, quota wait [0-9.]+m?s\n$`)

// quietStderr reports whether stderr is what a successful run of args
// leaves there: nothing, or for a klines range its summary line alone.
func quietStderr(args []string, stderr string) bool {
	if slices.Contains(args, "--from") && !slices.Contains(args, "--dry-run") {
		return summaryLine.MatchString(stderr)
	}
	return stderr == ""
}

// withoutSummary is stderr without the summary line a range begins it
// with, which it must.
func withoutSummary(t *testing.T, stderr string) string {
	t.Helper()
	first, rest, _ := strings.Cut(stderr, "\n")
	if !summaryLine.MatchString(first + "\n") {
		t.Errorf("stderr %q does not begin with a range's summary", stderr)
		return stderr
	}
	return rest
}
