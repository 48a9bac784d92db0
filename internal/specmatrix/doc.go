// Package specmatrix holds TestMatrix, which generates every combination of
// the spec matrix with its tests into one temporary module and runs go test
// over it. It has no code of its own: it is a package so that go test gives
// the matrix, the longest test, a time limit of its own, apart from the
// root package's tests.
package specmatrix
