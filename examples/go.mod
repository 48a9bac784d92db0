module example.com/htabgen/examples

go 1.26.0

tool github.com/htabgen/htabgen/cmd/htabgen

require github.com/htabgen/htabgen v0.0.0

require (
	github.com/cilium/ebpf v0.22.0
	golang.org/x/sys v0.50.0
)

require github.com/dave/jennifer v1.7.1 // indirect

replace github.com/htabgen/htabgen => ../
