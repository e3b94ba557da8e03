package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/d19c4e34/itick"
)

// Exit codes, one per kind of failure, as "itick help" documents them.
const (
	exitOK           = 0
	exitFailure      = 1 // network and anything else
	exitUsage        = 2
	exitInvalid      = 3
	exitUnauthorized = 4
	exitRateLimited  = 5
	exitNotFound     = 6 // not found, or beyond the plan
	exitInterrupted  = 130
)

// usageError is a command line the commands cannot read: its shape, not a
// value in it.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// flagError sorts out the flag parser's errors by the exit codes' rule: a
// value a flag cannot take ("--limit abc", "--format xml") is an invalid
// argument, as a bad value of an argument is; the rest (an unknown flag, a
// flag without its value) is the command line's shape, a usage error.
func flagError(_ *cobra.Command, err error) error {
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		return invalidf("--%s %q: %v", bad.GetFlag().Name, bad.GetValue(), errors.Unwrap(bad))
	}
	return usageError{err.Error()}
}

// invalidf reports a value the command cannot use; it matches
// itick.ErrInvalidArgument, as the SDK's own refusals do.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", itick.ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// timeoutError is the cause of a context that --timeout ended.
type timeoutError struct{ d time.Duration }

func (e timeoutError) Error() string { return fmt.Sprintf("gave up after %s (--timeout)", e.d) }

// interruptedError reports work cut short by Ctrl-C, saying what was kept.
type interruptedError struct{ detail string }

func (e interruptedError) Error() string {
	if e.detail == "" {
		return "interrupted"
	}
	return "interrupted: " + e.detail
}

// outputError is a failure to write stdout: a full disk, a closed pipe.
// It is the output's fault, never the network's.
type outputError struct{ err error }

func (e outputError) Error() string { return e.err.Error() }

func (e outputError) Unwrap() error { return e.err }

// missingError names requested codes the service sent nothing for.
type missingError struct{ codes []string }

func (e missingError) Error() string {
	return fmt.Sprintf("no data for %s", strings.Join(e.codes, ", "))
}

func (e missingError) Is(target error) bool { return target == itick.ErrNotFound }

// missingErr is a missingError for codes, or nil when there are none.
func missingErr(codes []string) error {
	if len(codes) == 0 {
		return nil
	}
	return missingError{codes}
}

// keptError is a failure after which the command still wrote part of what
// was asked for; kept says which part, so that every message, even one
// that leaves out err's text, tells the user what is missing.
type keptError struct {
	err  error
	kept string
}

func (e keptError) Error() string { return e.err.Error() + "; " + e.kept }

func (e keptError) Unwrap() error { return e.err }

// keptNote is "; " and what err's keptError says was written, or "".
func keptNote(err error) string {
	var ke keptError
	if !errors.As(err, &ke) {
		return ""
	}
	return "; " + ke.kept
}

// maxNamed is how many codes a message names before it counts the rest.
const maxNamed = 20

// named lists codes for a message, counting those past maxNamed.
func named(codes []string) string {
	s := strings.Join(codes[:min(len(codes), maxNamed)], " ")
	if len(codes) > maxNamed {
		s += fmt.Sprintf(" and %d more", len(codes)-maxNamed)
	}
	return s
}

// withTimeout turns an error caused by the end of a --timeout context into
// one that says so, keeping the original for errors.Is.
func withTimeout(ctx context.Context, err error) error {
	var te timeoutError
	if err == nil || !errors.As(context.Cause(ctx), &te) {
		return err
	}
	return fmt.Errorf("%w: %w", te, err)
}

// exit prints err as one line on stderr that says what to do, and returns
// the exit code of its kind.
func (a *app) exit(cmd *cobra.Command, err error) int {
	if err == nil {
		return exitOK
	}
	code, msg := a.classify(cmd, err)
	a.say(msg)
	return code
}

// say prints msg on stderr as one line, with what the service's text
// could do to the terminal escaped.
func (a *app) say(msg string) {
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " ")
	fmt.Fprintln(a.stderr, "itick: "+terminalSafe(msg))
}

