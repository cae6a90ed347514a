// refgraph only: turns the vertex marks into the MarkResult bitmap over heap
// addresses, using each vertex's address field. One thread per word of the
// vertex bitmap skips 32 unmarked vertices at a time.

@compute @workgroup_size(WG)
fn translate_marks(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let last = select(params.nodeCount - 1u, params.youngVertices, YOUNG);
  let words = (last >> 5u) + 1u;
  for (var w = gid.x; w < words; w += nwg.x * WG) {
    var m = atomicLoad(&marks[w]);
    loop {
      if (m == 0u) { break; }
      let n = (w << 5u) + firstTrailingBit(m);
      m &= m - 1u;
      if (n >= 1u && n <= last) {
        let a = nodeAddress(n);
        atomicOr(&addrBits[a >> 5u], 1u << (a & 31u));
      }
    }
  }
}
