module github.com/htabgen/htabgen

go 1.26.0

require (
	github.com/cilium/ebpf v0.22.0
	github.com/dave/jennifer v1.7.1
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/puzpuzpuz/xsync/v4 v4.5.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.50.0
)

require (
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/bits-and-blooms/bloom/v3 v3.7.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
