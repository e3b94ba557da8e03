package itick

import (
	"fmt"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// Plan is an iTick subscription plan. It gives the batch size and the
// default client-side rate limit.
type Plan int

// The plans. PlanBase is the default.
const (
	PlanFree Plan = iota
	PlanBase
	PlanProfessional
	PlanPremium
	PlanEnterprise
)

// planInfo holds each plan's published numbers. Batch sizes come from the
// specification (Free's is not published; Enterprise's is custom). Calls
// per minute come from a community-sourced pricing summary; Enterprise's
// are custom, so its default is Premium's.
var planInfo = [...]struct {
	name          string
	batch         int
	callsByMinute int
}{
	PlanFree:         {"Free", 10, 5},
	PlanBase:         {"Base", 10, 120},
	PlanProfessional: {"Professional", 20, 600},
	PlanPremium:      {"Premium", 50, 1200},
	PlanEnterprise:   {"Enterprise", 50, 1200},
}

func (p Plan) valid() bool { return p >= PlanFree && p <= PlanEnterprise }

// BatchSize is the most codes one request may carry on the plan.
func (p Plan) BatchSize() int {
	if !p.valid() {
		return planInfo[PlanBase].batch
	}
	return planInfo[p].batch
}

// CallsPerMinute is the plan's REST quota the default limiter paces to.
func (p Plan) CallsPerMinute() int {
	if !p.valid() {
		return planInfo[PlanBase].callsByMinute
	}
	return planInfo[p].callsByMinute
}

// String returns the plan's name.
func (p Plan) String() string {
	if !p.valid() {
		return fmt.Sprintf("Plan(%d)", int(p))
	}
	return planInfo[p].name
}

// ParsePlan reads a plan name, case-insensitively ("base", "Premium").
func ParsePlan(s string) (Plan, error) {
	for p := PlanFree; p <= PlanEnterprise; p++ {
		if strings.EqualFold(strings.TrimSpace(s), planInfo[p].name) {
			return p, nil
		}
	}
	return 0, invalidArg("unknown plan %q (want Free, Base, Professional, Premium or Enterprise)", s)
}

// limiter paces requests evenly at the plan's quota with a burst of one, so
// no sliding minute ever holds more calls than the quota.
func (p Plan) limiter() *rate.Limiter {
	every := time.Minute / time.Duration(p.CallsPerMinute())
	return rate.NewLimiter(rate.Every(every), 1)
}
