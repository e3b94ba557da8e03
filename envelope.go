package itick

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/d19c4e34/itick/internal/transport"
	"github.com/d19c4e34/itick/internal/wire"
)

// envelope is the {code, msg, data} wrapper of every response. message is
// what an API gateway sends instead when it refuses a request.
type envelope struct {
	Code    *integer        `json:"code"`
	Msg     *str            `json:"msg"`
	Message *str            `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// successCode reports the envelope codes that mean success: 0, and 200 as
// one official demo treats it.
func successCode(c int) bool { return c == 0 || c == http.StatusOK }

// parseEnvelope applies the success rule to one response and returns its
// data. Anything but a 2xx status with a whole envelope whose code is a
// success and whose msg carries no error text is an *APIError.
func parseEnvelope(path string, status int, header http.Header, body []byte, redact func(string) string) (json.RawMessage, error) {
	var env envelope
	err := json.Unmarshal(body, &env)
	return checkEnvelope(path, status, header, body, redact, &env, err)
}

// checkEnvelope is the success rule over a read envelope; parseErr is why
// the body could not be read as one.
func checkEnvelope(path string, status int, header http.Header, body []byte, redact func(string) string,
	env *envelope, parseErr error) (json.RawMessage, error) {
	apiErr := APIError{StatusCode: status, Path: path}
	fail := func() error {
		if ra, ok := transport.RetryAfter(header, time.Now()); ok {
			apiErr.RetryAfter = ra
		}
		e := apiErr
		return &e
	}
	if parseErr != nil {
		apiErr.Message = redact(describeBody(body, parseErr))
		return nil, fail()
	}
	if env.Code != nil {
		apiErr.Code = int(*env.Code)
	}
	switch {
	case env.Msg != nil && *env.Msg != "":
		apiErr.Message = redact(string(*env.Msg))
	case env.Message != nil:
		apiErr.Message = redact(string(*env.Message))
	}
	if status < 200 || status > 299 {
		if apiErr.Message == "" && env.Code == nil {
			apiErr.Message = redact(describeBody(body, nil))
		}
		return nil, fail()
	}
	if env.Code == nil {
		if apiErr.Message == "" {
			apiErr.Message = "response has no envelope code"
		}
		return nil, fail()
	}
	if !successCode(apiErr.Code) || hasErrorText(apiErr.Message) {
		return nil, fail()
	}
	return env.Data, nil
}

var envelopeFields = wire.NewFields("code", "msg", "message", "data")

func envelopeField(k []byte) int {
	switch string(k) {
	case "code":
		return 0
	case "msg":
		return 1
	case "message":
		return 2
	case "data":
		return 3
	}
	return envelopeFields.Fold(k)
}

// scannedEnvelope is an envelope as scanEnvelope reads it: values and
// presence flags, so that nothing in it needs the heap.
type scannedEnvelope struct {
	msg, message       str
	intCode            integer
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
		env.Code = &e.intCode
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
		switch envelopeField(k) {
		case 0:
			if e.hasCode = !d.Null(); e.hasCode {
				var n int
				n, err = readInt(d)
				e.intCode = integer(n)
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

// describeBody names what was wrong with a body that is not an envelope,
// quoting a short, printable prefix of it.
func describeBody(body []byte, err error) string {
	const max = 120
	snippet := bytes.TrimSpace(body)
	if len(snippet) > max {
		snippet = snippet[:max]
		for len(snippet) > 0 && !utf8.Valid(snippet) {
			snippet = snippet[:len(snippet)-1]
		}
	}
	text := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, string(snippet))
	switch {
	case len(body) == 0:
		return "empty response body"
	case err != nil:
		return fmt.Sprintf("response is not a JSON envelope (%v): %q", err, text)
	default:
		return fmt.Sprintf("%q", text)
	}
}
