package htabgen

import (
	"fmt"
	"slices"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// A map value's special fields: the fields the kernel manages itself, which
// a generated map, whose values are plain bytes, cannot mirror. The kernel
// finds them in the value's BTF (kernel/bpf/btf.c, btf_parse_fields) and
// checks them against the map type (kernel/bpf/syscall.c, map_check_btf).

// A specialField is a kind of special field.
type specialField struct {
	name  string         // as a reason names it: struct bpf_spin_lock, a kptr pointer
	types []ebpf.MapType // the hash-family map types whose values may hold it
	// repeats: the kernel takes an array of them. It takes at most one of
	// the others in a value.
	repeats bool
}

var (
	hashOnly = []ebpf.MapType{ebpf.Hash}
	hashLRU  = []ebpf.MapType{ebpf.Hash, ebpf.LRUHash}
	hashAll  = []ebpf.MapType{ebpf.Hash, ebpf.PerCPUHash, ebpf.LRUHash, ebpf.LRUCPUHash}
)

// specialStructs are the special fields that are structs, by struct name;
// specialPointerTags those that are pointers, by the pointer's type tag
// (kptrs). bpf_list_node and bpf_rb_node are special only in objects
// allocated by programs, not in map values.
var (
	specialStructs = map[string]specialField{
		"bpf_spin_lock":     {"struct bpf_spin_lock", hashOnly, false},
		"bpf_res_spin_lock": {"struct bpf_res_spin_lock", hashOnly, false},
		"bpf_timer":         {"struct bpf_timer", hashLRU, false},
		"bpf_wq":            {"struct bpf_wq", hashLRU, false},
		"bpf_task_work":     {"struct bpf_task_work", hashLRU, false},
		"bpf_list_head":     {"struct bpf_list_head", hashLRU, true},
		"bpf_rb_root":       {"struct bpf_rb_root", hashLRU, true},
		"bpf_refcount":      {"struct bpf_refcount", hashAll, false},
	}
	specialPointerTags = map[string]specialField{
		"kptr":           {"a kptr pointer", hashAll, true},
		"kptr_untrusted": {"a kptr_untrusted pointer", hashAll, true},
		"percpu_kptr":    {"a percpu_kptr pointer", hashAll, true},
		"uptr":           {"a uptr pointer", nil, true}, // for task storage only
	}
)

// A verdict is what the kernel makes of a map's value.
type verdict int

const (
	plainValue   verdict = iota // plain bytes, as a generated map's
	managedValue                // it holds special fields the kernel manages
	refusedValue                // the kernel refuses such a field in this map type (EOPNOTSUPP)
	badValue                    // the kernel's field parser fails on it
)

// valueVerdict is what the kernel makes of the value of the map ms, and the
// reason to skip the map unless it is plain bytes.
func valueVerdict(ms *ebpf.MapSpec) (verdict, string) {
	fields, bad := valueFields(ms.Value)
	if bad != "" {
		// btf_parse_fields fails. The kernel then refuses the object's BTF
		// if a struct in it holds a lock, a list, a tree or a kptr
		// (btf_parse_struct_metas), and otherwise creates the map with no
		// special fields: which one turns on the rest of the object.
		return badValue, fmt.Sprintf("its value holds %s, which the kernel's parser of special fields refuses (btf_parse_fields, kernel/bpf/btf.c): it then refuses the object's BTF or takes the value as plain bytes, depending on the rest of the object", bad)
	}
	for _, f := range fields {
		if !slices.Contains(f.types, ms.Type) {
			return refusedValue, fmt.Sprintf("its value holds %s, which the kernel refuses in a %s map (EOPNOTSUPP)", f.name, kernelTypeName(ms.Type))
		}
	}
	if len(fields) > 0 {
		return managedValue, fmt.Sprintf("its value holds %s, which the kernel manages itself (it zeroes such fields in every value it copies out, and BPF_F_LOCK works on a bpf_spin_lock); htabgen's values are plain bytes", fields[0].name)
	}
	return plainValue, ""
}

// valueFields are the special fields of value, a map's BTF value type,
// found where the kernel looks for them: in the members of the value's
// struct (past typedefs and qualifiers of the value itself), in the members
// of member structs, and in arrays of these. A member behind a typedef or a
// qualifier, in a union, or behind a plain pointer is plain bytes, and so is
// a value that is not a struct. bad names what the kernel's parser refuses:
// an array of a field it takes once, two of one, a kptr tag it does not
// know. An object without BTF (value nil) has none.
func valueFields(value btf.Type) (fields []specialField, bad string) {
	s, ok := btf.UnderlyingType(value).(*btf.Struct)
	if !ok {
		return nil, ""
	}
	p := fieldParser{}
	p.structFields(s, 1, 1)
	return p.fields, p.bad
}

// fieldParser collects the special fields of a value.
type fieldParser struct {
	fields []specialField
	bad    string
}

// maxResolveDepth is the longest chain of types the kernel's BTF checks
// follow (MAX_RESOLVE_DEPTH, include/linux/bpf.h): it refuses longer ones.
// The parser stops at chains of structs and arrays that long from the value
// (so a cycle in an object's BTF ends), which the kernel would refuse.
const maxResolveDepth = 32

// structFields collects those of the struct s, in an array of n of them,
// the depth'th type of its chain from the value.
func (p *fieldParser) structFields(s *btf.Struct, n uint64, depth int) {
	for _, m := range s.Members {
		if p.bad != "" {
			return
		}
		t, count, d := m.Type, n, depth+1
		for arr, ok := t.(*btf.Array); ok && d <= maxResolveDepth; arr, ok = t.(*btf.Array) {
			t, count, d = arr.Type, count*uint64(arr.Nelems), d+1
		}
		if d > maxResolveDepth {
			p.bad = fmt.Sprintf("a member past %d nested structs and arrays", maxResolveDepth)
			return
		}
		if count == 0 {
			continue
		}
		switch t := t.(type) {
		case *btf.Struct:
			if f, ok := specialStructs[t.Name]; ok {
				p.add(f, count)
			} else {
				p.structFields(t, count, d)
			}
		case *btf.Volatile: // the one qualifier the kernel permits on a kptr
			if ptr, ok := t.Type.(*btf.Pointer); ok {
				p.pointer(ptr, count)
			}
		case *btf.Pointer:
			p.pointer(t, count)
		}
	}
}

// pointer collects a kptr: a pointer to a struct through one known type tag.
func (p *fieldParser) pointer(t *btf.Pointer, n uint64) {
	tag, ok := t.Target.(*btf.TypeTag)
	if !ok {
		return // a plain pointer
	}
	f, known := specialPointerTags[tag.Value]
	switch _, twoTags := tag.Type.(*btf.TypeTag); {
	case twoTags:
		p.bad = "a pointer with two type tags"
	case !known:
		p.bad = fmt.Sprintf("a pointer tagged %q", tag.Value)
	default:
		if _, ok := btf.UnderlyingType(tag.Type).(*btf.Struct); !ok {
			p.bad = fmt.Sprintf("a %s pointer to something other than a struct", tag.Value)
			return
		}
		p.add(f, n)
	}
}

// add collects n of the field f.
func (p *fieldParser) add(f specialField, n uint64) {
	switch {
	case f.repeats:
	case n > 1:
		p.bad = f.name + " in an array"
		return
	case slices.ContainsFunc(p.fields, func(g specialField) bool { return g.name == f.name }):
		p.bad = "a second " + f.name
		return
	}
	p.fields = append(p.fields, f)
}
