package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

var statusColumns = cols("code", "region", "open", "state", "holiday", "sessions", "zone", "local_time")

func (a *app) statusCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "status REGION",
		Short: "Say whether a market is open",
		Long: `Say whether the market of a region (US, HK, ...) is open now, in which
session, its trading hours in local time, its time zone and local time (RFC
3339, with the zone's offset).`,
		Example: `  itick status HK
  itick status US --format json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			region, err := parseRegion(args[0])
			if err != nil {
				return err
			}
			f, err := a.rowsFormat(false)
			if err != nil {
				return err
			}
			return a.withClient(cmd, defaultTimeout, func(ctx context.Context, c *itick.Client) error {
				markets, err := c.Market.Status(ctx, region)
				if err != nil {
					return err
				}
				w := newRowWriter(a.writer(), f, statusColumns)
				for _, m := range markets {
					sessions := m.Sessions
					if sessions == nil {
						sessions = []string{}
					}
					if err := w.Write(row{m.Code, m.Region, m.Open, string(m.State), m.Holiday, sessions, m.Zone,
						localTime(m)}); err != nil {
						return err
					}
				}
				return w.Close()
			})
		},
	}
}

// localTime is a market's local time as RFC 3339, with its zone's offset
// ("2025-06-02T22:30:00+08:00"); as the service sent it when it is no time
// of the service's form or the zone is unknown.
func localTime(m itick.MarketStatus) string {
	loc, err := time.LoadLocation(m.Zone)
	if err != nil || m.Zone == "" {
		return m.LocalTime
	}
	t, err := time.ParseInLocation(time.DateTime, m.LocalTime, loc)
	if err != nil {
		return m.LocalTime
	}
	return t.Format(time.RFC3339)
}
