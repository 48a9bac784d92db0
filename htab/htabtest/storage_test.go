package htabtest

import (
	"reflect"
	"sync/atomic"
	"testing"
)

// The storage types are only reflected on: their fields are exported, so
// that no linter calls them unused.
type storageElem struct {
	Next uint32
	Key  [2]uint32
}

type storageCPU struct {
	M   *storageMap
	CPU int
}

type storageMap struct {
	Elems   []storageElem
	Chunks  [][]atomic.Pointer[[4]storageElem]
	Handles []storageCPU // points to the map: left out as the CPU handles
	Count   atomic.Int64
}

func (m *storageMap) CPU(i int) *storageCPU { return &m.Handles[i] }

type badElem struct {
	Next uint32
	Name string
}

// The storage walk unwraps slices, arrays and atomic.Pointers, leaves out
// the CPU handles, and finds pointers in what they hold.
func TestStorageLeaves(t *testing.T) {
	leaves := map[reflect.Type]bool{}
	mt := reflect.TypeFor[storageMap]()
	for i := range mt.NumField() {
		if f := mt.Field(i); f.Type.Kind() == reflect.Slice && f.Name != "Handles" {
			storageLeaves(f.Type, leaves)
		}
	}
	if want := map[reflect.Type]bool{reflect.TypeFor[storageElem](): true}; !reflect.DeepEqual(leaves, want) {
		t.Errorf("leaves %v, want %v", leaves, want)
	}
	for _, c := range []struct {
		typ  reflect.Type
		want bool
	}{
		{reflect.TypeFor[storageElem](), false},
		{reflect.TypeFor[[0]*int](), false},
		{reflect.TypeFor[[1]*int](), true},
		{reflect.TypeFor[badElem](), true},
		{reflect.TypeFor[storageCPU](), true},
	} {
		if got := hasPointers(c.typ); got != c.want {
			t.Errorf("hasPointers(%v) = %v, want %v", c.typ, got, c.want)
		}
	}
}

// StorageHasNoPointers leaves out the slice of the type the CPU method
// returns a pointer to, and fails on storage with pointers.
func TestStorageHasNoPointers(t *testing.T) {
	kind := refAdapter{kind: refKind{}}
	good := storageAdapter{kind, Info{Struct: reflect.TypeFor[storageMap](), Elem: reflect.TypeFor[storageElem]()}}
	StorageHasNoPointers(t, good)
	bad := storageAdapter{kind, Info{Struct: reflect.TypeFor[struct{ Elems []badElem }](), Elem: reflect.TypeFor[badElem]()}}
	if msg := runFails(t, func(tb testing.TB) { StorageHasNoPointers(tb, bad) }); msg == "" {
		t.Error("storage with a string passed")
	}
}

type storageAdapter struct {
	refAdapter
	info Info
}

func (a storageAdapter) Info() Info { return a.info }
