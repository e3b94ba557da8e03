package itick

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/quota"
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
// per minute and the stream quota (products at once, connections) come
// from a community-sourced pricing summary; Enterprise's are custom, so
// its defaults are Premium's.
var planInfo = [...]planNumbers{
	PlanFree:         {"Free", 10, 5, 3, 1},
	PlanBase:         {"Base", 10, 120, 200, 3},
	PlanProfessional: {"Professional", 20, 600, 500, 6},
	PlanPremium:      {"Premium", 50, 1200, 2000, 12},
	PlanEnterprise:   {"Enterprise", 50, 1200, 2000, 12},
}

type planNumbers struct {
	name          string
	batch         int
	callsByMinute int
	streamSymbols int
	streamConns   int
}

func (p Plan) valid() bool { return p >= PlanFree && p <= PlanEnterprise }

// info returns the plan's numbers; an unknown plan has Base's.
func (p Plan) info() *planNumbers {
	if !p.valid() {
		p = PlanBase
	}
	return &planInfo[p]
}

// BatchSize is the most codes one request may carry on the plan.
func (p Plan) BatchSize() int { return p.info().batch }

// CallsPerMinute is the plan's REST quota the default limiter paces to.
func (p Plan) CallsPerMinute() int { return p.info().callsByMinute }

// String returns the plan's name.
func (p Plan) String() string {
	if !p.valid() {
		return fmt.Sprintf("Plan(%d)", int(p))
	}
	return planInfo[p].name
}

// ParsePlan reads a plan: its name (Free, Base, Professional, Premium or
// Enterprise) in any case, with or without a "Plan" prefix in any case
// ("premium", "PlanBase"), or its number from 0 (Free) to 4 (Enterprise);
// spaces around it are ignored. Anything else is ErrInvalidArgument.
func ParsePlan(s string) (Plan, error) {
	name := strings.TrimSpace(s)
	if len(name) > 4 && strings.EqualFold(name[:4], "plan") {
		name = name[4:]
	}
	if n, err := strconv.Atoi(name); err == nil && Plan(n).valid() {
		return Plan(n), nil
	}
	for p := PlanFree; p <= PlanEnterprise; p++ {
		if strings.EqualFold(name, planInfo[p].name) {
			return p, nil
		}
	}
	return 0, invalidArg("unknown plan %q (want Free, Base, Professional, Premium or Enterprise)", s)
}

// quotaMargin widens the client's minute a little, so that requests
// arriving late by network jitter cannot put a server's own window over the
// quota.
const quotaMargin = time.Second

// limiter lets the plan's whole per-minute quota go at once and never more
// in any minute, the way the service counts it.
func (p Plan) limiter() Limiter {
	return quota.New(p.CallsPerMinute(), time.Minute+quotaMargin)
}
