package redisquota

import "github.com/d19c4e34/itick"

// PerMinute returns the calls per minute the plan's documented quota
// allows, for New. It returns 0 for itick.PlanEnterprise, whose quota is
// the contract's, and for a plan it does not know; New refuses 0, so pass
// the contract's figure instead.
func PerMinute(p itick.Plan) int {
	if p < itick.PlanFree || p >= itick.PlanEnterprise {
		return 0
	}
	return p.CallsPerMinute()
}
