import { describe, expect, it } from 'vitest';
import { verifyRefGraph } from '../../src/gc/verify.js';
import { TENURED_EDGE, VERTEX_ADDRESS, VERTEX_WORDS, vertexAddress, vertexEdges, vertexFirst } from '../../src/heap/ref-graph.js';
import { formatGcStats } from '../../src/heap/telemetry.js';
import { alloc, allocArray, collect, makeHeap } from '../gc/helpers.js';

function setup(options = {}) {
  const { heap, roots } = makeHeap({ layout: 'refgraph', verifyGc: true, ...options });
  const node = heap.defineClass('Node', ['int', 'ref', 'float', 'ref']);
  const [val, left, , right] = node.offsets as [number, number, number, number];
  const graph = heap.graph!;
  const vertex = (a: number) => {
    const g = a >= heap.tenuredStart ? graph.tenured : graph.young;
    const id = heap.words[a + 2]!;
    const first = vertexFirst(g.vertices, id);
    const count = vertexEdges(g.vertices, id);
    return { id, first, count, address: vertexAddress(g.vertices, id), edges: Array.from(g.edges.subarray(first, first + count)) };
  };
  return { heap, roots, node, val, left, right, graph, vertex };
}

describe('reference graph maintenance', () => {
  it('is made as large as each generation can need: filling eden with the smallest objects never grows it', async () => {
    const { heap, graph } = setup();
    const empty = heap.defineClass('Empty', []);
    const refs = heap.defineArray('Node[]', 'ref');
    const { vertices, edges } = graph.young;
    // Smallest objects (a header and nothing), then one-reference arrays, which pad to 4 edges.
    while (heap.edenTop + 16 <= heap.edenEnd) {
      await alloc(heap, empty);
      await allocArray(heap, refs, 1);
    }
    expect(graph.young.vertexCount).toBeGreaterThan(1000);
    expect(graph.young.vertices).toBe(vertices);
    expect(graph.young.edges).toBe(edges);
  });

  it('appends a vertex per allocation with its edges reserved on 4-word boundaries', async () => {
    const { heap, node, graph, vertex } = setup();
    const a = await alloc(heap, node);
    const refs = heap.defineArray('Node[]', 'ref');
    const arr = await allocArray(heap, refs, 5);
    const b = await alloc(heap, node);
    expect(graph.young.vertexCount).toBe(3);
    // Counts are derived from the next vertex's first edge, so they include the padding.
    expect(vertex(a)).toEqual({ id: 0, first: 0, count: 4, address: a, edges: [0, 0, 0, 0] });
    expect(vertex(arr)).toMatchObject({ id: 1, first: 4, count: 8, address: arr });
    expect(vertex(b)).toMatchObject({ id: 2, first: 12, count: 4 });
    expect(graph.young.edgeCount).toBe(16);
    expect(graph.vertexAppends).toBe(3);
  });

  it('keeps a sentinel first edge, the edge count, in the slot after the last vertex', async () => {
    const { heap, node, graph } = setup();
    const g = graph.young;
    expect(vertexFirst(g.vertices, 0)).toBe(0);
    await alloc(heap, node);
    expect(vertexFirst(g.vertices, 1)).toBe(4);
    await allocArray(heap, heap.defineArray('Node[]', 'ref'), 0);
    expect(vertexFirst(g.vertices, 2)).toBe(4);
    expect(vertexEdges(g.vertices, 1)).toBe(0);
    await collect(heap, 'young');
    expect(g.vertexCount).toBe(0);
    expect(vertexFirst(g.vertices, 0)).toBe(0);
  });

  it('writes the edge with every reference store (young v+1, tenured 0x80000000|(v+1))', async () => {
    const { heap, node, left, right, graph, vertex } = setup({ largeObjectBytes: 256 });
    const a = await alloc(heap, node);
    const b = await alloc(heap, node);
    heap.writeRef(a, right, 1, b);
    expect(vertex(a).edges).toEqual([0, 2, 0, 0]);
    const refs = heap.defineArray('Node[]', 'ref');
    const big = await allocArray(heap, refs, 100); // tenured
    expect(big).toBeGreaterThanOrEqual(heap.tenuredStart);
    heap.writeRef(a, left, 0, big);
    expect(vertex(a).edges).toEqual([(TENURED_EDGE | 1) >>> 0, 2, 0, 0]);
    heap.writeRef(big, 4 + 7, 7, a);
    expect(vertex(big).edges[7]).toBe(1);
    heap.writeRef(a, left, 0, 0);
    expect(vertex(a).edges[0]).toBe(0);
    expect(graph.edgeWrites).toBe(4);
    expect(() => verifyRefGraph(heap)).not.toThrow();
  });

  it('drops dead vertices and compacts the young graph in a young collection', async () => {
    const { heap, roots, node, val, right, graph, vertex } = setup();
    const r = roots.push(await alloc(heap, node));
    for (let i = 0; i < 10; i++) await alloc(heap, node); // garbage
    const child = await alloc(heap, node);
    heap.words[child + val] = 3;
    heap.writeRef(roots.get(r), right, 1, child);
    expect(graph.young.vertexCount).toBe(12);
    await collect(heap, 'young');
    expect(graph.young.vertexCount).toBe(2);
    const p = roots.get(r);
    const c = heap.words[p + right]!;
    expect(heap.words[c + val]).toBe(3);
    expect(vertex(p).address).toBe(p);
    expect(vertex(p).edges).toEqual([0, vertex(c).id + 1, 0, 0]);
  });

  it('moves a promoted vertex to the tenured graph and keeps edges to and from it right', async () => {
    const { heap, roots, node, right, graph, vertex } = setup({ tenureAge: 1 });
    const r = roots.push(await alloc(heap, node));
    await collect(heap, 'young'); // age 1
    const child = await alloc(heap, node);
    heap.writeRef(roots.get(r), right, 1, child);
    await collect(heap, 'young'); // parent promoted, child survives young
    const p = roots.get(r);
    expect(p).toBeGreaterThanOrEqual(heap.tenuredStart);
    expect(graph.tenured.vertexCount).toBe(1);
    expect(graph.young.vertexCount).toBe(1);
    const c = heap.words[p + right]!;
    expect(vertex(p)).toMatchObject({ address: p, edges: [0, vertex(c).id + 1, 0, 0] });
    await collect(heap, 'young'); // child promoted: the old-to-young edge becomes old-to-old
    const c2 = heap.words[p + right]!;
    expect(c2).toBeGreaterThanOrEqual(heap.tenuredStart);
    expect(graph.young.vertexCount).toBe(0);
    expect(vertex(p).edges[1]).toBe((TENURED_EDGE | (vertex(c2).id + 1)) >>> 0);
  });

  it("gives a remembered run of an array's slots its first tenured edge, and a scattered object's run none", async () => {
    const { heap, roots, node, right, graph, vertex } = setup({ tenureAge: 0 });
    const refs = heap.defineArray('Node[]', 'ref');
    const arr = roots.push(await allocArray(heap, refs, 40));
    const obj = roots.push(await alloc(heap, node));
    await collect(heap, 'young'); // both promoted
    const a = roots.get(arr);
    const o = roots.get(obj);
    expect(a).toBeGreaterThanOrEqual(heap.tenuredStart);
    expect(o).toBeGreaterThanOrEqual(heap.tenuredStart);
    const data = a + heap.arrayDataOffset;
    // Runs (first slot, count) of the array's elements 10-14 and 30, and of the object's second reference.
    const runs = Int32Array.from([data + 10, 5, data + 30, 1, o + right, 1]);
    const objects = Int32Array.from([a, a, o]);
    const starts = graph.rememberedEdgeStarts(runs, objects, new Int32Array(8));
    expect(Array.from(starts)).toEqual([vertex(a).first + 10, vertex(a).first + 30, -1]);
  });

  it('compacts the tenured graph on a full collection, renumbering edges', async () => {
    const { heap, roots, node, left, right, graph, vertex } = setup({ tenureAge: 0 });
    const slots: number[] = [];
    for (let i = 0; i < 6; i++) slots.push(roots.push(await alloc(heap, node)));
    // A chain 0 -> 2 -> 4 -> 5 through `right`; 1 and 3 only rooted.
    heap.writeRef(roots.get(slots[0]!), right, 1, roots.get(slots[2]!));
    heap.writeRef(roots.get(slots[2]!), right, 1, roots.get(slots[4]!));
    heap.writeRef(roots.get(slots[4]!), left, 0, roots.get(slots[5]!));
    await collect(heap, 'young'); // all promoted
    expect(graph.tenured.vertexCount).toBe(6);
    roots.slots[slots[1]!] = 0;
    roots.slots[slots[3]!] = 0;
    roots.slots[slots[2]!] = 0; // still reachable through 0
    await collect(heap, 'full');
    expect(graph.tenured.vertexCount).toBe(4);
    const a0 = roots.get(slots[0]!);
    const a2 = heap.words[a0 + right]!;
    const a4 = heap.words[a2 + right]!;
    const a5 = heap.words[a4 + left]!;
    expect(a5).toBe(roots.get(slots[5]!));
    expect(vertex(a0).edges[1]).toBe((TENURED_EDGE | (vertex(a2).id + 1)) >>> 0);
    expect(vertex(a4).edges[0]).toBe((TENURED_EDGE | (vertex(a5).id + 1)) >>> 0);
    // Ids follow addresses after compaction.
    const ids = [a0, a2, a4, a5].sort((x, y) => x - y).map((a) => vertex(a).id);
    expect(ids).toEqual([0, 1, 2, 3]);
  });

  it('gives objects allocated after a collection null edges where the last cycle wrote edges', async () => {
    const { heap, roots, node, left, right, graph, vertex } = setup();
    const refs = heap.defineArray('Node[]', 'ref');
    const keep = roots.push(await alloc(heap, node));
    // A cycle's worth of objects whose every edge is written, past one block of zeroing ahead.
    let prev = await alloc(heap, node);
    for (let i = 0; i < 3000; i++) {
      const a = await alloc(heap, node);
      heap.writeRef(a, left, 0, prev);
      heap.writeRef(a, right, 1, prev);
      prev = a;
    }
    const big = await allocArray(heap, refs, 40);
    for (let i = 0; i < 40; i++) heap.writeRef(big, 4 + i, i, prev);
    const written = graph.young.edgeCount;
    await collect(heap, 'young');
    expect(graph.young.vertexCount).toBe(1);
    // The next cycle's objects reuse those edge words: every one reads null until stored.
    const fresh: number[] = [];
    while (graph.young.edgeCount < written + 64) fresh.push(await alloc(heap, node));
    fresh.push(await allocArray(heap, refs, 40));
    for (const a of fresh) expect(vertex(a).edges.every((e) => e === 0)).toBe(true);
    heap.writeRef(fresh[5]!, right, 1, roots.get(keep));
    expect(vertex(fresh[5]!).edges).toEqual([0, vertex(roots.get(keep)).id + 1, 0, 0]);
    await collect(heap, 'young');
  });

  it('counts the allocations\' vertex appends and bytes across collections, not the rebuilds\'', async () => {
    const { heap, roots, node, graph } = setup();
    roots.push(await alloc(heap, node));
    for (let i = 0; i < 9; i++) await alloc(heap, node);
    await collect(heap, 'young');
    for (let i = 0; i < 5; i++) await alloc(heap, node);
    await collect(heap, 'full');
    await alloc(heap, node);
    expect(graph.vertexAppends).toBe(16);
    const words = heap.layout.placeFields(['int', 'ref', 'float', 'ref']);
    expect(heap.stats.bytesAllocated).toBe(16 * 4 * (words.leftWords + 4 + words.rightWords));
  });

  it('reports graph bytes, edge writes and maintenance time', async () => {
    const lines: string[] = [];
    const { heap, roots, node, right } = setup({ logGc: (l: string) => lines.push(l) });
    const r = roots.push(await alloc(heap, node));
    heap.writeRef(roots.get(r), right, 1, await alloc(heap, node));
    await collect(heap, 'young');
    const s = heap.stats;
    // Young: 2 vertices and the sentinel's slot, 2 runs of 4 edges; tenured: its sentinel's slot.
    expect(s.layout.graphBytes).toBe(3 * VERTEX_WORDS * 4 + 2 * 4 * 4 + VERTEX_WORDS * 4);
    expect(s.layout.edgeWrites).toBe(1);
    expect(formatGcStats(s)).toMatch(/refgraph: 64 B of graphs, 1 edge writes, 2 vertex appends, maintenance \d+\.\d\d ms/);
    expect(lines[0]).toMatch(/ graph=\d+\.\d\dms/);
  });
});

