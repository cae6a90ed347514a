/**
 * gpu-dfs's chaseAhead (see the comment above it in kernels/dfs.wgsl), written
 * out for a run of `k` nodes with every node in scalars of its own.
 *
 * WGSL promises no loop unrolling, and the run's arrays ended up in local
 * memory, where each node's loads waited for the node before: generating the
 * unrolled code is the one way to keep a run's loads in flight together.
 * Within a run node j is `base + j * stride`; its header count is `c<j>` and
 * its first reference word `w<j>` (sable: words a + 2 and a + 4).
 */

/** The WGSL of `fn chaseAhead(first, maxSteps, stride0) -> u32` for runs of k >= 2 nodes. */
export function chaseAheadSource(k: number): string {
  if (!Number.isInteger(k) || k < 2) throw new Error(`chaseAhead needs runs of at least 2 nodes, not ${k}`);
  const js = [...Array(k).keys()];
  const at = (j: number): string => (j === 0 ? 'base' : `base + ${j}u * stride`);
  const lines: string[] = [];
  const emit = (indent: number, text: string): void => {
    lines.push('  '.repeat(indent) + text);
  };

  // Loads of a run: unconditional, at addresses clamped into the heap (a wrong
  // guess, or a count-0 node's missing reference, reads some word there; only
  // words of accepted nodes are used).
  const loads = (indent: number): void => {
    for (const j of js) emit(indent, `c${j} = runCount(${at(j)});`);
    for (const j of js) emit(indent, `w${j} = runRef(${at(j)});`);
  };

  emit(0, '// Count (word a + 2) and first reference word (a + 4) of the node a run guesses at a.');
  emit(0, 'fn runCount(a: u32) -> u32 { return nodeRefs(min(a, params.heapWords - 3u)).z; }');
  emit(0, 'fn runRef(a: u32) -> u32 { return refWord(0u, min(a + 4u, params.heapWords - 1u)); }');
  emit(0, '');
  emit(0, 'fn chaseAhead(first: u32, maxSteps: u32, stride0: u32) -> u32 {');
  emit(1, 'var base = first;');
  emit(1, 'var stride = stride0;');
  emit(1, 'var steps = 0u;');
  for (const j of js) emit(1, `var c${j}: u32;`);
  for (const j of js) emit(1, `var w${j}: u32;`);
  loads(1);
  emit(1, 'loop {');
  // Acceptance: node j is the one reference of node j - 1 at the guessed address.
  emit(2, '// The accepted run: nodes 0..m-1, each the one reference of the one before.');
  emit(2, 'let room = maxSteps - steps;');
  emit(2, 'var m = 1u;');
  emit(2, 'var lastCount = c0;');
  emit(2, 'var lastRef = w0;');
  emit(2, 'var go = stride != 0u;');
  for (const j of js.slice(1)) {
    emit(2, `go = go && ${j}u < room && c${j - 1} == 1u && decodeRef(w${j - 1}) == ${at(j)};`);
    emit(2, `if (go) { m = ${j + 1}u; lastCount = c${j}; lastRef = w${j}; }`);
  }
  emit(2, 'guessed += m - 1u;');
  emit(2, 'let last = base + (m - 1u) * stride;');
  emit(2, 'let next = select(0u, decodeRef(lastRef), lastCount == 1u);');
  emit(2, '// The atomic optimization, for a chase that has not just won a mark: a');
  emit(2, "// first node already marked is its marker's to expand, with all after it.");
  emit(2, 'if (!won && ATOMIC_OPT && (atomicLoad(&marks[base >> 5u]) & (1u << (base & 31u))) != 0u) { return steps; }');
  // Marks: one atomicOr per bitmap word, by the word's first node of the run
  // (addresses move one way along a run), with the bits of all the run's nodes
  // there; the masks are built from the run's end.
  emit(2, '// One atomicOr per bitmap word the run touches, sent by its first node there.');
  for (const j of js) emit(2, `let b${j} = ${at(j)};`);
  for (const j of [...js].reverse()) {
    // k<j>: the bits of nodes j.. of node j's word.
    const rest = j === k - 1 ? '' : `select(0u, k${j + 1}, (b${j} >> 5u) == (b${j + 1} >> 5u)) | `;
    emit(2, `let k${j} = select(0u, ${rest}(1u << (b${j} & 31u)), ${j}u < m);`);
  }
  for (const j of js) {
    const lead = j === 0 ? 'true' : `${j}u < m && (b${j} >> 5u) != (b${j - 1} >> 5u)`;
    emit(2, `var o${j} = 0u;`);
    emit(2, `let l${j} = ${lead};`);
    emit(2, `if (l${j}) { o${j} = atomicOr(&marks[b${j} >> 5u], k${j}); }`);
  }
  emit(2, "// The next run's loads go out before the marks' answers are used.");
  emit(2, 'let nextStride = next - last;');
  emit(2, 'base = next;');
  emit(2, 'stride = nextStride;');
  loads(2);
  emit(2, 'var seen = 0u;');
  emit(2, 'var lastMine = false;');
  for (const j of js) {
    emit(2, `if (l${j}) { seen = o${j}; }`);
    emit(2, `let mine${j} = ${j === 0 ? '' : `${j}u < m && `}(seen & (1u << (b${j} & 31u))) == 0u;`);
    emit(2, `if (mine${j}) { record(b${j}); steps += 1u; }`);
    emit(2, `if (${j + 1}u == m) { lastMine = mine${j}; }`);
  }
  emit(2, 'won = lastMine;');
  emit(2, 'if (!lastMine || lastCount == 0u) { return steps; }');
  emit(2, 'if (lastCount > 1u || (next != 0u && steps >= maxSteps)) {');
  emit(3, '// Visited later by a general expansion (or a later chase) of `last`.');
  emit(3, 'push(last);');
  emit(3, 'return steps;');
  emit(2, '}');
  emit(2, 'if (next == 0u) { return steps; }');
  emit(1, '}');
  emit(0, '}');
  return lines.join('\n');
}
