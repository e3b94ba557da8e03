// Command news pages through the news feed: first by hand with List and
// the cursor each page returns, then with All, which follows the cursors
// itself and stops when the loop breaks.
//
//	go run ./examples/news
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return // -h: the usage is printed
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "news:", err)
		os.Exit(1)
	}
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("news", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: news

News pages through the news feed, by hand with the cursor and then with
an iterator; from the iTick service when ITICK_TOKEN is set and from an
offline simulator otherwise.
`)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	env, err := markettest.OpenEnv(sim)
	if err != nil {
		return err
	}
	defer env.Close()
	if env.Offline() {
		fmt.Fprintf(w, "ITICK_TOKEN is not set: using the offline simulator at %s (synthetic data).\n", env.Server.URL)
	} else {
		fmt.Fprintf(w, "Using the iTick service at %s (ITICK_TOKEN is set).\n", env.Client.BaseURL())
	}
	c := env.Client
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	q := itick.NewsQuery{Market: "stock", Lang: "en", Limit: 5}
	for page := 1; page <= 2; page++ {
		p, err := c.News.List(ctx, q)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nPage %d: %d items, more: %v, next cursor: %q\n", page, p.Count, p.HasMore, p.NextCursor)
		if err := printItems(w, p.Items); err != nil {
			return err
		}
		if !p.HasMore {
			break
		}
		q.Cursor = p.NextCursor
	}

	// All does the same paging; breaking out of the loop stops fetching.
	fmt.Fprintln(w, "\nThe 12 latest headlines, through All:")
	var items []itick.NewsItem
	for it, err := range c.News.All(ctx, itick.NewsQuery{Market: "stock", Lang: "en", Limit: 5}) {
		if err != nil {
			return err
		}
		items = append(items, it)
		if len(items) == 12 {
			break
		}
	}
	return printItems(w, items)
}

func printItems(w io.Writer, items []itick.NewsItem) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PUBLISHED (UTC)\tPROVIDER\tTITLE\t")
	for _, it := range items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", it.Published.UTC().Format("2006-01-02 15:04:05"), it.Provider, it.Title)
	}
	return tw.Flush()
}
