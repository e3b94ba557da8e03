package codec

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/d19c4e34/itick/internal/errtext"
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/wire"
)

// Code is the envelope's code. It arrives as a number, as a number in a
// string ("0"), or, as third-party clients expect, as the service's
// E-number in a string ("E002"); Text is set for the last kind only.
type Code struct {
	N    int
	Text string
}

// SetText reads a code sent as a string: a number in it follows the
// integer rule, and anything else is a code of its own such as "E002".
func (c *Code) SetText(s []byte) error {
	s = bytes.TrimSpace(s)
	if len(s) == 0 {
		*c = Code{}
		return nil
	}
	if (s[0] == '-' || s[0] == '+' || s[0] == '.' || s[0] >= '0' && s[0] <= '9') && wire.IsNumberLiteral(s) {
		if _, err := wire.ParseFloat(s); err != nil {
			return err
		}
		n, ok := ExactInt(s)
		if !ok {
			return ErrNotInteger
		}
		*c = Code{N: n}
		return nil
	}
	*c = Code{Text: string(s)}
	return nil
}

// Success reports whether the code means success: a number 0, or 200 as
// one official demo treats it.
func (c Code) Success() bool { return c.Text == "" && (c.N == 0 || c.N == http.StatusOK) }

// Envelope is the {code, msg, data} wrapper of every response, as
// ScanEnvelope reads it; Message is what an API gateway sends instead when
// it refuses a request. Nothing in it needs the heap.
type Envelope struct {
	Code               Code
	HasCode            bool
	Msg, Message       string
	HasMsg, HasMessage bool
	Data               []byte // aliases the body; kept only when there is no reader
	Parsed             bool   // data was read into the result
	DataErr            error  // why data could not be read
}

var (
	envelopeFields = wire.NewFields("code", "msg", "message", "data")
	envelopeWants  = []string{"an integer or a text code", "a string", "a string", "JSON"} // by index; unknown keys: the first
)

// Reader reads one response's data into its result.
type Reader[T any] func(st *State) (T, error)

// ScanEnvelope reads the body at st's scanner as encoding/json would read
// it into a struct of code, msg, message and data: keys match as struct
// fields do, a later duplicate wins, and a value of the wrong type fails
// only a body that is otherwise valid JSON. A non-null data is read with
// read, if set, into the result; e.DataErr is why it could not be.
func ScanEnvelope[T any](st *State, e *Envelope, read Reader[T]) (v T, err error) {
	d := &st.D
	if d.Null() {
		return v, d.End()
	}
	var typeErr error
	if c := d.Peek(); c != '{' && c != 0 {
		typeErr = &ValueError{Off: d.Offset(), Want: "an object"}
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
func scanMembers[T any](st *State, e *Envelope, read Reader[T], v *T, typeErr *error) error {
	d := &st.D
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
			e.HasCode, err = ReadCode(d, &e.Code)
		case 1:
			e.HasMsg, e.Msg, err = ReadMsg(d)
		case 2:
			e.HasMessage, e.Message, err = ReadMsg(d)
		case 3:
			err = readData(st, e, read, v)
		default:
			err = d.Skip()
		}
		if _, syntax := err.(*wire.Error); err != nil && !syntax {
			refused := Refusal(start, err, envelopeWants[max(i, 0)])
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
func readData[T any](st *State, e *Envelope, read Reader[T], v *T) (err error) {
	d := &st.D
	e.Parsed, e.DataErr = false, nil
	m := d.Mark()
	if read == nil || d.Peek() == 'n' {
		e.Data, err = d.Raw()
		return err
	}
	// With a reader, data's bytes are not kept: the result is, and a
	// refusal's error says where in the body it was.
	e.Data = nil
	if *v, e.DataErr = read(st); e.DataErr == nil {
		e.Parsed = true
		return nil
	}
	d.Rewind(m)
	return d.Skip()
}

// ReadCode reads a code into c: null leaves it unset (has is false).
func ReadCode(d *wire.Decoder, c *Code) (has bool, err error) {
	if d.Null() {
		return false, nil
	}
	if d.Peek() != '"' {
		n, err := ReadInt(d)
		*c = Code{N: n}
		return true, err
	}
	b, err := d.Str()
	if err != nil {
		return true, err
	}
	return true, c.SetText(b)
}

// ReadMsg reads a message: null leaves it unset.
func ReadMsg(d *wire.Decoder) (set bool, s string, err error) {
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

// Failure is why a response is not a success: what its error reports.
type Failure struct {
	Code     int    // the envelope's code, when it was a number
	CodeText string // the envelope's code when it was text, bounded
	Message  string // the envelope's msg or the gateway's message, or what was wrong with the body; redacted and bounded
}

// escape returns a copy of f on the heap, so that a Check that succeeds
// allocates nothing.
func (f Failure) escape() *Failure { return &f }

// Check applies the success rule to a response: its HTTP status, its
// envelope as ScanEnvelope read it, and parseErr, why the body could not be
// read as one. Anything but a 2xx status with a whole envelope whose code
// is a Failure. blocks are the body as it was read, joined only to
// describe a body that is not an envelope.
func Check(status int, e *Envelope, parseErr error, blocks [][]byte, red *redact.Redactor) *Failure {
	var f Failure
	if parseErr != nil {
		b := Join(blocks)
		f.Message = ServerText(DescribeBody(b, Detail(b, b, parseErr, red), red), red)
		return f.escape()
	}
	if e.HasCode {
		f.Code, f.CodeText = e.Code.N, CodeText(red.String(e.Code.Text))
	}
	raw := ""
	switch {
	case e.HasMsg && e.Msg != "":
		raw = e.Msg
	case e.HasMessage:
		raw = e.Message
	}
	f.Message = ServerText(raw, red)
	if status < 200 || status > 299 {
		if f.Message == "" && !e.HasCode {
			f.Message = ServerText(DescribeBody(Join(blocks), "", red), red)
		}
		return f.escape()
	}
	if !e.HasCode {
		if f.Message == "" {
			f.Message = "response has no envelope code"
		}
		return f.escape()
	}
	// The rule reads the whole message: a cut one may have lost the text.
	if !e.Code.Success() || errtext.Fails(raw) {
		return f.escape()
	}
	return nil
}

// Join returns a body held in blocks in one slice: the block itself when
// there is one.
func Join(blocks [][]byte) []byte {
	if len(blocks) == 1 {
		return blocks[0]
	}
	return bytes.Join(blocks, nil)
}

// CodeText bounds a text code and replaces its control characters: it is
// the service's, and it ends up in error messages.
func CodeText(s string) string {
	s = redact.Truncate(s, 64)
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// ServerText makes text from the service fit for an error: red removes
// the token and cuts the text to its bound (redact.MaxText), in that
// order. If the cut took away one of the service's error texts, that text
// is put back at the end, so a long message is classified as the whole of
// it would be.
func ServerText(raw string, red *redact.Redactor) string {
	m := red.String(raw)
	if t, lost := errtext.Lost(raw, m); lost {
		return redact.Truncate(m, redact.MaxText-len(t)-3) + " [" + t + "]"
	}
	return m
}

// describeWindow is how much of a body DescribeBody hands to redact: far
// more than the bound, so a token near the bound is seen whole, without
// copying a body of many megabytes into a string.
const describeWindow = 64 << 10

// DescribeBody names what was wrong with a body that is not an envelope
// (why, when there is a why), quoting a printable prefix of it. The prefix
// is redacted before it is cut to its bound, so a token the body echoes
// cannot show in part.
func DescribeBody(body []byte, why string, red *redact.Redactor) string {
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