describe('graph-vs-heap check', () => {
  it('catches an edge that disagrees with the heap', async () => {
    const { heap, roots, node, right, graph, vertex } = setup();
    const r = roots.push(await alloc(heap, node));
    heap.writeRef(roots.get(r), right, 1, await alloc(heap, node));
    await collect(heap, 'young');
    const p = roots.get(r);
    graph.young.edges[vertex(p).first + 1] = 0;
    expect(() => verifyRefGraph(heap)).toThrow(
      new RegExp(`refgraph: edge 1 of young vertex ${vertex(p).id} \\(the Node at ${p}, slot ${p + right}\\) is 0x0`),
    );
  });

  it('catches a store that bypassed the edge write', async () => {
    const { heap, roots, node, left } = setup();
    const r = roots.push(await alloc(heap, node));
    const other = roots.push(await alloc(heap, node));
    heap.words[roots.get(r) + left] = roots.get(other);
    expect(() => verifyRefGraph(heap)).toThrow(/refgraph: edge 0 of young vertex 0 .* is 0x0, the heap says 0x2/);
  });

  it('catches a vertex whose address is stale and a graph with extra vertices', async () => {
    const { heap, roots, node, graph } = setup();
    const r = roots.push(await alloc(heap, node));
    graph.young.vertices[VERTEX_ADDRESS] = 12345;
    expect(() => verifyRefGraph(heap)).toThrow(new RegExp(`claims young vertex 0, which records address 12345`));
    graph.young.vertices[VERTEX_ADDRESS] = roots.get(r);
    graph.young.addVertex(999, 0);
    expect(() => verifyRefGraph(heap)).toThrow(/the young graph has 2 vertices for 1 young objects/);
  });

  it('catches a padding edge that is not null and a sentinel that is not the edge count', async () => {
    const { heap, roots, node, graph, vertex } = setup();
    const p = roots.get(roots.push(await alloc(heap, node)));
    graph.young.edges[vertex(p).first + 3] = 1;
    expect(() => verifyRefGraph(heap)).toThrow(new RegExp(`padding edge 3 of young vertex 0 \\(the Node at ${p}\\) is 0x1, not 0`));
    graph.young.edges[vertex(p).first + 3] = 0;
    graph.young.vertices[VERTEX_WORDS] = 8;
    expect(() => verifyRefGraph(heap)).toThrow(/young vertex 0 .* has 8 edges, the object has 2 references \(4 padded\)/);
    graph.young.vertices[VERTEX_WORDS] = 4;
    graph.young.edgeCount = 8;
    expect(() => verifyRefGraph(heap)).toThrow(/the young graph's sentinel after its 1 vertices is 4, not its edge count 8/);
  });
});
