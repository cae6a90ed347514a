// Layout `sable` (SableVM's bidirectional layout, Maas et al. §4.2): node ids are
// header addresses. The header's word a+2 holds the number of references, which
// follow the 4-word header contiguously, so a tracer reads one word and then a
// run of references (as vec4 with the vector optimization). heapWord/heapQuad
// are generated per heap (one binding per chunk of the mirror).

fn nodeRefs(n: u32) -> vec3<u32> {
  return vec3<u32>(0u, n + 4u, heapWord(n + 2u));
}

// The quad holding the first reference word (a+4), whether or not there is
// one: loaded beside a+2 so the two loads overlap (gpu-dfs PREFETCH). Clamped
// to the heap for an object that ends at its last word.
fn firstRefQuad(n: u32) -> vec4<u32> {
  return heapQuad(min((n + 4u) >> 2u, (params.heapWords - 1u) >> 2u));
}

fn refWord(g: u32, i: u32) -> u32 { return heapWord(i); }
fn refQuad(g: u32, q: u32) -> vec4<u32> { return heapQuad(q); }

// A reference word to the node to trace, or 0: null, outside the heap, or (young
// collections) outside the young range, whose references are not followed.
fn decodeRef(raw: u32) -> u32 {
  if (raw == 0u || raw >= params.heapWords) { return 0u; }
  if (YOUNG && (raw < params.youngStart || raw >= params.youngEnd)) { return 0u; }
  return raw;
}

fn nodeAddress(n: u32) -> u32 { return n; }

// FastCollect indexes its stack storage by vertex id. Headers are 4 words long,
// so two objects' headers are at least 4 words apart and (a - base) / 4 is
// distinct per object: the stack needs a quarter of the heap's words.
fn stackIndex(n: u32) -> u32 { return (n - params.nodeBase) >> 2u; }

// The inverse, for load balancing: an element in a stack belongs to a marked
// node, and at most one header lies in the 4 words of element i, so the marked
// bit among them names it (0 when the mark is not visible yet).
fn nodeFromStackIndex(i: u32) -> u32 {
  let base = params.nodeBase + (i << 2u);
  let nibble = (atomicLoad(&marks[base >> 5u]) >> (base & 31u)) & 15u;
  if (nibble == 0u) { return 0u; }
  return base + firstTrailingBit(nibble);
}
