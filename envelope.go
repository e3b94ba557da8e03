package itick

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/d19c4e34/itick/internal/errtext"
	redactpkg "github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/wire"
)

// successCode reports the envelope codes that mean success: 0, and 200 as
// one official demo treats it.
func successCode(c int) bool { return c == 0 || c == http.StatusOK }

// envCode is the envelope's code. It arrives as a number, as a number in a
// string ("0"), or, as third-party clients expect, as the service's
// E-number in a string ("E002"); text is set for the last kind only.
type envCode struct {
	n    int
	text string
}

// setText reads a code sent as a string: a number in it follows the
// integer rule, and anything else is a code of its own such as "E002".
func (c *envCode) setText(s []byte) error {
	s = bytes.TrimSpace(s)
	if len(s) == 0 {
		*c = envCode{}
		return nil
	}
	if (s[0] == '-' || s[0] == '+' || s[0] == '.' || s[0] >= '0' && s[0] <= '9') && wire.IsNumberLiteral(s) {
		f, err := wire.ParseFloat(s)
		if err != nil {
			return err
		}
		n, ok := intFromFloat(f)
		if !ok {
			return errNotInteger
		}
		*c = envCode{n: n}
		return nil
	}
	*c = envCode{text: string(s)}
	return nil
}

// success reports whether the code means success: a number 0 or 200.
func (c *envCode) success() bool { return c.text == "" && successCode(c.n) }

// parseEnvelope applies the success rule to one response and returns its
// data, which aliases body: nil when there is none, "null" when it is null.
// Anything but a 2xx status with a whole envelope whose code is a success
// and whose msg carries no error text is an *APIError.
func parseEnvelope(path string, status int, header http.Header, body []byte, red *redactpkg.Redactor) ([]byte, error) {
	st := getState(body)
	defer putState(st)
	var e scannedEnvelope
	_, err := scanEnvelope[struct{}](st, &e, nil)
	if err := checkEnvelope(path, status, header, oneBlock(body), red, &e, err); err != nil {
		return nil, err
	}
	return e.data, nil
}

// checkEnvelope is the success rule over a read envelope; parseErr is why
// the body could not be read as one.
func checkEnvelope(path string, status int, header http.Header, blocks *bodyBlocks, red *redactpkg.Redactor,
	env *scannedEnvelope, parseErr error) error {
	// The error is built only when the response fails: a success pays for
	// none of the evidence, nor for the body in one slice.
	var apiErr APIError
	fail := func() error {
		e := newAPIError(path, status, header, blocks.bytes(), red)
		e.Code, e.CodeText, e.Message = apiErr.Code, apiErr.CodeText, apiErr.Message
		return e
	}
	if parseErr != nil {
		body := blocks.bytes()
		apiErr.Message = serverText(describeBody(body, decodeDetail(body, body, parseErr, red), red), red)
		return fail()
	}
	if env.hasCode {
		apiErr.Code, apiErr.CodeText = env.code.n, codeText(red.String(env.code.text))
	}
	raw := ""
	switch {
	case env.hasMsg && env.msg != "":
		raw = env.msg
	case env.hasMessage:
		raw = env.message
	}
	apiErr.Message = serverText(raw, red)
	if status < 200 || status > 299 {
		if apiErr.Message == "" && !env.hasCode {
			apiErr.Message = serverText(describeBody(blocks.bytes(), "", red), red)
		}
		return fail()
	}
	if !env.hasCode {
		if apiErr.Message == "" {
			apiErr.Message = "response has no envelope code"
		}
		return fail()
	}
	// The rule reads the whole message: a cut one may have lost the text.
	if !env.code.success() || errtext.Fails(raw) {
		return fail()
	}
	return nil
}

var (
	envelopeFields = wire.NewFields("code", "msg", "message", "data")
	envelopeWants  = []string{"an integer or a text code", "a string", "a string", "JSON"} // by index; unknown keys: the first
)

// scannedEnvelope is the {code, msg, data} wrapper of every response, as
// scanEnvelope reads it; message is what an API gateway sends instead when
// it refuses a request. Nothing in it needs the heap.
type scannedEnvelope struct {
	msg, message       string
	code               envCode
	hasCode            bool
	hasMsg, hasMessage bool
	data               []byte // aliases the body; read only when there is no reader
	parsed             bool   // data was read into the result
	dataErr            error  // why data could not be read
}

