// The refgraph layout's reference graphs rebuilt on the device after its
// evacuation (evacuate.wgsl), as heap/ref-graph.ts rebuildAfterEvacuation
// rebuilds them on the CPU: the live objects, in the list's order, take the
// young graph's vertices (those that stay young) or vertices appended to the
// tenured graph (those promoted), each with its references' edges padded to
// a multiple of 4; each copy's layout word names its new vertex.
//
// The new edges come from the old ones: the old young graph (gyv, gye, as
// the mark uploaded it) holds each object's edges, named by its old layout
// word, which the old object still holds. A tenured target's edge stays; a
// young target's is looked up in `remap`, indexed by its old vertex id.
//
// vals from ep.graphAt (G), for n = ep.count live objects in nb blocks:
//   [G, G+n)        1 for an object that stays young; then the exclusive prefix: its young vertex id
//   [G+n, G+2n)     its padded edge count if it stays young; then the prefix: its first young edge
//   [G+2n, G+3n)    its padded edge count; then the prefix, of which the second's part is young
//   [G+3n+r*nb)     block totals of region r, then their exclusive prefix
// The totals go to rctl[GRAPH_YOUNG], rctl[GRAPH_YOUNG_EDGES], rctl[GRAPH_EDGES].
// `gout` takes the young vertices (with the sentinel), the young edges, the
// appended tenured vertices (with the sentinel) and their edges, from
// ep.outVertices, ep.outEdges, ep.outTenuredVertices and ep.outTenuredEdges;
// then, when the remembered slots come back (evacuate.wgsl evac_gather_slots),
// their edges in the same order from ep.outRemembered.

fn padded(a: u32) -> u32 { return (refCountOf(a) + 3u) & ~3u; }

// The exclusive prefix of region r at entry i.
fn graphPrefix(r: u32, i: u32) -> u32 {
  let n = ep.count;
  return vals[ep.graphAt + r * n + i] + vals[ep.graphAt + 3u * n + r * ep.blocks + i / (WG * GRAPH_PER)];
}

// After evac_split (survivors have their address, the promoted 0): the three
// regions' entries, from the old objects.
@compute @workgroup_size(WG)
fn evac_graph_sizes(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  let n = ep.count;
  for (var i = gid.x; i < n; i += stride) {
    let stays = fwd[i] != 0u;
    let pad = padded(live[i]);
    vals[ep.graphAt + i] = select(0u, 1u, stays);
    vals[ep.graphAt + n + i] = select(0u, pad, stays);
    vals[ep.graphAt + 2u * n + i] = pad;
  }
}

@compute @workgroup_size(WG)
fn evac_graph_scan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
                   @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = ep.count;
  for (var r = 0u; r < 3u; r++) {
    scanBlocks(ep.graphAt + r * n, n, ep.graphAt + 3u * n + r * ep.blocks, wid.x, lid, nwg.x, ep.blocks);
  }
}

@compute @workgroup_size(WG)
fn evac_graph_top(@builtin(local_invocation_index) lid: u32) {
  let t = ep.graphAt + 3u * ep.count;
  scanTop(t, lid, GRAPH_YOUNG);
  workgroupBarrier();
  scanTop(t + ep.blocks, lid, GRAPH_YOUNG_EDGES);
  workgroupBarrier();
  scanTop(t + 2u * ep.blocks, lid, GRAPH_EDGES);
}

// After the copy: each object's vertex, the sentinel after it (the next
// vertex writes the same value there), its copy's layout word, and its old
// vertex's new edge value.
@compute @workgroup_size(WG)
fn evac_graph_place(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  for (var i = gid.x; i < ep.count; i += stride) {
    let na = fwd[i];
    let young = graphPrefix(0u, i);
    let pad = padded(na);
    var id: u32;
    var edge: u32;
    if (na < ep.tenuredStart) {
      id = young;
      let first = graphPrefix(1u, i);
      gout[ep.outVertices + 2u * id + VERTEX_FIRST] = first;
      gout[ep.outVertices + 2u * id + VERTEX_ADDRESS] = na;
      gout[ep.outVertices + 2u * (id + 1u) + VERTEX_FIRST] = first + pad;
      heapStore(na + 2u, id);
      edge = id + 1u;
    } else {
      let t = i - young;
      let first = ep.tenuredEdgeBase + graphPrefix(2u, i) - graphPrefix(1u, i);
      gout[ep.outTenuredVertices + 2u * t + VERTEX_FIRST] = first;
      gout[ep.outTenuredVertices + 2u * t + VERTEX_ADDRESS] = na;
      gout[ep.outTenuredVertices + 2u * (t + 1u) + VERTEX_FIRST] = first + pad;
      id = ep.tenuredVertexBase + t;
      heapStore(na + 2u, id);
      edge = TENURED_EDGE | (id + 1u);
    }
    let old = heapWord(live[i] + 2u);
    if (old < ep.oldYoungVertices) { remap[old] = edge; }
  }
}

// After evac_graph_place: each object's edges from its old vertex's, young
// targets renamed, the padding zero.
@compute @workgroup_size(WG)
fn evac_graph_edges(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let stride = nwg.x * WG;
  for (var i = gid.x; i < ep.count; i += stride) {
    let na = fwd[i];
    let n = refCountOf(na);
    let pad = (n + 3u) & ~3u;
    var out: u32;
    if (na < ep.tenuredStart) {
      out = ep.outEdges + graphPrefix(1u, i);
    } else {
      out = ep.outTenuredEdges + graphPrefix(2u, i) - graphPrefix(1u, i);
    }
    let old = heapWord(live[i] + 2u);
    let oldFirst = gyv[min(old, ep.oldYoungVertices) * VERTEX_WORDS + VERTEX_FIRST];
    for (var k = 0u; k < n; k++) {
      let x = gye[oldFirst + k];
      var e = x;
      if (x != 0u && (x & TENURED_EDGE) == 0u) { e = remap[x - 1u]; }
      gout[out + k] = e;
    }
    for (var k = n; k < pad; k++) { gout[out + k] = 0u; }
  }
}

// The remembered slots' new edges, a workgroup a run as evac_gather_slots
// gathers the slots: each slot named a young object, whose copy's layout
// word now holds its vertex (evac_graph_place ran before).
@compute @workgroup_size(WG)
fn evac_graph_remembered(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
                         @builtin(num_workgroups) nwg: vec3<u32>) {
  for (var r = wid.x; r < ep.slotRuns; r += nwg.x) {
    let run = slots[r];
    let out = ep.outRemembered + gather[r];
    for (var j = lid; j < run.y; j += WG) {
      let v = heapWord(run.x + j);
      var e = 0u;
      if (v != 0u) {
        e = heapWord(v + 2u) + 1u;
        if (v >= ep.tenuredStart) { e = TENURED_EDGE | e; }
      }
      gout[out + j] = e;
    }
  }
}
