module github.com/codemode-go/codemode

go 1.26.8

require (
	github.com/evanw/esbuild v0.28.2
	github.com/fxamacker/cbor/v2 v2.10.0
)

require (
	github.com/aperturerobotics/go-quickjs-wasi-reactor v0.11.0-wasi29-reactor-r9 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/sys v0.44.0 // indirect
)
