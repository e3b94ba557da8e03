package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Get reaches /symbol/info, which the SDK does not model, under the same
// limiter, retries and success rule as the typed calls.
func ExampleClient_Get() {
	srv := markettest.NewServer() // stands in for the service
	defer srv.Close()
	c, err := srv.Client()
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	var info struct {
		Code     string `json:"c"`
		Name     string `json:"n"`
		Exchange string `json:"e"`
	}
	q := url.Values{"type": {"stock"}, "region": {"HK"}, "code": {"700"}}
	if err := c.Get(ctx, "/symbol/info", q, &info); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s on %s\n", info.Code, info.Name, info.Exchange)

	// A *json.RawMessage takes the data as it came.
	var raw json.RawMessage
	if err := c.Get(ctx, "/symbol/info", q, &raw); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(raw))

	q.Set("code", "NOPE")
	err = c.Get(ctx, "/symbol/info", q, &info)
	fmt.Println(errors.Is(err, itick.ErrNotFound))
	// Output:
	// 700: Tencent Holdings Ltd. on HKEX
	// {"c":"700","n":"Tencent Holdings Ltd.","t":"stock","e":"HKEX","s":null,"l":"Tencent"}
	// true
}

func ExampleClient_Stats() {
	srv := markettest.NewServer()
	defer srv.Close()
	c, err := srv.Client()
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.FailNext(1, 503) // retried
	if _, err := c.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700", "9988"}); err != nil {
		fmt.Println(err)
		return
	}
	st := c.Stats()
	fmt.Printf("requests %d, attempts %d, retries %d, errors %d\n", st.Requests, st.Attempts, st.Retries, st.Errors)
	// Output: requests 1, attempts 2, retries 1, errors 0
}
