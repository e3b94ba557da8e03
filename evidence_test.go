package itick_test

import (
	"strings"
	"testing"
)

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
