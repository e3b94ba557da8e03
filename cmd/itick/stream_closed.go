package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/d19c4e34/itick"
)

// closedNotice says, when every market of symbols is closed, which and
// when each opens next, since the service pushes nothing for a closed
// market and a silent stream would look broken; "" when one trades or
// cannot be told (a crypto market, a status the service does not give).
// It costs a status request per region, and a holidays request per region
// when all are closed.
func closedNotice(ctx context.Context, c *itick.Client, symbols []string) string {
	regions := map[itick.Region]bool{}
	var order []itick.Region
	for _, s := range symbols {
		parts := strings.Split(s, "$")
		r := itick.Region(strings.ToUpper(strings.TrimSpace(parts[len(parts)-1])))
		if len(parts) > 1 && r != "" && !regions[r] {
			regions[r] = true
			order = append(order, r)
		}
	}
	var opens []string
	for _, r := range order {
		st, err := c.Market.Status(ctx, r)
		if err != nil || len(st) == 0 || st[0].Open {
			return ""
		}
		opens = append(opens, fmt.Sprintf("%s is %s and opens at %s", r, st[0].State, nextOpen(ctx, c, r, st[0])))
	}
	if len(opens) == 0 {
		return ""
	}
	return "every subscribed market is closed, and the service pushes nothing until one opens: " +
		strings.Join(opens, "; ") + " (Ctrl-C stops)"
}

// nextOpen is when market, closed now, next opens: the start of its
// trading hours (the holiday calendar's, else its first session's) on its
// next weekday that is no holiday, in RFC 3339 (UTC and local), or
// "a time the service does not say" when that cannot be worked out.
func nextOpen(ctx context.Context, c *itick.Client, region itick.Region, st itick.MarketStatus) string {
	const unknown = "a time the service does not say"
	loc, err := time.LoadLocation(st.Zone)
	if err != nil || st.Zone == "" {
		return unknown
	}
	now, err := time.ParseInLocation(time.DateTime, st.LocalTime, loc)
	if err != nil {
		now = c.Now().In(loc)
	}
	hours := ""
	closed := map[string]bool{}
	if hs, err := c.Market.HolidaysOf(ctx, region); err == nil {
		for _, h := range hs {
			if hours == "" {
				hours = h.TradingHours
			}
			for _, d := range h.Dates {
				closed[d.Format(time.DateOnly)] = true
			}
		}
	}
	if hours == "" && len(st.Sessions) > 0 {
		hours = st.Sessions[0]
	}
	var hh, mm int
	start, _, _ := strings.Cut(hours, "-")
	if _, err := fmt.Sscanf(strings.TrimSpace(start), "%d:%d", &hh, &mm); err != nil {
		return unknown
	}
	for d := 0; d < 15; d++ {
		day := now.AddDate(0, 0, d)
		at := time.Date(day.Year(), day.Month(), day.Day(), hh, mm, 0, 0, loc)
		if wd := at.Weekday(); wd == time.Saturday || wd == time.Sunday || closed[at.Format(time.DateOnly)] || !at.After(now) {
			continue
		}
		return fmt.Sprintf("%s (%s local)", at.UTC().Format(time.RFC3339), at.Format(time.RFC3339))
	}
	return unknown
}
