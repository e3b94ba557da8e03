package itick

import (
	"errors"
	"fmt"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/wire"
)

// A connection's pushes are decoded straight from the frame into the
// typed event, with the same per-model decoders REST responses use
// (decode_models.go): a push's data is the model's object plus s, r and
// type. Replies (auth, subscribe, pong) are rare and decoded with
// encoding/json into message.

// pushDecoder decodes the messages of one connection; only its reader
// uses it, so its scratch and interned strings need no lock.
type pushDecoder struct {
	st    *codec.State
	match matcher

	// What a push is read into before it is copied into its event, so
	// that reading it allocates nothing.
	quote Quote
	tick  Tick
	book  DepthBook
	kline Kline
}

func newPushDecoder(match matcher) *pushDecoder {
	return &pushDecoder{st: codec.NewState(), match: match}
}

// msgKind is what a message turned out to be.
type msgKind uint8

const (
	msgPush  msgKind = iota // a push: ev or err is set
	msgReply                // anything else: decode with decodeReply
)

var messageFields = wire.NewFields("code", "resAc", "msg", "data")

// decode reads one message. A message with a resAc, or without data, is a
// reply; so is one whose data names no product, type or candle (the
// connect message carries none). Anything else is a push, decoded here.
func (p *pushDecoder) decode(frame []byte) (msgKind, Event, error) {
	d := &p.st.D
	d.Reset(frame)
	var m scannedMessage
	err := p.scanMessage(&m)
	if err == nil {
		err = d.End()
	}
	switch {
	case err != nil:
		return msgPush, nil, fmt.Errorf("itick: stream message: %w", err)
	case len(m.resAc) != 0 || len(m.data) == 0 || string(m.data) == "null":
		return msgReply, nil, nil
	case m.headErr != nil:
		return msgPush, nil, fmt.Errorf("itick: stream push: %w", m.headErr)
	}
	ev, isPush, err := p.push(m.data, &m.head)
	if err == nil && !isPush {
		return msgReply, nil, nil
	}
	return msgPush, ev, err
}

// scannedMessage is what routes a message: its resAc and data, whose
// routing fields are read on the way.
type scannedMessage struct {
	resAc, data []byte
	head        pushHead
	headErr     error // data is no push: it may still be a reply's
}

