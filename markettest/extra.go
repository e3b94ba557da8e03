package markettest

// The single-code forms of quotes, K-lines and depth, and the trades
// endpoints. Each answers from the same Generator call as its batch form,
// so a singular quote equals the batch quote of the same code at the same
// time.

func serveQuote(c *call) (any, error) {
	return wireQuote(c.class, c.gen.Quote(c.class, c.region(), c.code(), c.now)), nil
}

func serveKline(c *call) (any, error) {
	a, err := c.klineArgs()
	if err != nil {
		return nil, err
	}
	return c.klines(c.code(), a), nil
}

func serveTick(c *call) (any, error) {
	return wireTick(c.class, c.gen.Tick(c.class, c.region(), c.code(), c.now)), nil
}

func serveTicks(c *call) (any, error) {
	return perCode(c, func(code string) any {
		return wireTick(c.class, c.gen.Tick(c.class, c.region(), code, c.now))
	}), nil
}
