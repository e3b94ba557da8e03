package itick_test

import (
	"strings"
	"testing"
)

// The tokens test clients send, and the checks that they never show.

// testToken is the token most test clients send. Tests look for it in
// errors, logs and printed values, where it must never appear.
const testToken = "tok-7f3a9c-SECRET-d41d8c"

// faultToken is the token of the clients of the fault, secret and
// validation tests; they look for it where it must not be.
const faultToken = "tok-7f3a9c-do-not-leak"

// Token checks.

// noToken fails if s holds the token or any 4-byte piece of it.
func noToken(t *testing.T, what, s string) {
	t.Helper()
	noPiece(t, what, s, 4)
}

// noPiece fails if s holds any n-byte piece of the token.
func noPiece(t *testing.T, what, s string, n int) {
	t.Helper()
	for i := 0; i+n <= len(testToken); i++ {
		if strings.Contains(s, testToken[i:i+n]) {
			t.Errorf("%s holds %q of the token: %q", what, testToken[i:i+n], s)
			return
		}
	}
}

// leaksToken reports the first 8-byte piece of token found in text.
func leaksToken(text, token string) string {
	for i := 0; i+8 <= len(token); i++ {
		if strings.Contains(text, token[i:i+8]) {
			return token[i : i+8]
		}
	}
	return ""
}
