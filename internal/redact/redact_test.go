package redact

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

const secret = "tok-7f3a9c-SECRET-d41d8c/x y"

// leaks returns the first run of MinFragment bytes of secret found in s.
func leaks(s string) string {
	for i := 0; i+MinFragment <= len(secret); i++ {
		if frag := secret[i : i+MinFragment]; strings.Contains(s, frag) {
			return frag
		}
	}
	return ""
}

func TestStringRemovesEveryForm(t *testing.T) {
	t.Parallel()
	r := New(secret)
	jsonEscaped := ""
	for _, c := range []byte(secret) {
		jsonEscaped += `\u00` + strings.ToUpper(string("0123456789abcdef"[c>>4])) + string("0123456789abcdef"[c&15])
	}
	forms := map[string]string{
		"raw":          secret,
		"query":        url.QueryEscape(secret),
		"path":         url.PathEscape(secret),
		"lower hex":    strings.ToLower(url.PathEscape(secret)),
		"all escaped":  strings.ReplaceAll(url.QueryEscape(secret), "-", "%2D"),
		"json unicode": jsonEscaped,
		"json slash":   strings.ReplaceAll(secret, "/", `\/`),
		"prefix":       secret[:12],
		"suffix":       secret[len(secret)-10:],
		"middle":       secret[5:15],
	}
	for name, form := range forms {
		for _, text := range []string{form, "token " + form + " refused", `{"msg":"` + form + `"}`} {
			got := r.String(text)
			if frag := leaks(got); frag != "" || strings.Contains(got, form) {
				t.Errorf("%s: %q -> %q leaks %q", name, text, got, frag)
			}
			if !strings.Contains(got, Placeholder) {
				t.Errorf("%s: %q -> %q has no placeholder", name, text, got)
			}
		}
	}
	if got := r.String("nothing secret here: tok-7f3 and 9c"); got != "nothing secret here: tok-7f3 and 9c" {
		t.Errorf("short runs changed: %q", got)
	}
}

// TestBoundCutsAfterRedacting: whatever the offset of the secret relative
// to the bound, no part of it survives, and the result is within the bound
// and valid UTF-8.
func TestBoundCutsAfterRedacting(t *testing.T) {
	t.Parallel()
	r := New(secret)
	for _, pad := range []string{"x", "é", "日本"} {
		for off := MaxText - 2*len(secret) - 8; off < MaxText+8; off++ {
			text := strings.Repeat(pad, off)[:off/len(pad)*len(pad)] + secret + strings.Repeat("y", 300)
			got := r.String(text)
			if frag := leaks(got); frag != "" {
				t.Fatalf("offset %d: %q leaks %q", off, got, frag)
			}
			if len(got) > MaxText {
				t.Fatalf("offset %d: %d bytes, over %d", off, len(got), MaxText)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("offset %d: invalid UTF-8 %q", off, got)
			}
			if !strings.HasSuffix(got, Ellipsis) {
				t.Fatalf("offset %d: cut not marked: %q", off, got)
			}
			if b := r.Bytes([]byte(text)); b != got {
				t.Fatalf("offset %d: Bytes %q != String %q", off, b, got)
			}
		}
	}
}

// TestStringRemovesGoQuotedForms: an error that quotes the secret with %q
// or strconv.Quote (a close reason, a URL in a *url.Error) escapes its
// quotes, backslashes and control bytes the Go way.
func TestStringRemovesGoQuotedForms(t *testing.T) {
	t.Parallel()
	const odd = "ab\"cd\\ef\tgh\x01ij\x7fkl"
	r := New(odd)
	quoted := strconv.Quote(odd)
	for _, text := range []string{quoted, fmt.Sprintf("reason = %q", odd), "x " + quoted[9:21] + " y"} {
		got := r.String(text)
		if !strings.Contains(got, Placeholder) {
			t.Errorf("%q -> %q: not redacted", text, got)
		}
		if strings.Contains(got, `cd\\`) || strings.Contains(got, `gh\x01`) {
			t.Errorf("%q -> %q: part of the secret left", text, got)
		}
	}
}

func TestBoundKeepsShortTextAndLimitsLongText(t *testing.T) {
	t.Parallel()
	r := New(secret)
	if got := r.String("auth failed"); got != "auth failed" {
		t.Errorf("got %q", got)
	}
	huge := strings.Repeat("a", 8<<20)
	if got := r.String(huge); len(got) > MaxText || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("8 MiB text became %d bytes", len(got))
	}
	if got := r.Bound(huge[:1<<20], 0); len(got) != 1<<20 {
		t.Errorf("Bound 0 cut to %d bytes", len(got))
	}
	if got := Truncate("abcdef", 5); got != "ab..." {
		t.Errorf("Truncate = %q", got)
	}
	var nilR *Redactor
	if got := nilR.String(secret); got != secret {
		t.Errorf("nil Redactor changed text: %q", got)
	}
	if got := New("").String(secret); got != secret {
		t.Errorf("empty secret changed text: %q", got)
	}
}

