package itick_test

import (
	"context"
	"fmt"
	"time"

	"github.com/d19c4e34/itick"
)

func ExampleStockService_Quote() {
	c, stop := exampleClient("stock_quote.json", "your-token")
	defer stop()

	q, err := c.Stock.Quote(context.Background(), itick.RegionHK, "700")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s last %.2f (%+.2f%%), %s\n", q.Symbol, q.Last, q.ChangePercent, q.TradingStatus())
	// Output: 700 last 616.00 (+1.32%), normal
}

func ExampleStockService_Tick() {
	c, stop := exampleClient("stock_tick.json", "your-token")
	defer stop()

	t, err := c.Stock.Tick(context.Background(), itick.RegionHK, "700")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %.2f x %.0f, %s session, %s\n", t.Symbol, t.Last, t.Volume, t.Session, t.Time.Format("2006-01-02 15:04:05 MST"))
	// Output: 700 567.00 x 1134500, regular session, 2025-08-07 08:08:07 UTC
}

func ExampleMarketService_Status() {
	c, stop := exampleClient("market_status.json", "your-token")
	defer stop()

	statuses, err := c.Market.Status(context.Background(), itick.RegionHK)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range statuses {
		fmt.Printf("%s: %s at %s (%s)\n", s.Code, s.State, s.LocalTime, s.Zone)
	}
	// Output: HK: lunch break at 2025-12-12 12:31:05 (Asia/Hong_Kong)
}

func ExampleMarketService_Holidays() {
	c, stop := exampleClient("symbol_holidays.json", "your-token")
	defer stop()

	hs, err := c.Market.Holidays(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hs {
		if h.Market == "US" {
			for _, d := range h.Dates {
				fmt.Println(d.Format("Mon 2 Jan 2006"))
			}
		}
	}
	// Output:
	// Wed 1 Jan 2025
	// Mon 20 Jan 2025
	// Fri 4 Jul 2025
	// Thu 25 Dec 2025
}

func ExampleStockService_IPOs() {
	c, stop := exampleClient("stock_ipo_page1.json", "your-token")
	defer stop()

	for ipo, err := range c.Stock.IPOs(context.Background(), itick.IPOUpcoming, itick.RegionUS) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s (%s) lists %s at %s; subscription closes %s\n", ipo.Company, ipo.Code,
			ipo.ListingDate.Format(time.DateOnly), ipo.Price, ipo.SubscriptionEnd.Format(time.DateOnly))
	}
	// Output: Quarry Point Minerals (QPM) lists 2025-12-22 at 5.00-6.00; subscription closes 2025-12-20
}

func ExampleNewsService_Get() {
	c, stop := exampleClient("news_detail.json", "your-token")
	defer stop()

	a, err := c.News.Get(context.Background(), "8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42", "en")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Title)
	fmt.Println(a.Published.Format("2006-01-02 15:04 MST"), a.Markets, a.Tags)
	// Output:
	// Tencent shares rise as gaming revenue beats estimates
	// 2025-12-12 08:00 UTC [HK US] [Tencent gaming 700]
}
