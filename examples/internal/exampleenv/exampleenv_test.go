package exampleenv

import (
	"bytes"
	"strings"
	"testing"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func TestOpenWithoutTokenStartsTheSimulator(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	t.Setenv("ITICK_BASE_URL", "http://127.0.0.1:1") // ignored without a token
	var buf bytes.Buffer
	env, err := Open(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if !env.Offline() || env.Client.BaseURL() != env.Sim.URL {
		t.Fatalf("offline %v, client at %s, simulator at %v", env.Offline(), env.Client.BaseURL(), env.Sim)
	}
	want := "ITICK_TOKEN is not set: using the offline simulator at " + env.Sim.URL + " (synthetic data).\n"
	if buf.String() != want {
		t.Errorf("printed %q, want %q", buf.String(), want)
	}
	if _, err := env.Client.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Errorf("the client cannot reach the simulator: %v", err)
	}
}

func TestOpenWithTokenUsesTheEnvironment(t *testing.T) {
	// A simulator stands in for the real service at ITICK_BASE_URL.
	srv := markettest.NewServer(markettest.WithToken("env-token-123"), markettest.WithPlan(itick.PlanPremium))
	defer srv.Close()
	t.Setenv("ITICK_TOKEN", "env-token-123")
	t.Setenv("ITICK_BASE_URL", srv.URL)
	t.Setenv("ITICK_PLAN", "premium")
	var buf bytes.Buffer
	env, err := Open(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if env.Offline() || env.Client.BaseURL() != srv.URL || env.Client.BatchSize() != 50 {
		t.Fatalf("offline %v, client %v", env.Offline(), env.Client)
	}
	if got := buf.String(); got != "Using the iTick service at "+srv.URL+" (ITICK_TOKEN is set).\n" || strings.Contains(got, "env-token-123") {
		t.Errorf("printed %q", got)
	}
	if _, err := env.Client.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests(); len(r) != 1 || !r[0].TokenValid {
		t.Errorf("requests %+v, want one with the environment's token", r)
	}
}
