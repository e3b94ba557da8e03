package main

import (
	"bytes"
	"regexp"
	"testing"
)

func TestRunOffline(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var buf bytes.Buffer
	if err := run(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, re := range []string{
		`offline simulator`,
		`1\. A blank code: ErrInvalidArgument\n   itick: invalid argument: `,
		`2\. A wrong token: ErrUnauthorized \(HTTP 401, "Invalid API key in request"\)`,
		`3\. Two 503s and a dropped connection: no error after 4 requests; BTCUSDT last \d+`,
		`4\. Over the quota, no retries: ErrRateLimited, retry after 30s`,
		`5\. A failing chunk: BatchError, 10 codes without results; 20 quotes arrived; missing \[1011 1012 1013 1014 1015 1016 1017 1018 1019 1020\]`,
		`Retrying just the missing codes: no error, 10 more quotes`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	if regexp.MustCompile(`not-a-real-token|markettest-token`).MatchString(out) {
		t.Errorf("a token was printed:\n%s", out)
	}
}
