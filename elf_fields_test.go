package htabgen

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/htabgen/htabgen/internal/kernel"
)

// fieldTypes are the map types of valueShapes' verdicts, in order.
var fieldTypes = []ebpf.MapType{ebpf.Hash, ebpf.PerCPUHash, ebpf.LRUHash, ebpf.LRUCPUHash, ebpf.BloomFilter}

// A valueShape is a map value's BTF type and the verdicts valueVerdict gives
// it in each of fieldTypes: P plain bytes, M managed by the kernel, R
// refused by the kernel (EOPNOTSUPP), B refused by the kernel's parser of
// special fields.
type valueShape struct {
	name     string
	value    btf.Type
	size     uint32
	verdicts string
}

func valueShapes() []valueShape {
	u32 := &btf.Int{Name: "u32", Size: 4, Encoding: btf.Unsigned}
	u64 := &btf.Int{Name: "u64", Size: 8, Encoding: btf.Unsigned}
	special := func(name string, size uint32) *btf.Struct {
		return &btf.Struct{Name: name, Size: size, Members: []btf.Member{{Name: "raw", Type: &btf.Array{Type: u32, Index: u32, Nelems: size / 4}}}}
	}
	lock, timer := special("bpf_spin_lock", 4), special("bpf_timer", 16)
	// in is a struct of size bytes whose first member has type t.
	in := func(t btf.Type, size uint32) *btf.Struct {
		return &btf.Struct{Name: "v", Size: size, Members: []btf.Member{{Name: "f", Type: t}}}
	}
	two := func(a, b btf.Type, size uint32) *btf.Struct {
		return &btf.Struct{Name: "v", Size: size, Members: []btf.Member{{Name: "a", Type: a}, {Name: "b", Type: b, Offset: btf.Bits(size / 2 * 8)}}}
	}
	array := func(t btf.Type, n uint32) *btf.Array { return &btf.Array{Type: t, Index: u32, Nelems: n} }
	tagged := func(tags ...string) *btf.Pointer {
		var t btf.Type = &btf.Struct{Name: "task_struct"}
		for _, tag := range tags {
			t = &btf.TypeTag{Value: tag, Type: t}
		}
		return &btf.Pointer{Target: t}
	}
	union := func(t btf.Type, size uint32) *btf.Union {
		return &btf.Union{Name: "u", Size: size, Members: []btf.Member{{Name: "f", Type: t}, {Name: "raw", Type: u32}}}
	}
	// nested is a lock in n structs, and arrays one in n-1 arrays of one
	// in a struct. The kernel refuses BTF whose chains of types are over
	// 32 long (MAX_RESOLVE_DEPTH).
	nested := func(n int) btf.Type {
		var t btf.Type = lock
		for range n {
			t = in(t, 8)
		}
		return t
	}
	arrays := func(n int) btf.Type {
		var t btf.Type = lock
		for range n - 1 {
			t = array(t, 1)
		}
		return in(t, 8)
	}
	return []valueShape{
		{"no BTF", nil, 8, "PPPPP"},
		{"plain struct", two(u32, u32, 8), 8, "PPPPP"},
		{"plain pointer and look-alike struct", two(&btf.Pointer{Target: lock}, special("my_lock", 4), 16), 16, "PPPPP"},

		{"lock", in(lock, 8), 8, "MRRRR"},
		{"lock in a nested struct", in(in(lock, 8), 8), 8, "MRRRR"},
		{"lock in an array of one", in(array(lock, 1), 8), 8, "MRRRR"},
		{"lock in 8 structs", nested(8), 8, "MRRRR"},
		{"lock in 40 structs", nested(40), 8, "BBBBB"},
		{"lock in 8 arrays", arrays(9), 8, "MRRRR"},
		{"lock in 40 arrays", arrays(41), 8, "BBBBB"},
		{"value a typedef of a struct with a lock", &btf.Typedef{Name: "v_t", Type: in(lock, 8)}, 8, "MRRRR"},
		{"value a const struct with a lock", &btf.Const{Type: in(lock, 8)}, 8, "MRRRR"},
		{"res spin lock", in(special("bpf_res_spin_lock", 4), 8), 8, "MRRRR"},
		{"lock and timer", two(lock, timer, 32), 32, "MRRRR"},

		{"lock behind a typedef", in(&btf.Typedef{Name: "lock_t", Type: lock}, 8), 8, "PPPPP"},
		{"lock behind volatile", in(&btf.Volatile{Type: lock}, 8), 8, "PPPPP"},
		{"lock in a typedef of a struct", in(&btf.Typedef{Name: "s_t", Type: in(lock, 4)}, 8), 8, "PPPPP"},
		{"lock in a union", in(union(lock, 4), 8), 8, "PPPPP"},
		{"value a union with a lock", union(lock, 8), 8, "PPPPP"},
		{"value the lock itself", lock, 4, "PPPPP"},
		{"lock in an array of none", two(array(lock, 0), u64, 16), 16, "PPPPP"},

		{"timer", in(timer, 16), 16, "MRMRR"},
		{"timer in an array of one struct", in(array(in(timer, 16), 1), 16), 16, "MRMRR"},
		{"wq", in(special("bpf_wq", 16), 16), 16, "MRMRR"},
		{"task work", in(special("bpf_task_work", 8), 8), 8, "MRMRR"},
		{"timer in a union", in(union(timer, 16), 16), 16, "PPPPP"},
		{"list node", in(special("bpf_list_node", 24), 24), 24, "PPPPP"},
		{"rb node", in(special("bpf_rb_node", 32), 32), 32, "PPPPP"},

		{"refcount", in(special("bpf_refcount", 4), 8), 8, "MMMMR"},
		{"kptr", in(tagged("kptr"), 8), 8, "MMMMR"},
		{"kptr_untrusted", in(tagged("kptr_untrusted"), 8), 8, "MMMMR"},
		{"percpu_kptr", in(tagged("percpu_kptr"), 8), 8, "MMMMR"},
		{"volatile kptr", in(&btf.Volatile{Type: tagged("kptr")}, 8), 8, "MMMMR"},
		{"array of two kptrs", in(array(tagged("kptr"), 2), 16), 16, "MMMMR"},
		{"kptr to a typedef of a struct", in(&btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: &btf.Typedef{Name: "t_t", Type: &btf.Struct{Name: "task_struct"}}}}, 8), 8, "MMMMR"},
		{"lock and two structs of a kptr", two(lock, array(in(tagged("kptr"), 8), 2), 32), 32, "MRRRR"},
		{"uptr", in(tagged("uptr"), 8), 8, "RRRRR"},
		{"const kptr", in(&btf.Const{Type: tagged("kptr")}, 8), 8, "PPPPP"},
		{"kptr behind a typedef", in(&btf.Typedef{Name: "p_t", Type: tagged("kptr")}, 8), 8, "PPPPP"},
		{"kptr in a union", in(union(tagged("kptr"), 8), 8), 8, "PPPPP"},

		{"array of two locks", in(array(lock, 2), 8), 8, "BBBBB"},
		{"array of two timers", in(array(timer, 2), 32), 32, "BBBBB"},
		{"array of two structs of a timer", in(array(in(timer, 16), 2), 32), 32, "BBBBB"},
		{"lock and an array of two timers", two(lock, array(timer, 2), 64), 64, "BBBBB"},
		{"pointer tagged user", in(tagged("user"), 8), 8, "BBBBB"},
		{"lock and a pointer tagged user", two(lock, tagged("user"), 16), 16, "BBBBB"},
		{"pointer with two tags", in(tagged("kptr", "kptr"), 8), 8, "BBBBB"},
		{"kptr to an int", in(&btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: u32}}, 8), 8, "BBBBB"},
		{"lock and a kptr to an int", two(lock, &btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: u32}}, 16), 16, "BBBBB"},
	}
}

