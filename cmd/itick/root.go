package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

const rootLong = `itick calls the iTick market-data service from the shell.

The token comes from ITICK_TOKEN; ITICK_BASE_URL and ITICK_PLAN apply too.
The token never appears in any output. Without ITICK_TOKEN a command exits
with code 4 and says so. --sim (or ITICK_SIM=1) asks the bundled simulator
instead, which answers with synthetic data as of ITICK_SIM_TIME (RFC 3339)
or now; a note on stderr says so. Nothing comes from the simulator unless
asked for.

Formats (--format):
  table    aligned columns for reading: the default when stdout is a
           terminal
  csv      a header, then one row per line: the default when stdout is not
           a terminal, so "itick quote stock US AAPL > quotes.csv" is clean
  json     an array with one object per row
  parquet  quote and klines only: typed columns, times as UTC timestamps,
           zstd-compressed, to a file (> quotes.parquet)
  stream writes one event per line: table, csv, or json (one object per line,
  its default when stdout is not a terminal); get always writes JSON.
CSV and JSON carry every number exactly as the service sent it, never
rounded; every time printed is RFC 3339, in UTC but for a market's local
time, which carries its offset. They carry its text exactly too (JSON
writes control characters as \u escapes); the table, the stream's lines and
error messages show control characters escaped (\x1b), so that no text of
the service can act on the terminal.

Exit codes:
  0    success (also stream ended by Ctrl-C, --count or --timeout, and sim
       by Ctrl-C)
  1    network or other failure, --timeout passed, or the output could
       not be written (a full disk, a closed pipe)
  2    usage: the shape of the command line is wrong: an unknown command or
       flag, a flag without its value, a wrong number of arguments
  3    invalid argument: a value the command cannot use, given as an
       argument or as any flag's value (a class, region, code, interval,
       date, number, format, plan or path)
  4    not logged in (ITICK_TOKEN is not set, and --sim was not given), or
       the service refused the token
  5    rate limited: the quota is spent; the message says when to try again
  6    not found, or beyond what the plan allows
  130  interrupted (Ctrl-C) before the work was done`

// app holds what every command shares: the output streams, the global
// flags and the interrupt state.
type app struct {
	stdout, stderr *lineRedactor
	outTTY, errTTY bool
	rawOut         *stdoutWriter // for what must go out as it is: sim's lines
	errFile        *os.File      // the progress bar draws here directly
	sig            *interrupts
	quota          *quotaWatch // under the client, once open made one

	format  format
	plan    string
	timeout time.Duration
	debug   bool
	sim     bool // --sim

	// ran is set once a command's own code starts: an error before that
	// came from parsing the command line.
	ran bool
}

// run executes the command line args and returns the process's exit code.
func run(args []string, stdout, stderr *os.File) int {
	token := strings.TrimSpace(os.Getenv("ITICK_TOKEN"))
	out := &stdoutWriter{f: stdout}
	a := &app{
		stdout:  newLineRedactor(out, token),
		stderr:  newLineRedactor(stderr, token),
		outTTY:  term.IsTerminal(int(stdout.Fd())),
		errTTY:  term.IsTerminal(int(stderr.Fd())),
		rawOut:  out,
		errFile: stderr,
	}
	ignoreClosedPipe()
	a.sig = watchInterrupts(context.Background())
	defer a.sig.stop()

	root := a.rootCommand()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(a.sig.ctx)
	code := a.exit(cmd, err)
	a.stdout.Flush()
	if oe, failed := out.failed(); failed && code == exitOK {
		// Output that failed where nothing reported it: help text, the
		// end of a line.
		a.say(outputMessage(oe, oe.Error()))
		code = exitFailure
	}
	a.stderr.Flush()
	return code
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "itick",
		Short:         "The iTick market-data service from the shell",
		Long:          rootLong,
		Version:       versionLine(),
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			a.ran = true
			if a.timeout < 0 {
				return invalidf("--timeout %s is negative: give how long to wait, or 0 to wait as long as it takes", a.timeout)
			}
			return nil
		},
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(flagError)

	pf := root.PersistentFlags()
	pf.Var(&a.format, "format", "output format: table, csv, json, or parquet for quote and klines (default: table on a terminal, else csv)")
	pf.StringVar(&a.plan, "plan", "", "plan: free, base, professional, premium or enterprise (default: ITICK_PLAN, else base)")
	pf.DurationVar(&a.timeout, "timeout", 0, "give up after this long; 0 waits as long as it takes (default 30s, none for klines ranges, stream and sim)")
	pf.BoolVar(&a.debug, "debug", false, "log every request (path, query, status, duration; never the token) to stderr")
	pf.BoolVar(&a.sim, "sim", false, "ask the bundled simulator, with synthetic data, instead of the service (ITICK_SIM=1 too)")

	root.AddCommand(
		a.quoteCommand(), a.depthCommand(), a.klinesCommand(), a.streamCommand(),
		a.newsCommand(), a.statusCommand(), a.getCommand(), a.versionCommand(), a.simCommand(),
	)
	return root
}

// defaultTimeout bounds one-shot commands when --timeout is not given, so
// a hung network does not hold a script forever.
const defaultTimeout = 30 * time.Second

