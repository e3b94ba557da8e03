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
	apiErr := &APIError{StatusCode: status, Path: path}
	if ra, ok := transport.RetryAfter(header, time.Now()); ok {
		apiErr.RetryAfter = ra
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		apiErr.Message = redact(describeBody(body, err))
		return nil, apiErr
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
		return nil, apiErr
	}
	if env.Code == nil {
		if apiErr.Message == "" {
			apiErr.Message = "response has no envelope code"
		}
		return nil, apiErr
	}
	if !successCode(apiErr.Code) || hasErrorText(apiErr.Message) {
		return nil, apiErr
	}
	return env.Data, nil
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