// shapeSpec is the map spec of a map of type t whose value has the shape v.
func shapeSpec(t ebpf.MapType, v valueShape) *ebpf.MapSpec {
	ms := &ebpf.MapSpec{Type: t, KeySize: 4, ValueSize: v.size, MaxEntries: 4, Value: v.value}
	if v.value != nil {
		ms.Key = &btf.Int{Name: "u32", Size: 4, Encoding: btf.Unsigned}
	}
	if t == ebpf.BloomFilter {
		ms.KeySize, ms.Key = 0, nil
	}
	return ms
}

var verdictLetters = map[verdict]byte{plainValue: 'P', managedValue: 'M', refusedValue: 'R', badValue: 'B'}

// TestValueVerdicts: a map value is plain bytes, or holds special fields the
// kernel manages or refuses, where the kernel finds them.
func TestValueVerdicts(t *testing.T) {
	for _, v := range valueShapes() {
		got := make([]byte, len(fieldTypes))
		for i, mt := range fieldTypes {
			vd, reason := valueVerdict(shapeSpec(mt, v))
			got[i] = verdictLetters[vd]
			assert.Equal(t, vd == plainValue, reason == "", "%s in a %v map: a reason exactly when the value is not plain (%q)", v.name, mt, reason)
		}
		assert.Equal(t, v.verdicts, string(got), v.name)
	}
}