func (p *pushDecoder) scanMessage(m *scannedMessage) error {
	d := &p.st.D
	empty, err := d.Enter('{')
	if err != nil {
		return err
	}
	for more := !empty; more; {
		k, err := d.Key()
		if err != nil {
			return err
		}
		switch messageFields.Index(k) {
		case 1:
			m.resAc, err = d.Str()
		case 3:
			err = p.scanData(m)
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
	return nil
}

// scanData reads data's routing fields in the pass that finds where it
// ends; data a push could not be is read again as a plain value.
func (p *pushDecoder) scanData(m *scannedMessage) error {
	d := &p.st.D
	mark := d.Mark()
	m.head, m.headErr = pushHead{}, nil
	if d.Peek() == '{' {
		if m.headErr = p.head(&m.head); m.headErr == nil {
			m.data = d.Since(mark)
			return nil
		}
		d.Rewind(mark)
	}
	var err error
	m.data, err = d.Raw()
	if err == nil && m.headErr == nil && string(m.data) != "null" {
		m.headErr = errors.New("data is not an object")
	}
	return err
}

// replyModel reads a reply: only what routes it.
var replyModel = codec.NewModel(
	codec.Field[message]{Name: "code", Want: "an integer or a text code",
		Dec: func(st *codec.State, m *message, _ string) error {
			_, err := codec.ReadCode(&st.D, &m.Code)
			return err
		}},
	codec.Str("resAc", func(m *message) *string { return &m.ResAc }),
	codec.Str("msg", func(m *message) *string { return &m.Msg }),
)

// decodeReply decodes a message that is not a push.
func decodeReply(frame []byte) (*message, error) {
	var m message
	if err := replyModel.Unmarshal(frame, &m); err != nil {
		return nil, fmt.Errorf("itick: stream message: %w", err)
	}
	return &m, nil
}

// pushHead is what routes a push: its product and type, and the legacy
// kline form's kType and candle.
type pushHead struct {
	s, r, typ []byte
	t         float64
	k         Kline
	hasK      bool
}

var pushFields = wire.NewFields("s", "r", "type", "t", "k")

// head reads a push's routing fields, skipping the model's.
func (p *pushDecoder) head(h *pushHead) error {
	d := &p.st.D
	empty, err := d.Enter('{')
	if err != nil {
		return err
	}
	for more := !empty; more; {
		key, err := d.Key()
		if err != nil {
			return err
		}
		switch pushFields.Index(key) {
		case 0:
			h.s, err = d.Str()
		case 1:
			h.r, err = d.Str()
		case 2:
			h.typ, err = d.Str()
		case 3:
			h.t, err = d.Num()
		case 4:
			h.hasK = !d.Null()
			if h.hasK {
				p.kline = Kline{}
				err = klineModel.Into(p.st, &p.kline, "")
				h.k = p.kline
			}
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
	return nil
}

// push decodes a push's data, routed by its type: a kline push by its k,
// in the legacy form, and any other by data.type. The event names the
// product as it was subscribed. isPush is false for data that names no
// product, type or candle.
func (p *pushDecoder) push(data []byte, h *pushHead) (ev Event, isPush bool, err error) {
	d := &p.st.D
	if len(h.s) == 0 && len(h.typ) == 0 && !h.hasK {
		return nil, false, nil
	}
	raw := p.st.Str(h.s, "")
	sym := pushedSymbol(raw, Region(p.st.Str(h.r, "")))
	if p.match != nil {
		if sub, ok := p.match(sym); ok {
			sym = sub
		}
	}
	code, reg, exch := sym.code, sym.region, sym.exchange
	if h.hasK && len(h.typ) == 0 {
		kt := Interval(h.t)
		if float64(kt) != h.t || !kt.valid() {
			return nil, true, fmt.Errorf("itick: stream kline push for %s: bad kType %v", code, h.t)
		}
		return KlineEvent{Code: code, Region: reg, Exchange: exch, Interval: kt, Kline: h.k}, true, nil
	}
	typ := Channel(p.st.Str(h.typ, ""))
	d.Reset(data)
	switch typ {
	case ChannelQuote:
		p.quote = Quote{}
		q := &p.quote
		if err = quoteModel.Into(p.st, q, raw); err == nil {
			q.Symbol = code
			ev = QuoteEvent{Code: code, Region: reg, Exchange: exch, Quote: *q}
		}
	case ChannelTick:
		p.tick = Tick{}
		t := &p.tick
		if err = tickModel.Into(p.st, t, raw); err == nil {
			t.Symbol = code
			ev = TickEvent{Code: code, Region: reg, Exchange: exch, Tick: *t}
		}
	case ChannelDepth:
		p.book = DepthBook{}
		b := &p.book
		if err = readBook(p.st, b, raw); err == nil {
			b.Symbol = code
			ev = DepthEvent{Code: code, Region: reg, Exchange: exch, Depth: *b}
		}
	default:
		iv := typ.klineInterval()
		if iv == 0 {
			return nil, true, fmt.Errorf("itick: stream push for %s: unknown type %q", code, string(typ))
		}
		p.kline = Kline{}
		if err = klineModel.Into(p.st, &p.kline, ""); err == nil {
			ev = KlineEvent{Code: code, Region: reg, Exchange: exch, Interval: iv, Kline: p.kline}
		}
	}
	if err != nil {
		return nil, true, fmt.Errorf("itick: stream %s push for %s: %w", string(typ), code, err)
	}
	return ev, true, nil
}

// decodePushJSON decodes one push's data on its own.
func decodePushJSON(data []byte, match matcher) (Event, error) {
	p := newPushDecoder(match)
	p.st.D.Reset(data)
	var h pushHead
	err := p.head(&h)
	if err == nil {
		err = p.st.D.End()
	}
	if err != nil {
		return nil, fmt.Errorf("itick: stream push: %w", err)
	}
	ev, isPush, err := p.push(data, &h)
	if err == nil && !isPush {
		return nil, fmt.Errorf("itick: stream push names no product, type or candle")
	}
	return ev, err
}
