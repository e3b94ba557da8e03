package stream

import (
	"errors"
	"fmt"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/wire"
)

// Frame is one message as Decode read it: a push (its event, or why it
// could not be decoded) or a reply.
type Frame[E any] struct {
	Push  bool
	Event E
	Reply Reply
	Err   error // a push, or a reply, that could not be read
}

var messageFields = wire.NewFields("code", "resAc", "msg", "data")

var errDataNotObject = errors.New("data is not an object")

// Decode reads one message in one pass: a reply's resAc, code and msg, and
// its data through dec. A message with a resAc, or without data, is a
// reply; so is one whose data names no product, type or candle (the
// connect message carries none). Anything else is a push. Messages are
// routed by resAc, then by what data holds, never by code: code is 1 on
// success here, 0 on the legacy kline push, and absent on a pong.
func Decode[E any](st *codec.State, dec Decoder[E], frame []byte) Frame[E] {
	st.D.Reset(frame)
	var m scanned
	err := scan(st, dec, &m)
	if err == nil {
		err = st.D.End()
	}
	var f Frame[E]
	switch {
	case err != nil:
		f.Push, f.Err = true, fmt.Errorf("itick: stream message: %w", err)
		return f
	case m.reply.ResAc != "" || !m.hasData:
		return asReply[E](&m)
	case m.dataErr != nil:
		f.Push, f.Err = true, fmt.Errorf("itick: stream push: %w", m.dataErr)
		return f
	}
	ev, ok, err := dec.Event()
	if !ok {
		return asReply[E](&m)
	}
	f.Push, f.Event, f.Err = true, ev, err
	return f
}

// scanned is what scan read of a message.
type scanned struct {
	reply    Reply
	replyErr error // code or msg could not be read
	hasData  bool  // data is present and not null
	dataErr  error // data is no push
}

// asReply is the message as a reply, or why it could not be read as one.
func asReply[E any](m *scanned) Frame[E] {
	if m.replyErr != nil {
		return Frame[E]{Err: fmt.Errorf("itick: stream message: %w", m.replyErr)}
	}
	return Frame[E]{Reply: m.reply}
}

// scan reads a message's members. A value of the wrong type for code, msg
// or data is passed over, and counts only for the kind of message it
// turns out to be.
func scan[E any](st *codec.State, dec Decoder[E], m *scanned) error {
	d := &st.D
	empty, err := d.Enter('{')
	if err != nil {
		return err
	}
	for more := !empty; more; {
		k, err := d.Key()
		if err != nil {
			return err
		}
		mark := d.Mark()
		var soft *error // where a refusal of this value is kept
		switch messageFields.Index(k) {
		case 0:
			var c codec.Code
			_, err = codec.ReadCode(d, &c)
			m.reply.Code, m.reply.CodeText, soft = c.N, c.Text, &m.replyErr
		case 1:
			var b []byte
			b, err = d.Str()
			m.reply.ResAc = string(b)
		case 2:
			var b []byte
			b, err = d.Str()
			m.reply.Msg, soft = string(b), &m.replyErr
		case 3:
			m.hasData, m.dataErr, soft = !d.Null(), nil, &m.dataErr
			switch c := d.Peek(); {
			case !m.hasData:
			case c != '{':
				err = errDataNotObject
			default:
				err = dec.Data(st)
			}
		default:
			err = d.Skip()
		}
		if _, syntax := err.(*wire.Error); err != nil && !syntax && soft != nil {
			*soft = err
			d.Rewind(mark)
			err = d.Skip()
		}
		if err != nil {
			return err
		}
		if more, err = d.Next('}'); err != nil {
			return err
		}
	}
	return nil
}
