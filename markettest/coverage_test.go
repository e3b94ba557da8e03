package markettest_test

import (
	"testing"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func TestTextCodesSendTheENumberAsAString(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithTextCodes(), markettest.WithBatchSize(1))
	cases := []struct {
		name, pathAndQuery, token, want string
	}{
		{"E001", "/market/status?code=ZZ", srv.Token, `{"code":"E001","msg":"E001 not found this produce","data":null}`},
		{"E002", "/stock/quotes?region=US&codes=AAPL", "wrong", `{"code":"E002","msg":"auth failed","data":null}`},
		{"E003", "/stock/quotes?region=US&codes=AAPL,MSFT", srv.Token, `{"code":"E003","msg":"E003 exceeding the maximum subscription limit","data":null}`},
		{"bad request keeps its number", "/stock/quotes?region=US", srv.Token, `{"code":400,"msg":"missing required parameter: codes","data":null}`},
	}
	for _, tc := range cases {
		r := get(t, srv, tc.pathAndQuery, tc.token)
		if r.status != 200 || string(r.body) != tc.want {
			t.Errorf("%s: HTTP %d %s, want 200 %s", tc.name, r.status, r.body, tc.want)
		}
	}
}

func TestRegionsOutsideThePlanAnswerEmptyData(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithRegions(itick.RegionHK))
	for _, pq := range []string{
		"/stock/quote?region=US&code=AAPL",
		"/stock/quotes?region=US&codes=AAPL",
		"/stock/kline?region=us&code=AAPL&kType=8&limit=2",
		"/stock/info?type=stock&region=US&code=AAPL",
	} {
		r := get(t, srv, pq, srv.Token)
		if want := `{"code":0,"msg":null,"data":{}}`; r.status != 200 || string(r.body) != want {
			t.Errorf("%s: HTTP %d %s, want 200 %s", pq, r.status, r.body, want)
		}
	}
	for _, pq := range []string{"/stock/quote?region=hk&code=700", "/market/status?code=US", "/symbol/v2/holidays"} {
		r := get(t, srv, pq, srv.Token)
		env := decodeEnvelope(t, r)
		if string(env.Data) == "{}" {
			t.Errorf("%s: empty data for a covered request", pq)
		}
	}
}
