// Rebuild the checked-in object from the repository's root with:
//
//	clang -O2 -g -target bpf -c testdata/bpf/maps.c -o testdata/bpf/maps.o
//
// maps.c is a small BPF program declaring one map of every type htabgen
// generates, with their flags, and two maps of types it lists and skips, as
// a real program's object would. `htabgen -elf testdata/bpf/maps.o` makes
// the fakes of generated/bpfobject from it; TestBPFObjectIsFresh checks that
// the object is this source's.
//
// It includes no header, so that it builds with clang alone: the types,
// constants and macros below are the kernel's (include/uapi/linux/bpf.h) and
// libbpf's (bpf_helpers.h, BTF-defined maps in section .maps).

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;

#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name

enum {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_LRU_PERCPU_HASH = 10,
	BPF_MAP_TYPE_RINGBUF = 27,
	BPF_MAP_TYPE_BLOOM_FILTER = 30,
};

enum {
	BPF_F_NO_PREALLOC = 1U << 0,
	BPF_F_NO_COMMON_LRU = 1U << 1,
	BPF_F_ZERO_SEED = 1U << 6,
};

enum { XDP_PASS = 2 };

struct xdp_md {
	__u32 data;
	__u32 data_end;
	__u32 data_meta;
	__u32 ingress_ifindex;
	__u32 rx_queue_index;
	__u32 egress_ifindex;
};

static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *)1;
static long (*bpf_map_update_elem)(void *map, const void *key, const void *value, __u64 flags) = (void *)2;

// A flow's 5-tuple: 16 bytes, the padding explicit.
struct flow_key {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
	__u8 proto;
	__u8 pad[3];
};

struct flow_stats {
	__u64 packets;
	__u64 bytes;
};

// A connection: 16 bytes.
struct conn_key {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
	__u32 ifindex;
};

// 12 bytes: a per-CPU value whose size is not a multiple of 8.
struct stat {
	__u32 drops;
	__u32 passes;
	__u32 errors;
};

struct config {
	__u32 enabled;
	__u32 sample_rate;
};

struct event {
	__u64 ts;
	__u32 ifindex;
	__u32 len;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct flow_key);
	__type(value, struct flow_stats);
	__uint(max_entries, 1024);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 256);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} flows_dyn SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u32);
	__uint(max_entries, 64);
	__uint(map_flags, BPF_F_ZERO_SEED);
} zero_seeded SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 256);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct conn_key);
	__type(value, __u64);
	__uint(max_entries, 4096);
} conns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct conn_key);
	__type(value, __u64);
	__uint(max_entries, 512);
	__uint(map_flags, BPF_F_NO_COMMON_LRU);
} conns_own_lists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__type(key, __u32);
	__type(value, struct stat);
	__uint(max_entries, 128);
} stats SEC(".maps");

// A bloom filter has no key; map_extra's low 4 bits are its number of hash
// functions.
struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__type(value, __u32);
	__uint(max_entries, 10000);
	__uint(map_extra, 3);
} seen SEC(".maps");

// Types htabgen does not generate: listed and skipped.
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct config);
	__uint(max_entries, 1);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

// count_flows counts the packets and bytes of each flow it is enabled for:
// enough code for the object to be a program's, not a bare list of maps.
SEC("xdp")
int count_flows(struct xdp_md *ctx)
{
	__u32 zero = 0;
	struct config *cfg = bpf_map_lookup_elem(&config, &zero);
	if (!cfg || !cfg->enabled)
		return XDP_PASS;

	struct flow_key key = {.proto = 17};
	struct flow_stats *st = bpf_map_lookup_elem(&flows, &key);
	if (st) {
		__sync_fetch_and_add(&st->packets, 1);
		__sync_fetch_and_add(&st->bytes, ctx->data_end - ctx->data);
	} else {
		struct flow_stats init = {.packets = 1, .bytes = ctx->data_end - ctx->data};
		bpf_map_update_elem(&flows, &key, &init, 0);
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
