// Package errtext is the one table of the error texts the service sends:
// what each one means, and whether it fails a reply that otherwise looks
// like a success. The client's success rule, its error classification, the
// stream's routing of replies and the bounding of server text all read it,
// so a new text is one line here.
package errtext

import "strings"

// Kind is what an error text says went wrong.
type Kind uint8

// The kinds of error text.
const (
	None         Kind = iota // no known text
	NotFound                 // E001: no such product
	Unauthorized             // E002: the token was refused
	PlanLimit                // E003: beyond what the plan allows
)

// Text is one error text, in lower case; a message carries it when the
// message, lower-cased, contains it.
type Text struct {
	Text string
	Kind Kind
	// Fails makes a reply whose message carries the text a failure even
	// when its HTTP status and envelope code say success: the service is
	// reported to send "code: 0" with "auth failed".
	Fails bool
}

// Texts are the texts the service is known to send (SERVICE.md): the
// published ones with their E-numbers, and what gateways and other
// clients show. Whether an E-number arrives in code or in msg is not
// documented, so both are matched.
var Texts = []Text{
	{"e001", NotFound, true},
	{"not found this produce", NotFound, true},
	{"e002", Unauthorized, true},
	{"auth failed", Unauthorized, true},
	{"invalid api key", Unauthorized, true},
	{"unauthorized", Unauthorized, true},
	{"e003", PlanLimit, true},
	// The published text is "exceeding the maximum subscription limit";
	// its start is what a cut message keeps longest.
	{"exceeding the maximum", PlanLimit, true},
}

// Find returns the first text of the table that msg carries.
func Find(msg string) (Text, bool) {
	if msg == "" {
		return Text{}, false
	}
	lower := strings.ToLower(msg)
	for _, t := range Texts {
		if strings.Contains(lower, t.Text) {
			return t, true
		}
	}
	return Text{}, false
}

// Is reports whether msg carries a text of kind k.
func Is(msg string, k Kind) bool {
	if msg == "" {
		return false
	}
	lower := strings.ToLower(msg)
	for _, t := range Texts {
		if t.Kind == k && strings.Contains(lower, t.Text) {
			return true
		}
	}
	return false
}

// Fails reports whether msg carries a text that fails a reply.
func Fails(msg string) bool {
	if msg == "" {
		return false
	}
	lower := strings.ToLower(msg)
	for _, t := range Texts {
		if t.Fails && strings.Contains(lower, t.Text) {
			return true
		}
	}
	return false
}

// Lost returns a text that full carries and cut, a shortened form of it,
// no longer does: what a bounded message must add back to be classified
// as the whole of it would be.
func Lost(full, cut string) (string, bool) {
	if len(full) <= len(cut) {
		return "", false
	}
	lower, lowerCut := strings.ToLower(full), strings.ToLower(cut)
	for _, t := range Texts {
		if strings.Contains(lower, t.Text) && !strings.Contains(lowerCut, t.Text) {
			return t.Text, true
		}
	}
	return "", false
}
