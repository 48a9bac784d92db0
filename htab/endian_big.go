//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package htab

// NativeLittleEndian reports whether the host is little-endian: then a
// 64-bit load of two little-endian 32-bit words gives the 8 bytes as
// binary.LittleEndian reads them. A constant, so that generated code's
// branches on it compile away.
const NativeLittleEndian = false
