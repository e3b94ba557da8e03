// Command itick is the iTick market-data SDK from the shell: quotes, order
// books and candles as a table, CSV or JSON, the live stream one event per
// line, any endpoint as JSON, and the offline simulator for clients written
// in any language. "itick help" lists the commands, formats and exit codes.
//
//	go install github.com/d19c4e34/itick/cmd/itick@latest
package main

import (
	"os"
	_ "time/tzdata" // markets' local times, on a system without a zone database
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