// TestBytesReadsOnlyWhatTheBoundNeeds: describing a huge body allocates
// about the bound, not the body.
func TestBytesReadsOnlyWhatTheBoundNeeds(t *testing.T) {
	r := New(secret)
	body := []byte(strings.Repeat(secret+"!", 1<<16))
	allocs := testing.AllocsPerRun(10, func() { _ = r.Bytes(body) })
	if allocs > 4 {
		t.Errorf("%v allocations", allocs)
	}
}

func BenchmarkString(b *testing.B) {
	r := New(secret)
	text := strings.Repeat("response is not a JSON envelope ", 10)
	b.ReportAllocs()
	for b.Loop() {
		_ = r.String(text)
	}
}

func TestHasFold(t *testing.T) {
	r := New("tok-7f3a9c-SECRET-d41d8c")
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"X-Tok-7f3a9c-Secret-D41d8c", true},
		{"x-TOK-7F3A9C", true},
		{"Content-Type", false},
		{"secret-d4", true},
		{"X-Request-Id", false},
	} {
		if got := r.HasFold(tc.in); got != tc.want {
			t.Errorf("HasFold(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if (*Redactor)(nil).HasFold("anything") || New("").HasFold("anything") {
		t.Error("a redactor without a secret finds one")
	}
}

// TestStringRemovesEncodedAndRecasedForms: an echo in another letter case,
// as HTML references, or encoded as a whole (hex, base64 in either
// alphabet, padded or not, alone or inside a longer encoded text) is
// redacted like the secret itself.
func TestStringRemovesEncodedAndRecasedForms(t *testing.T) {
	t.Parallel()
	for _, secret := range []string{secret, "9f86d081884c7d659a2feaa0c55ad015", "s3cr3t-Tok3n_with+slash/and=equals"} {
		r := New(secret)
		html := ""
		for i, c := range []byte(secret) {
			if i%2 == 0 {
				html += fmt.Sprintf("&#%d;", c)
			} else {
				html += fmt.Sprintf("&#x%X;", c)
			}
		}
		forms := map[string]string{
			"upper":           strings.ToUpper(secret),
			"lower":           strings.ToLower(secret),
			"hex":             hex.EncodeToString([]byte(secret)),
			"upper hex":       strings.ToUpper(hex.EncodeToString([]byte(secret))),
			"html references": html,
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			forms["base64 "+enc.EncodeToString([]byte("x"))] = enc.EncodeToString([]byte(secret))
			for _, prefix := range []string{`{"token":"`, `tok=`, `ab`, `a`} {
				whole := enc.EncodeToString([]byte(prefix + secret + `"}`))
				forms["base64 inside, after "+prefix] = whole
			}
		}
		for name, form := range forms {
			got := r.String("echo: " + form + " end")
			if strings.Contains(got, form) || !strings.Contains(got, Placeholder) {
				t.Errorf("%.12s… %s: %q -> %q", secret, name, form, got)
			}
			if got := r.Bound("echo: "+form+" end", 0); strings.Contains(strings.ToLower(got), strings.ToLower(secret[:MinFragment])) {
				t.Errorf("%.12s… %s: a fragment survives in %q", secret, name, got)
			}
		}
	}
}

// TestOrdinaryTextIsLeftAlone: folding case and decoding escapes find
// nothing in text that does not carry the secret.
func TestOrdinaryTextIsLeftAlone(t *testing.T) {
	t.Parallel()
	r := New(secret)
	for _, text := range []string{
		"Invalid API key in request",
		`{"code":0,"msg":"ok","data":{"700":{"s":"700","ld":616}}}`,
		"&#65;&#66; and &amp; and &#x41;",
		"SGVsbG8sIHdvcmxkIQ==",
		"68656c6c6f20776f726c64",
		"TOK-7F3 and 9C",
	} {
		if got := r.String(text); got != text {
			t.Errorf("%q -> %q", text, got)
		}
	}
}

func TestOneByteSecretIsStillRedacted(t *testing.T) {
	t.Parallel()
	if got := New("Q").String("a Q and a q"); got != "a "+Placeholder+" and a "+Placeholder {
		t.Errorf("got %q", got)
	}
}
