package errtext

import (
	"strings"
	"testing"
)

func TestFindClassifiesEveryPublishedText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		msg  string
		kind Kind
	}{
		{"E001 not found this produce", NotFound},
		{"Not Found This Produce", NotFound},
		{"E002", Unauthorized},
		{"auth failed", Unauthorized},
		{"Invalid API key in request", Unauthorized},
		{"Unauthorized", Unauthorized},
		{"E003 exceeding the maximum subscription limit", PlanLimit},
		{strings.Repeat("x", 300) + " exceeding the maximum subscription limit", PlanLimit},
	} {
		got, ok := Find(tc.msg)
		if !ok || got.Kind != tc.kind || !Is(tc.msg, tc.kind) || !Fails(tc.msg) {
			t.Errorf("%.40q: Find = %+v, %v; want kind %d, failing", tc.msg, got, ok, tc.kind)
		}
	}
}

func TestNoTextInOrdinaryMessages(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{"", "ok", "null", "success", "subscribe Successfully", "authenticated"} {
		if _, ok := Find(msg); ok || Fails(msg) || Is(msg, Unauthorized) {
			t.Errorf("%q is taken for an error text", msg)
		}
	}
}

// Every text is lower case, or no lower-cased message could carry it, and
// every text fails a reply: a text that classifies an error but lets a
// code-0 reply through would return an error's data as a success.
func TestTableIsConsistent(t *testing.T) {
	t.Parallel()
	for _, x := range Texts {
		if x.Text != strings.ToLower(x.Text) || x.Text == "" || x.Kind == None {
			t.Errorf("entry %+v: texts are lower case, non-empty and of a kind", x)
		}
		if !x.Fails {
			t.Errorf("entry %+v classifies an error but does not fail a reply", x)
		}
	}
}

func TestLostNamesWhatACutTookAway(t *testing.T) {
	t.Parallel()
	full := strings.Repeat("y", 250) + " E003 exceeding the maximum subscription limit"
	if got, ok := Lost(full, full[:240]); !ok || got != "e003" {
		t.Errorf("Lost = %q, %v; want e003", got, ok)
	}
	if got, ok := Lost(full, full); ok {
		t.Errorf("nothing was cut, Lost = %q", got)
	}
	if got, ok := Lost("plain "+strings.Repeat("z", 300), "plain"); ok {
		t.Errorf("no text was lost, Lost = %q", got)
	}
}
