// Layout `refgraph` (FastCollect §3.1, Maas et al. §4.3): the CSR reference graph
// of each generation. A vertex is VERTEX_WORDS u32 (first edge, object address);
// its edge count is the next vertex's first edge minus its own (the host uploads
// the sentinel slot after the last vertex), so it includes the padding, whose
// edges are 0 (null). Each vertex's edges start at a multiple of 4 so they load
// as vec4.
// Node ids: young vertex v is v+1 (as stored in edges), tenured vertex v is
// youngVertices+v+1, so one bitmap and one linked stack cover both graphs.
// edgeWord/edgeQuad are generated for the vector or scalar binding of the edges.

fn nodeRefs(n: u32) -> vec3<u32> {
  let v = n - 1u;
  if (v < params.youngVertices) {
    let o = v * VERTEX_WORDS + VERTEX_FIRST;
    let first = yv[o];
    return vec3<u32>(0u, first, yv[o + VERTEX_WORDS] - first);
  }
  let o = (v - params.youngVertices) * VERTEX_WORDS + VERTEX_FIRST;
  let first = tv[o];
  return vec3<u32>(1u, first, tv[o + VERTEX_WORDS] - first);
}

// No prefetch: the vertex must be read to find its edges.
fn firstRefQuad(n: u32) -> vec4<u32> { return vec4<u32>(0u); }

fn refWord(g: u32, i: u32) -> u32 { return edgeWord(g, i); }
fn refQuad(g: u32, q: u32) -> vec4<u32> { return edgeQuad(g, q); }

// An edge value to a node id, or 0: null, or (young collections) a tenured
// vertex, whose edges are not followed.
fn decodeRef(raw: u32) -> u32 {
  if (raw == 0u) { return 0u; }
  if ((raw & 0x80000000u) == 0u) {
    return select(0u, raw, raw <= params.youngVertices);
  }
  if (YOUNG) { return 0u; }
  let n = params.youngVertices + (raw & 0x7fffffffu);
  return select(0u, n, n < params.nodeCount);
}

fn nodeAddress(n: u32) -> u32 {
  let v = n - 1u;
  if (v < params.youngVertices) { return yv[v * VERTEX_WORDS + VERTEX_ADDRESS]; }
  return tv[(v - params.youngVertices) * VERTEX_WORDS + VERTEX_ADDRESS];
}

fn stackIndex(n: u32) -> u32 { return n - 1u; }
fn nodeFromStackIndex(i: u32) -> u32 { return i + 1u; }
