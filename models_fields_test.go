package itick

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEveryFieldRoundTrips sets every field of every model to a value of
// its own, then requires json.Marshal and json.Unmarshal to bring all of
// them back. A field added to a struct but not to its model's table comes
// back zero and fails here: the table entry is the one place that gives a
// field its wire name, its decoder and its encoder.
func TestEveryFieldRoundTrips(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		new(Quote), new(Tick), new(DepthBook), new(DepthLevel), new(Kline), new(SplitRecord), new(SplitPage),
		new(NewsItem), new(NewsPage), new(NewsArticle), new(StockInfo), new(IPO), new(IPOPage), new(Symbol),
		new(Holiday), new(MarketStatus),
	} {
		n := 0
		fill(reflect.ValueOf(v).Elem(), &n)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		back := reflect.New(reflect.TypeOf(v).Elem())
		if err := json.Unmarshal(b, back.Interface()); err != nil {
			t.Fatalf("%T: %v\n%s", v, err, b)
		}
		if diff := cmp.Diff(v, back.Interface()); diff != "" {
			t.Errorf("%T does not round-trip every field (-set +decoded):\n%s\nwire: %s", v, diff, b)
		}
	}
}

// fill gives every field of v a value no other field has; n counts them.
func fill(v reflect.Value, n *int) {
	*n++
	i := *n
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			// Whole days: the holiday dates are dates, and every time is
			// then whole seconds and milliseconds too.
			v.Set(reflect.ValueOf(time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC)))
			return
		}
		for f := range v.NumField() {
			fill(v.Field(f), n)
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(s.Index(0), n)
		fill(s.Index(1), n)
		v.Set(s)
	case reflect.String:
		v.SetString("v" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
	case reflect.Float64:
		v.SetFloat(float64(i) + 0.25)
	case reflect.Int:
		v.SetInt(int64(2000 + i))
	case reflect.Bool:
		v.SetBool(true)
	default:
		panic("fill: no value for " + v.Type().String())
	}
}
