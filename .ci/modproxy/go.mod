module modproxy

go 1.24.0

require golang.org/x/mod v0.30.0
