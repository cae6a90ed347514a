// Where an object's references are, for the evacuation kernels (replay.wgsl,
// evacuate.wgsl), in the refgraph layout, where a+2 names the object's graph
// vertex: by its type, from `reftab` (heap/layout.ts TypeTable.refTable). Word
// 0 holds the number of types (type 0 is never used); entry t is REFS_RUN for
// an array of references (its a+3 elements from a+4, the run form of
// heap/ref-slots.ts); else the index e of the type's count, reftab[e], followed
// by its references' offsets from the header, in edge order.

fn refEntry(a: u32) -> u32 { return reftab[min(heapWord(a + 1u), reftab[0] - 1u)]; }

fn refCountOf(a: u32) -> u32 {
  let e = refEntry(a);
  if (e == REFS_RUN) { return heapWord(a + 3u); }
  return reftab[e];
}

fn refSlotOf(a: u32, j: u32) -> u32 {
  let e = refEntry(a);
  if (e == REFS_RUN) { return a + 4u + j; }
  return a + reftab[e + 1u + j];
}
