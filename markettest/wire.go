package markettest

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/d19c4e34/itick"
)

// The simulator answers with the models' own wire form, json.Marshal of
// the SDK's types, so a field added to a model is served as it is
// described. Where the service sends less for some classes, the keys it
// leaves out are named below, and taken out of that form.

// quoteLeftOut are the keys a class's quotes are sent without: crypto
// quotes carry no p, ch and chp (indices, funds and forex do, in the
// service's current docs).
var quoteLeftOut = map[Class][]string{Crypto: {"p", "ch", "chp"}}

// tickLeftOut are the keys a class's trades are sent without: te and d
// are sent for stocks only, tu and ts for crypto only.
func tickLeftOut(class Class) []string {
	switch class {
	case Stock:
		return []string{"tu", "ts"}
	case Crypto:
		return []string{"te", "d"}
	}
	return []string{"te", "tu", "ts", "d"}
}

func wireQuote(class Class, q itick.Quote) any { return leaveOut(q, topKeys(quoteLeftOut[class])) }

func wireTick(class Class, t itick.Tick) any { return leaveOut(t, topKeys(tickLeftOut(class))) }

// wireDepth is a book; a futures level with no price is sent without p.
func wireDepth(class Class, b itick.DepthBook) any {
	if class != Future {
		return b
	}
	return leaveOut(b, func(path []string, value []byte) bool {
		return len(path) == 3 && (path[0] == "a" || path[0] == "b") && path[2] == "p" && string(value) == "0"
	})
}

// topKeys leaves out the keys of the object itself.
func topKeys(keys []string) func(path []string, value []byte) bool {
	if len(keys) == 0 {
		return nil
	}
	return func(path []string, _ []byte) bool { return len(path) == 1 && slices.Contains(keys, path[0]) }
}

// leftOut is v's wire form without the members drop names: it is given
// each member's path (keys, and "" for an array's element) and value.
type leftOut struct {
	v    any
	drop func(path []string, value []byte) bool
}

// leaveOut is v's wire form without the members drop names; a nil drop
// leaves v as it is.
func leaveOut(v any, drop func(path []string, value []byte) bool) any {
	if drop == nil {
		return v
	}
	return leftOut{v, drop}
}

func (l leftOut) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(l.v)
	if err != nil {
		return nil, err
	}
	return appendLeftOut(nil, b, nil, l.drop)
}

// appendLeftOut appends the JSON value raw without the members drop
// names; the members it keeps stay in their order.
func appendLeftOut(out, raw []byte, path []string, drop func([]string, []byte) bool) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		return append(out, raw...), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	out = append(out, raw[0])
	first := true
	for dec.More() {
		at := append(slices.Clip(path), "")
		if raw[0] == '{' {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			at[len(at)-1] = tok.(string)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if raw[0] == '{' && drop(at, v) {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		if raw[0] == '{' {
			key, _ := json.Marshal(at[len(at)-1])
			out = append(append(out, key...), ':')
		}
		var err error
		if out, err = appendLeftOut(out, v, at, drop); err != nil {
			return nil, err
		}
	}
	return append(out, raw[len(raw)-1]), nil
}