// TestValueVerdictsAreTheKernels: the verdicts of TestValueVerdicts are what
// the running kernel does with such maps. It creates each; a value it
// manages comes back changed from an update of all ones, a plain one as it
// went in.
func TestValueVerdictsAreTheKernels(t *testing.T) {
	kernel.Require(t)
	for _, v := range valueShapes() {
		for i, mt := range fieldTypes {
			want := v.verdicts[i]
			km, err := kernel.NewFromSpec(shapeSpec(mt, v))
			if err != nil {
				switch want {
				case 'R':
					assert.ErrorIs(t, err, unix.EOPNOTSUPP, "%s in a %v map", v.name, mt)
				case 'B':
					assert.False(t, errors.Is(err, unix.EOPNOTSUPP), "%s in a %v map: %v", v.name, mt, err)
				default:
					t.Errorf("%s in a %v map: want %c, the kernel refuses it: %v", v.name, mt, want, err)
				}
				continue
			}
			got := byte('P')
			if mt != ebpf.BloomFilter { // a bloom filter holds no value to read back
				ones := bytes.Repeat([]byte{0xff}, int(v.size)*cpus(mt))
				key := make([]byte, 4)
				require.NoError(t, km.Update(key, ones, 0))
				back, err := km.Lookup(key)
				require.NoError(t, err)
				if !bytes.Equal(back, ones) {
					got = 'M'
				}
			}
			require.NoError(t, km.Close())
			if want == 'B' {
				assert.Equal(t, byte('P'), got, "%s in a %v map: the kernel takes it, as plain bytes or not at all", v.name, mt)
			} else {
				assert.Equal(t, want, got, "%s in a %v map", v.name, mt)
			}
		}
	}
}

// cpus is the number of values a map of type t holds for a key.
func cpus(t ebpf.MapType) int {
	if t == ebpf.PerCPUHash || t == ebpf.LRUCPUHash {
		return kernel.PossibleCPUs()
	}
	return 1
}

// TestValueFieldsEndOnCycles: a value whose BTF holds itself, which no C
// compiler writes but an object may carry, ends the parse as refused.
func TestValueFieldsEndOnCycles(t *testing.T) {
	self := &btf.Struct{Name: "v", Size: 8}
	self.Members = []btf.Member{{Name: "v", Type: self}}
	selfArray := &btf.Array{Nelems: 1}
	selfArray.Type = selfArray
	for _, v := range []btf.Type{self, &btf.Struct{Name: "w", Size: 8, Members: []btf.Member{{Name: "a", Type: selfArray}}}} {
		fields, bad := valueFields(v)
		assert.Empty(t, fields)
		assert.Equal(t, "a member past 32 nested structs and arrays", bad)
	}
}
