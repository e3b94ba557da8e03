module github.com/d19c4e34/itick

go 1.24.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/hashicorp/go-retryablehttp v0.7.8
	golang.org/x/time v0.14.0
)

require github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
