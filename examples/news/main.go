// Command news pages through the news feed: first by hand with List and
// the cursor each page returns, then with All, which follows the cursors
// itself and stops when the loop breaks.
//
//	go run ./examples/news
package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampleenv"
)

func main() { exampleenv.Main("news", run) }

func run(ctx context.Context, w io.Writer) error {
	env, err := exampleenv.Open(w)
	if err != nil {
		return err
	}
	defer env.Close()
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