func (a *app) classify(cmd *cobra.Command, err error) (int, string) {
	help := "itick --help"
	if cmd != nil {
		help = cmd.CommandPath() + " --help"
	}
	var ue usageError
	var ie interruptedError
	var te timeoutError
	var netErr net.Error
	var oe outputError
	text := detail(err)
	quotaHit, quotaWait := a.quota.wait()
	switch {
	case errors.Is(err, itick.ErrInvalidArgument) && !errors.As(err, &ue):
		return exitInvalid, fmt.Sprintf("%s (see %s)", text, help)
	case errors.As(err, &ue) || !a.ran:
		return exitUsage, fmt.Sprintf("%s (see %s)", text, help)
	case errors.Is(err, errNotLoggedIn):
		return exitUnauthorized, text
	case errors.As(err, &ie):
		return exitInterrupted, ie.Error()
	case a.sig.interrupted(): // whatever failed, the interrupt made it fail
		return exitInterrupted, "interrupted"
	case errors.As(err, &oe):
		return exitFailure, outputMessage(oe, text)
	case errors.Is(err, itick.ErrUnauthorized):
		return exitUnauthorized, fmt.Sprintf("the service refused the token (%s): set ITICK_TOKEN to a valid token, "+
			"and ITICK_BASE_URL if your account has its own host", text)
	case errors.Is(err, itick.ErrRateLimited):
		d, ok := itick.RetryAfter(err)
		if !ok {
			d = quotaWait
		}
		if waitable(err) {
			// The request's text says nothing the user can act on.
			return exitRateLimited, fmt.Sprintf("the quota is spent: %s, or raise --timeout to wait for it%s",
				tryAgain(d), keptNote(err))
		}
		cause := text
		var ke keptError
		if errors.As(err, &ke) {
			cause = detail(ke.err) // what was kept comes last
		}
		return exitRateLimited, fmt.Sprintf("the quota is spent (%s): %s%s", cause, tryAgain(d), keptNote(err))
	case errors.Is(err, context.DeadlineExceeded) && quotaHit:
		// The time ran out while the client waited after a 429, one
		// without a Retry-After most often, so the error is the deadline's.
		ran := "the time ran out"
		if errors.As(err, &te) {
			ran = fmt.Sprintf("--timeout %s passed", te.d)
		}
		return exitRateLimited, fmt.Sprintf("the quota is spent: the service answered HTTP 429, and %s while the "+
			"client waited for room: %s%s", ran, tryAgain(quotaWait), keptNote(err))
	case errors.Is(err, itick.ErrInvalidArgument):
		return exitInvalid, fmt.Sprintf("%s (see %s)", text, help)
	case errors.Is(err, itick.ErrPlanLimit):
		return exitNotFound, fmt.Sprintf("beyond what the plan allows (%s): pass --plan with your plan (now %s), "+
			"or ask for fewer codes or symbols", text, a.planShown())
	case errors.Is(err, itick.ErrNotFound):
		return exitNotFound, fmt.Sprintf("%s: check the class, region and codes; the plan may not cover that market", text)
	case errors.As(err, &te):
		return exitFailure, fmt.Sprintf("%s: raise --timeout, or check the network", text)
	case errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded):
		return exitFailure, fmt.Sprintf("cannot reach the service (%s): check the network and ITICK_BASE_URL", text)
	default:
		return exitFailure, text
	}
}

// outputMessage says what went wrong with the output, and what to do;
// text is the whole error's.
func outputMessage(oe outputError, text string) string {
	switch {
	case errors.Is(oe, syscall.EPIPE):
		return fmt.Sprintf("the output was closed before all of it was written (%s)", text)
	case errors.Is(oe, syscall.ENOSPC):
		return fmt.Sprintf("cannot write the output (%s): the disk is full; free some space or write elsewhere", text)
	}
	return fmt.Sprintf("cannot write the output (%s)", text)
}

// sdkMaxRetryAfter is the longest Retry-After the SDK waits out, as its
// documentation says; a 429 asking for more ends the call whatever time
// is left.
const sdkMaxRetryAfter = time.Minute

// waitable reports whether a spent quota ended the call only because the
// wait for room, the service's Retry-After or the plan's pace, would pass
// the deadline: the SDK gives up at once then, and a longer --timeout
// would have waited.
func waitable(err error) bool {
	if !errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var apiErr *itick.APIError
	return !errors.As(err, &apiErr) || apiErr.RetryAfter <= sdkMaxRetryAfter
}

// tryAgain says when a spent quota has room again: after d, when the
// service said.
func tryAgain(d time.Duration) string {
	if d <= 0 {
		return "try again in a minute"
	}
	r := d.Round(time.Second)
	if r < d {
		r += time.Second
	}
	return fmt.Sprintf("try again in %s (at %s)", r, time.Now().Add(r).UTC().Format(time.RFC3339))
}

// planShown names the plan in force for a message.
func (a *app) planShown() string {
	if p, err := itick.ParsePlan(a.planName()); err == nil && a.planName() != "" {
		return p.String()
	}
	return itick.PlanBase.String()
}

// detail is err's text without the SDK's package prefixes, which the
// message's own "itick: " already gives.
func detail(err error) string {
	s := err.Error()
	for strings.HasPrefix(s, "itick: ") {
		s = strings.TrimPrefix(s, "itick: ")
	}
	return strings.ReplaceAll(s, ": itick: ", ": ")
}
