package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Text the service controls (a news title, an error message, a pushed
// symbol) must not drive the terminal it is printed on: an ESC starts a
// control sequence that can rewrite the screen or the window title, a BEL
// rings, a newline forges a row, a bidi override reorders what is read.
// What is meant for reading (tables, stream lines, error lines) shows such
// characters escaped; CSV carries every cell exactly as it was sent, and
// JSON every string, with the dangerous characters written as \u escapes
// that read back as the same text.

// unsafeRune reports whether r could change what a terminal shows beyond
// the character itself: a C0 or C1 control, DEL, a line or paragraph
// separator, or an invisible format character (bidi controls among them).
// The joiners that emoji and many scripts need are kept, as are the tag
// characters of flag emoji.
func unsafeRune(r rune) bool {
	switch {
	case r == 0x200c || r == 0x200d: // zero-width non-joiner and joiner
		return false
	case 0xe0020 <= r && r <= 0xe007f: // tags, in subdivision flags
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// terminalSafe returns s for reading on a terminal: tabs and line breaks
// become spaces, so a value stays on its line, and every other unsafe rune
// and byte that is not UTF-8 is shown escaped, as Go writes it in a string
// literal (\x1b, \x07, \u202e, \xff).
func terminalSafe(s string) string { return escapeUnsafe(s, true) }

// terminalName is terminalSafe for a name, such as a pushed symbol, where a
// tab or line break is no layout but a sign of something wrong: it is
// shown escaped (\n) too.
func terminalName(s string) string { return escapeUnsafe(s, false) }

func escapeUnsafe(s string, breaksAsSpaces bool) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == utf8.RuneError || unsafeRune(r) }) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case breaksAsSpaces && (r == '\t' || r == '\n' || r == '\r'):
			b.WriteByte(' ')
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < utf8.RuneSelf && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// jsonSafe returns JSON text j with every unsafe character inside its
// strings written as a \u escape, a raw control character included (which
// JSON does not allow), and every byte that is not UTF-8 as \ufffd, as a
// JSON decoder reads it. What j's strings hold is unchanged, and so is
// everything outside them.
func jsonSafe(j []byte) []byte {
	var out []byte // nil while nothing needed escaping
	inString, escaped := false, false
	for i := 0; i < len(j); {
		c := j[i]
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(j[i:])
		}
		var esc string
		switch {
		case !inString:
			inString = c == '"'
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			inString = false
		case r == utf8.RuneError && size <= 1:
			esc = `\ufffd`
		case unsafeRune(r):
			esc = jsonEscape(r)
		}
		if esc != "" && out == nil {
			out = append(make([]byte, 0, len(j)+16), j[:i]...)
		}
		switch {
		case esc != "":
			out = append(out, esc...)
		case out != nil:
			out = append(out, j[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return j
	}
	return out
}

// jsonEscape is r as a JSON \u escape, a surrogate pair beyond the BMP.
func jsonEscape(r rune) string {
	if r1, r2 := utf16.EncodeRune(r); r1 != unicode.ReplacementChar {
		return fmt.Sprintf(`\u%04x\u%04x`, r1, r2)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
