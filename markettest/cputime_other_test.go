//go:build !unix

package markettest_test

import "time"

// cpuTime is the CPU time the process has used, or false where the system
// does not tell, as here.
func cpuTime() (time.Duration, bool) { return 0, false }
