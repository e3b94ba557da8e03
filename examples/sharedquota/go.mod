module github.com/d19c4e34/itick/examples/sharedquota

go 1.24.0

require (
	github.com/d19c4e34/itick v0.1.0
	github.com/d19c4e34/itick/redisquota v0.1.0
	github.com/redis/go-redis/v9 v9.22.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	go.uber.org/atomic v1.11.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
	golang.org/x/time v0.14.0 // indirect
)
