package itick

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	redactpkg "github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/wire"
)

// envelope is the {code, msg, data} wrapper of every response. message is
// what an API gateway sends instead when it refuses a request.
type envelope struct {
	Code    *envCode        `json:"code"`
	Msg     *str            `json:"msg"`
	Message *str            `json:"message"`
	Data    json.RawMessage `json:"data"`
}

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

func (c *envCode) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if err := c.setText([]byte(s)); err != nil {
			return badValue(b, "an integer or a text code")
		}
		return nil
	}
	var n integer
	if err := n.UnmarshalJSON(b); err != nil {
		return err
	}
	*c = envCode{n: int(n)}
	return nil
}

// setText reads a code sent as a string: a number in it follows the
// integer rule, and anything else is a code of its own such as "E002".
func (c *envCode) setText(s []byte) error {
	s = bytes.TrimSpace(s)
	if len(s) == 0 || (s[0] == '-' || s[0] == '+' || s[0] == '.' || s[0] >= '0' && s[0] <= '9') && wire.IsNumberLiteral(s) {
		f, err := parseNumber(s)
		if err != nil {
			return err
		}
		n, ok := intFromFloat(f)
		if !ok {
			return badValue(s, "an integer")
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
// data. Anything but a 2xx status with a whole envelope whose code is a
// success and whose msg carries no error text is an *APIError.
func parseEnvelope(path string, status int, header http.Header, body []byte, red *redactpkg.Redactor) (json.RawMessage, error) {
	var env envelope
	err := json.Unmarshal(body, &env)
	return checkEnvelope(path, status, header, body, red, &env, err)
}

// checkEnvelope is the success rule over a read envelope; parseErr is why
// the body could not be read as one.
func checkEnvelope(path string, status int, header http.Header, body []byte, red *redactpkg.Redactor,
	env *envelope, parseErr error) (json.RawMessage, error) {
	// The error is built only when the response fails: a success pays for
	// none of the evidence.
	var apiErr APIError
	fail := func() error {
		e := newAPIError(path, status, header, body, red)
		e.Code, e.CodeText, e.Message = apiErr.Code, apiErr.CodeText, apiErr.Message
		return e
	}
	if parseErr != nil {
		apiErr.Message = serverText(describeBody(body, decodeDetail(body, body, parseErr, red), red), red)
		return nil, fail()
	}
	if env.Code != nil {
		apiErr.Code, apiErr.CodeText = env.Code.n, codeText(red.String(env.Code.text))
	}
	switch {
	case env.Msg != nil && *env.Msg != "":
		apiErr.Message = serverText(string(*env.Msg), red)
	case env.Message != nil:
		apiErr.Message = serverText(string(*env.Message), red)
	}
	if status < 200 || status > 299 {
		if apiErr.Message == "" && env.Code == nil {
			apiErr.Message = serverText(describeBody(body, "", red), red)
		}
		return nil, fail()
	}
	if env.Code == nil {
		if apiErr.Message == "" {
			apiErr.Message = "response has no envelope code"
		}
		return nil, fail()
	}
	if !env.Code.success() || hasErrorText(apiErr.Message) {
		return nil, fail()
	}
	return env.Data, nil
}

var envelopeFields = wire.NewFields("code", "msg", "message", "data")

// scannedEnvelope is an envelope as scanEnvelope reads it: values and
// presence flags, so that nothing in it needs the heap.
type scannedEnvelope struct {
	msg, message       str
	code               envCode
	hasCode            bool
	hasMsg, hasMessage bool
	data               []byte
	parsed             bool // data was decoded into the scratch
}

// envelope returns e in the form checkEnvelope takes; its pointers point
// into e.
func (e *scannedEnvelope) envelope() envelope {
	env := envelope{Data: e.data}
	if e.hasCode {
		env.Code = &e.code
	}
	if e.hasMsg {
		env.Msg = &e.msg
	}
	if e.hasMessage {
		env.Message = &e.message
	}
	return env
}

// scanEnvelope reads the body at st's scanner into e as encoding/json
// would read it into an envelope; e.data aliases the body. A non-null data
// value is decoded as kind into st's scratch on the way, which e.parsed
// reports.
func scanEnvelope(st *fastState, kind fastKind, e *scannedEnvelope) error {
	d := &st.d
	if d.Null() {
		return d.End()
	}
	empty, err := d.Enter('{')
	if err != nil {
		return err
	}
	for more := !empty; more; {
		k, err := d.Key()
		if err != nil {
			return err
		}
		switch envelopeFields.Index(k) {
		case 0:
			if e.hasCode = !d.Null(); e.hasCode {
				e.code, err = readCode(d)
			}
		case 1:
			e.hasMsg, e.msg, err = readMsg(d)
		case 2:
			e.hasMessage, e.message, err = readMsg(d)
		case 3:
			e.parsed = false
			if kind == kindNone || d.Peek() == 'n' {
				e.data, err = d.Raw()
				break
			}
			// Data of another shape is kept raw: a later duplicate key may
			// replace it, and decodeData reports it if not.
			m := d.Mark()
			if st.parse(kind) == nil {
				e.data, e.parsed = d.Since(m), true
				break
			}
			d.Rewind(m)
			e.data, err = d.Raw()
		default:
			err = d.Skip()
		}
		if err != nil {
			return err
		}
		if more, err = d.Next('}'); err != nil {
			return err
		}
	}
	return d.End()
}

// readCode reads the envelope's code as envCode.UnmarshalJSON does.
func readCode(d *wire.Decoder) (envCode, error) {
	if d.Peek() != '"' {
		n, err := readInt(d)
		return envCode{n: n}, err
	}
	b, err := d.Str()
	if err != nil {
		return envCode{}, err
	}
	var c envCode
	err = c.setText(b)
	return c, err
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

// readMsg reads a *str field: null leaves it unset.
func readMsg(d *wire.Decoder) (set bool, s str, err error) {
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
	return true, str(b), nil
}

// serverText makes text from the service fit for an error: redact removes
// the token and cuts the text to its bound (redact.MaxText), in that order.
// If the cut took away one of the texts APIError.Is and the success rule
// look for, that text is put back at the end, so a long message is
// classified as the whole of it would be.
func serverText(raw string, red *redactpkg.Redactor) string {
	m := red.String(raw)
	if len(raw) <= len(m) {
		return m
	}
	lower := strings.ToLower(raw)
	for _, t := range classTexts {
		if strings.Contains(lower, t) && !strings.Contains(strings.ToLower(m), t) {
			return redactpkg.Truncate(m, redactpkg.MaxText-len(t)-3) + " [" + t + "]"
		}
	}
	return m
}

// classTexts are the texts in a message that decide which sentinel an
// APIError matches, or that the response failed.
var classTexts = []string{
	"e001", "not found this produce",
	"e002", "auth failed", "invalid api key", "unauthorized",
	"e003", "exceeding the maximum",
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
