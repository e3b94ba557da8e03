package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/markettest"
)

// span is the part of a stdouttrace span the test reads.
type span struct {
	Name        string
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ TraceID, SpanID string }
	Attributes  []struct {
		Key   string
		Value struct{ Value any }
	}
	Status struct{ Code string }
}

func (s span) attr(key string) any {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value.Value
		}
	}
	return nil
}

// TestRunOfflinePrintsSpans: each attempt of the call, the refused one and
// its retry, is a client span under the program's own span, printed to
// the program's output, and the token is in none of them.
func TestRunOfflinePrintsSpans(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var buf bytes.Buffer
	// 11:00 on a Wednesday in Hong Kong: its market trades.
	at := time.Date(2025, 6, 4, 3, 0, 0, 0, time.UTC)
	if err := run(t.Context(), nil, &buf, markettest.WithFixedClock(at)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, "offline simulator") {
		t.Errorf("the first line does not say the simulator is used: %q", first)
	}
	var spans []span
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var s span
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("a span line is not JSON: %v\n%s", err, line)
		}
		spans = append(spans, s)
	}
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3 (two attempts and their parent):\n%s", len(spans), out)
	}
	parent := spans[2]
	if parent.Name != "refresh quotes" || parent.Parent.SpanID != "0000000000000000" && parent.Parent.SpanID != "" {
		t.Fatalf("the last span %+v, want the root span \"refresh quotes\"", parent)
	}
	for i, wantStatus := range []float64{503, 200} {
		s := spans[i]
		if s.Name != "HTTP GET" || s.Parent.SpanID != parent.SpanContext.SpanID ||
			s.SpanContext.TraceID != parent.SpanContext.TraceID {
			t.Errorf("span %d %+v is not an HTTP client span under %s", i, s, parent.SpanContext.SpanID)
		}
		if got := s.attr("http.response.status_code"); got != wantStatus {
			t.Errorf("span %d: status %v, want %v", i, got, wantStatus)
		}
		if u, _ := s.attr("url.full").(string); !strings.Contains(u, "/stock/quotes?") {
			t.Errorf("span %d: url.full %q", i, u)
		}
	}
	for _, code := range []string{"700 last ", "9988 last "} {
		if !strings.Contains(out, code) {
			t.Errorf("output lacks %q:\n%s", code, out)
		}
	}
	if strings.Contains(out, markettest.DefaultToken) {
		t.Errorf("the output carries the token:\n%s", out)
	}
}

// TestHelp: -h prints what the program does and is no error; an argument
// it does not take is one. clock: none, both return before a simulator
// starts.
func TestHelp(t *testing.T) {
	var buf bytes.Buffer
	if err := run(t.Context(), []string{"-h"}, &buf); !errors.Is(err, flag.ErrHelp) || !strings.Contains(buf.String(), "Usage: otel") {
		t.Errorf("-h: err %v, printed %q", err, buf.String())
	}
	if err := run(t.Context(), []string{"extra"}, &buf); err == nil || errors.Is(err, flag.ErrHelp) {
		t.Errorf("an extra argument: err %v, want one", err)
	}
}