// scanEnvelope reads the body at st's scanner as encoding/json would read
// it into a struct of code, msg, message and data: keys match as struct
// fields do, a later duplicate wins, and a value of the wrong type fails
// only a body that is otherwise valid JSON. A non-null data is read with
// read, if set, into the result; e.dataErr is why it could not be.
func scanEnvelope[T any](st *fastState, e *scannedEnvelope, read func(*fastState) (T, error)) (v T, err error) {
	d := &st.d
	if d.Null() {
		return v, d.End()
	}
	var typeErr error
	if c := d.Peek(); c != '{' && c != 0 {
		typeErr = &valueError{off: d.Offset(), want: "an object"}
		_, err = d.Raw()
	} else {
		err = scanMembers(st, e, read, &v, &typeErr)
	}
	if err == nil {
		err = d.End()
	}
	if err == nil {
		err = typeErr
	}
	return v, err
}

// scanMembers reads the envelope's members. A member of the wrong type is
// passed over and kept in typeErr (the first one only).
func scanMembers[T any](st *fastState, e *scannedEnvelope, read func(*fastState) (T, error), v *T, typeErr *error) error {
	d := &st.d
	empty, err := d.Enter('{')
	for more := !empty; more && err == nil; {
		var k []byte
		if k, err = d.Key(); err != nil {
			return err
		}
		i := envelopeFields.Index(k)
		m := d.Mark()
		start := d.Offset()
		switch i {
		case 0:
			err = readCode(d, e)
		case 1:
			e.hasMsg, e.msg, err = readMsg(d)
		case 2:
			e.hasMessage, e.message, err = readMsg(d)
		case 3:
			err = readData(st, e, read, v)
		default:
			err = d.Skip()
		}
		if _, syntax := err.(*wire.Error); err != nil && !syntax {
			refused := refusal(start, err, envelopeWants[max(i, 0)])
			d.Rewind(m)
			if _, err = d.Raw(); err == nil && *typeErr == nil {
				*typeErr = refused
			}
		}
		if err == nil {
			more, err = d.Next('}')
		}
	}
	return err
}

// readData reads the envelope's data into v, keeping its bytes; data the
// reader refuses is kept raw, with why, for a later duplicate to replace.
func readData[T any](st *fastState, e *scannedEnvelope, read func(*fastState) (T, error), v *T) (err error) {
	d := &st.d
	e.parsed, e.dataErr = false, nil
	m := d.Mark()
	if read == nil || d.Peek() == 'n' {
		e.data, err = d.Raw()
		return err
	}
	// With a reader, data's bytes are not kept: the result is, and a
	// refusal's error says where in the body it was.
	e.data = nil
	if *v, e.dataErr = read(st); e.dataErr == nil {
		e.parsed = true
		return nil
	}
	d.Rewind(m)
	return d.Skip()
}

// readCode reads the envelope's code: null leaves it unset.
func readCode(d *wire.Decoder, e *scannedEnvelope) error {
	if e.hasCode = !d.Null(); !e.hasCode {
		return nil
	}
	if d.Peek() != '"' {
		n, err := readInt(d)
		e.code = envCode{n: n}
		return err
	}
	b, err := d.Str()
	if err != nil {
		return err
	}
	return e.code.setText(b)
}

// codeText bounds a text code and replaces its control characters: it is
// the service's, and it ends up in error messages.
func codeText(s string) string {
	s = redactpkg.Truncate(s, 64)
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// readMsg reads a message: null leaves it unset.
func readMsg(d *wire.Decoder) (set bool, s string, err error) {
	if d.Null() {
		return false, "", nil
	}
	b, err := d.Str()
	switch {
	case err != nil:
		return false, "", err
	case string(b) == "ok":
		return true, "ok", nil
	}
	return true, string(b), nil
}

// serverText makes text from the service fit for an error: redact removes
// the token and cuts the text to its bound (redact.MaxText), in that order.
// If the cut took away one of the service's error texts, that text is put
// back at the end, so a long message is classified as the whole of it
// would be.
func serverText(raw string, red *redactpkg.Redactor) string {
	m := red.String(raw)
	if t, lost := errtext.Lost(raw, m); lost {
		return redactpkg.Truncate(m, redactpkg.MaxText-len(t)-3) + " [" + t + "]"
	}
	return m
}

// describeWindow is how much of a body describeBody hands to redact: far
// more than the bound, so a token near the bound is seen whole, without
// copying a body of many megabytes into a string.
const describeWindow = 64 << 10

// describeBody names what was wrong with a body that is not an envelope
// (why, when there is a why), quoting a printable prefix of it. The prefix
// is redacted before it is cut to its bound, so a token the body echoes
// cannot show in part.
func describeBody(body []byte, why string, red *redactpkg.Redactor) string {
	snippet := bytes.TrimSpace(body)
	if len(snippet) > describeWindow {
		snippet = snippet[:describeWindow]
	}
	text := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, red.Bytes(snippet))
	switch {
	case len(body) == 0:
		return "empty response body"
	case why != "":
		return fmt.Sprintf("response is not a JSON envelope (%s): %q", why, text)
	default:
		return fmt.Sprintf("%q", text)
	}
}
