package markettest_test

import (
	"strings"
	"testing"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func TestOpenEnvWithoutTokenStartsTheSimulator(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	t.Setenv("ITICK_BASE_URL", "http://127.0.0.1:1") // ignored without a token
	env, err := markettest.OpenEnv([]markettest.Option{markettest.WithPlan(itick.PlanPremium)}, itick.WithPlan(itick.PlanPremium))
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if !env.Offline() || env.Server == nil || env.Client.BaseURL() != env.Server.URL {
		t.Fatalf("offline %v, client at %s, simulator %v", env.Offline(), env.Client.BaseURL(), env.Server)
	}
	codes := make([]string, 50)
	for i := range codes {
		codes[i] = "C" + strings.Repeat("X", i)
	}
	// 50 codes are one request on Premium: the simulator enforces the plan it was given.
	if _, err := env.Client.Stock.Quotes(t.Context(), itick.RegionHK, codes); err != nil {
		t.Fatalf("the client cannot reach the simulator: %v", err)
	}
	if n := len(env.Server.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	env.Close()
	env.Close() // a second Close is harmless
}

func TestOpenEnvWithTokenUsesTheEnvironment(t *testing.T) {
	// A simulator stands in for the real service at ITICK_BASE_URL.
	srv := markettest.NewServer(markettest.WithToken("env-token-123"), markettest.WithPlan(itick.PlanPremium))
	defer srv.Close()
	t.Setenv("ITICK_TOKEN", "env-token-123")
	t.Setenv("ITICK_BASE_URL", srv.URL)
	t.Setenv("ITICK_PLAN", "premium")
	env, err := markettest.OpenEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if env.Offline() || env.Server != nil || env.Client.BaseURL() != srv.URL || env.Client.BatchSize() != 50 {
		t.Fatalf("offline %v, client %v", env.Offline(), env.Client)
	}
	if _, err := env.Client.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests(); len(r) != 1 || !r[0].TokenValid {
		t.Errorf("requests %+v, want one with the environment's token", r)
	}
}

func TestOpenEnvBadEnvironmentIsAnError(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "some-token")
	t.Setenv("ITICK_PLAN", "gold")
	if env, err := markettest.OpenEnv(nil); err == nil || !strings.Contains(err.Error(), "ITICK_PLAN") {
		if env != nil {
			env.Close()
		}
		t.Fatalf("err = %v, want one naming ITICK_PLAN", err)
	}
}
