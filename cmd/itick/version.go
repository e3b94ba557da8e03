package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

// cliVersion is the version go install recorded, or "devel" for a build
// from a checkout.
func cliVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// versionLine names the command's version, the SDK's and the Go that built it.
func versionLine() string {
	return fmt.Sprintf("itick %s (SDK %s, %s %s/%s)", cliVersion(), itick.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of itick, of the SDK and of Go",
		Args:  exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(a.writer(), versionLine())
			return err
		},
	}
}