// commandContext applies --timeout (def when the flag was not given) to ctx.
func (a *app) commandContext(cmd *cobra.Command, def time.Duration) (context.Context, context.CancelFunc) {
	d := def
	if f := cmd.Flags().Lookup("timeout"); f != nil && f.Changed {
		d = a.timeout
	}
	if d <= 0 {
		return context.WithCancel(cmd.Context())
	}
	return context.WithTimeoutCause(cmd.Context(), d, timeoutError{d})
}

// open returns a client for the service, from ITICK_TOKEN, or with --sim
// (ITICK_SIM=1) for a simulator started for this command and closed with
// the Env. Without either it fails with errNotLoggedIn: nothing comes from
// the simulator unless asked for. The simulator enforces the plan the
// client is given, and stands at ITICK_SIM_TIME when that is set.
func (a *app) open() (*markettest.Env, error) {
	a.quota = newQuotaWatch()
	clientOpts := []itick.Option{
		itick.WithUserAgent("itick-cli/" + cliVersion()),
		itick.WithHTTPClient(a.quota.httpClient()),
	}
	var simOpts []markettest.Option
	if name := a.planName(); name != "" {
		p, err := itick.ParsePlan(name)
		if err != nil {
			return nil, fmt.Errorf("plan %q: %w", name, err)
		}
		clientOpts = append(clientOpts, itick.WithPlan(p))
		simOpts = append(simOpts, markettest.WithPlan(p))
	}
	if a.debug {
		h := slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug})
		clientOpts = append(clientOpts, itick.WithLogger(slog.New(h)))
	}
	sim, err := a.simMode()
	if err != nil {
		return nil, err
	}
	if !sim {
		if strings.TrimSpace(os.Getenv("ITICK_TOKEN")) == "" {
			return nil, errNotLoggedIn
		}
		c, err := itick.NewClientFromEnv(clientOpts...)
		if err != nil {
			return nil, err
		}
		return &markettest.Env{Client: c}, nil
	}
	at, err := simTime()
	if err != nil {
		return nil, err
	}
	if !at.IsZero() {
		simOpts = append(simOpts, markettest.WithFixedClock(at))
	}
	srv := markettest.NewServer(simOpts...)
	c, err := srv.Client(clientOpts...)
	if err != nil {
		srv.Close()
		return nil, err
	}
	fmt.Fprintln(a.stderr, "itick: the bundled simulator answers (--sim), with synthetic data")
	return &markettest.Env{Client: c, Server: srv}, nil
}

// errNotLoggedIn ends a command that needs the service when no token is
// set and the simulator was not asked for.
var errNotLoggedIn = notLoggedIn{}

type notLoggedIn struct{}

func (notLoggedIn) Error() string {
	return "not logged in: ITICK_TOKEN is not set; set it to your token (and ITICK_BASE_URL if your account " +
		"has its own host), or pass --sim (or set ITICK_SIM=1) to use the bundled simulator's synthetic data"
}

// simMode reports whether the simulator was asked for: --sim, or ITICK_SIM
// set to a true value (1, true).
func (a *app) simMode() (bool, error) {
	if a.sim {
		return true, nil
	}
	v := strings.TrimSpace(os.Getenv("ITICK_SIM"))
	if v == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, invalidf("ITICK_SIM=%q is not 1 or 0 (true or false)", v)
	}
	return on, nil
}

// simTime is ITICK_SIM_TIME, the instant the simulator's clock stands at;
// zero when unset.
func simTime() (time.Time, error) {
	v := strings.TrimSpace(os.Getenv(markettest.EnvSimTime))
	if v == "" {
		return time.Time{}, nil
	}
	at, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, invalidf("%s=%q is not an RFC 3339 time such as 2025-06-04T15:30:00Z", markettest.EnvSimTime, v)
	}
	return at, nil
}

// dryRunNow is the now a dry run plans with: the simulator's with --sim,
// the real one otherwise.
func (a *app) dryRunNow() (time.Time, error) {
	sim, err := a.simMode()
	if err != nil || !sim {
		return time.Now(), err
	}
	at, err := simTime()
	if err != nil || !at.IsZero() {
		return at, err
	}
	return time.Now(), nil
}

// planInForce is the plan in force: --plan, ITICK_PLAN, else Base.
func (a *app) planInForce() (itick.Plan, error) {
	name := a.planName()
	if name == "" {
		return itick.PlanBase, nil
	}
	p, err := itick.ParsePlan(name)
	if err != nil {
		return p, fmt.Errorf("plan %q: %w", name, err)
	}
	return p, nil
}

// planName is --plan, or ITICK_PLAN without it.
func (a *app) planName() string {
	if a.plan != "" {
		return a.plan
	}
	return strings.TrimSpace(os.Getenv("ITICK_PLAN"))
}

// outFormat is the format rows come out in: --format, or table on a
// terminal and machine otherwise.
func (a *app) outFormat(machine format) format {
	switch {
	case a.format != formatAuto:
		return a.format
	case a.outTTY:
		return formatTable
	default:
		return machine
	}
}

// writer is stdout, for the commands.
func (a *app) writer() io.Writer { return a.stdout }

// withClient opens a client (see open), runs fn under the command's context
// with --timeout applied (def without the flag), and closes the client.
func (a *app) withClient(cmd *cobra.Command, def time.Duration, fn func(ctx context.Context, c *itick.Client) error) error {
	env, err := a.open()
	if err != nil {
		return err
	}
	defer env.Close()
	ctx, cancel := a.commandContext(cmd, def)
	defer cancel()
	return withTimeout(ctx, fn(ctx, env.Client))
}
