// gpu-dfs: FastCollect (Algorithms 1-5; sections 3.2, 3.3, 4.1-4.4).
//
// One DFS per root per thread over the space-efficient linked stack (§3.2): one
// global array `stack`, indexed by node, whose element links to the next
// element of the same thread's stack; a thread keeps only its top. A node is
// pushed at most once per collection, by the thread whose mark succeeded, so
// one element per node serves every thread's stack.
//
// Where this departs from the paper, and why:
// - Bounded dispatches. WebGPU promises no forward progress between workgroups,
//   so no thread ever waits for another. A dispatch runs at most STEP_BUDGET
//   expansions per thread (a pointer chase's count 1/CHAIN_STEPS: see
//   dfs_mark), spills its hybrid stack to the global stack, saves its top in
//   `threads` and counts itself busy; dfs_advance publishes the count, and the
//   host repeats (dfs_mark, dfs_advance) until a round ends with no busy thread.
// - Sound work taking (§4.2). In Algorithm 5 an idle thread pushes an element
//   found in its area onto its own stack, relinking a node that its owner's
//   stack still links to. Here the idle thread claims the element by setting
//   its CLAIMED bit with a compare-and-exchange and expands the node itself; the
//   node stays linked, and its owner unlinks it when popping (an atomic
//   exchange, so pop and claim are ordered) and skips its expansion.
// - Element encoding: 0 = not in a stack (clearBuffer initializes the array, and
//   a finished mark leaves it all zero), BOTTOM = last element of its stack,
//   otherwise the next node id; bit 31 = CLAIMED. Algorithm 1 uses -1 and -2.
//
// - Wide objects (with DIVERGENCE; Maas et al. §5.2 brought to DFS). One thread
//   expanding an array of 100,000 references serializes the whole mark. A thread that meets an object of more than SPLIT references appends
//   it to the `wide` list and visits none of them; the next dispatch, dfs_wide,
//   spreads them all over the grid's workgroups, one reference (or vec4) per
//   thread at a time, each thread pushing what it marks onto its own stack.
//   (Expanding the first SPLIT itself would leave the thread that expanded an
//   array of list heads with SPLIT lists to chase: docs/decisions/r19g-0008.)
//
// - Narrow tails (our addition, not in FastCollect; Maas et al. §5.4 for DFS).
//   When only a few threads hold work round after round (a long linked list is
//   one thread's pointer chase, latency-bound on the GPU), the host stops the
//   rounds and dfs_drain lists the nodes still waiting in the threads' global
//   stacks into `wide` (free once the rounds stopped); the CPU expands them
//   from the mark bitmap read back (engines/dfs.ts, engines/cpu-trace.ts).
//
// Young collections (Algorithm 4): each thread links the young nodes it marks
// into its storage stack (`store`, indexed like `stack`) and appends them to
// `live` with one atomicAdd per batch, at the end of each dispatch. (A private
// array for the batch lives in local memory and costs registers in every loop
// that marks.) With the live list in address order (order.wgsl rebuilds it
// from the mark bitmap) the storage stack has no reader, and STORAGE_STACK is
// off: a thread only counts what it marked, sparing a store per node
// (docs/decisions/r19g-0001, r19g-0008).
//
// A thread keeps its next node (the newest of its hybrid stack) across
// dispatches in `threads` rather than spilling it where idle threads steal: a
// thread chasing one list has nothing else, and a theft only moves the chase to
// another thread a little later in the round, while the theft races cost
// rounds (docs/decisions/r19g-0008). Only nodes beyond the next are shared.
//
// Idle threads' scans (load balancing) are bounded to SCAN_BUDGET elements per
// dispatch, resuming where they stopped: under the sable layout the stack is
// indexed by address / 4 over the whole young range (~170 elements per thread
// with a 1 GiB heap), and a full scan per dispatch cost every idle thread that
// many dependent loads while busy threads chased lists.

// CLAIMED, BOTTOM, SPLIT, THREAD_WORDS, DRAIN_CAP and the CTL_* slots of `ctl`
// come from kernels/constants.ts DFS, generated ahead of this file.

var<private> top: u32;      // top of this thread's global stack, 0 = empty
var<private> lcount: u32;   // depth of this thread's hybrid stack
var<private> lbase: u32;    // this thread's slice of lstack
var<private> shead: u32;    // storage stack of marked young nodes
var<private> scount: u32;
var<private> pushed: u32;   // pushes since dfs_mark last reset it (pointer-chase test)

// The hybrid stack (§4.1): LCAP elements per thread in workgroup memory, LCAP
// derived at start-up from the adapter's workgroup storage and the workgroup size.
var<workgroup> lstack: array<u32, LSTACK_WORDS>;

fn pushGlobal(n: u32) {
  atomicStore(&stack[stackIndex(n)], select(top, BOTTOM, top == 0u));
  top = n;
}

// Algorithm 1, with the hybrid stack in front: workgroup memory first, the
// global stack once it is full.
fn push(n: u32) {
  pushed += 1u;
  if (HYBRID && lcount < LCAP) {
    lstack[lbase + lcount] = n;
    lcount += 1u;
    return;
  }
  pushGlobal(n);
}

// Algorithm 2. The global stack holds the newest elements whenever it is not
// empty (pushes only go there while the hybrid stack is full), so it is popped
// first; elements claimed by an idle thread are unlinked and skipped.
fn pop() -> u32 {
  loop {
    if (top != 0u) {
      let n = top;
      let i = stackIndex(n);
      var v: u32;
      if (BALANCE) {
        v = atomicExchange(&stack[i], 0u);
      } else {
        v = atomicLoad(&stack[i]);
        atomicStore(&stack[i], 0u);
      }
      let next = v & BOTTOM;
      top = select(next, 0u, next == BOTTOM);
      if ((v & CLAIMED) != 0u) { continue; }
      return n;
    }
    if (HYBRID && lcount > 0u) {
      lcount -= 1u;
      return lstack[lbase + lcount];
    }
    return 0u;
  }
}

fn record(n: u32) {
  if (YOUNG) {
    if (STORAGE_STACK) {
      store[stackIndex(n)] = shead;
      shead = n;
    }
    scount += 1u;
  }
}

// A thread whose last mark succeeded skips the atomic optimization's plain
// load: in a pointer chase every successor is unmarked, and the load only
// lengthens each step's chain of dependent round trips; on shared referents
// (most marks fail) the load comes back.
var<private> won: bool;

fn visit(raw: u32) {
  let n = decodeRef(raw);
  if (n != 0u) { markNext(n); }
}

// Marks young-or-traced node n != 0 and, if this thread was first, pushes it.
fn markNext(n: u32) -> bool {
  var first: bool;
  if (won) { first = tryMarkAtomic(n); } else { first = tryMark(n); }
  won = first;
  if (first) {
    push(n);
    record(n);
  }
  return first;
}

// Visits the lanes of quad v (words i..i+3) that lie in [s, e); i < e.
fn visitQuad(v: vec4<u32>, i: u32, s: u32, e: u32) {
  if (i >= s) { visit(v.x); }
  if (i + 1u >= s && i + 1u < e) { visit(v.y); }
  if (i + 2u >= s && i + 2u < e) { visit(v.z); }
  if (i + 3u >= s && i + 3u < e) { visit(v.w); }
}

// Visits references [s, e) of generation g, quads q0, q0+stride, ... of them
// with the vector optimization (§4.3: aligned vec4 loads, lanes outside [s, e)
// dropped), else words s+k0, s+k0+stride, ...
fn visitRange(g: u32, s: u32, e: u32, k0: u32, stride: u32) {
  if (VECTOR) {
    let qe = (e + 3u) >> 2u;
    for (var q = (s >> 2u) + k0; q < qe; q += stride) { visitQuad(refQuad(g, q), q << 2u, s, e); }
  } else {
    visitWords(g, s, e, k0, stride);
  }
}

fn visitWords(g: u32, s: u32, e: u32, k0: u32, stride: u32) {
  for (var i = s + k0; i < e; i += stride) { visit(refWord(g, i)); }
}

// Visits references [s, e) of the heap, the first quad already loaded
// (PREFETCH, which implies VECTOR).
fn visitFromQuad(first: vec4<u32>, s: u32, e: u32) {
  if (e <= s) { return; }
  let q0 = s >> 2u;
  visitQuad(first, q0 << 2u, s, e);
  let qe = (e + 3u) >> 2u;
  for (var q = q0 + 1u; q < qe; q += 1u) { visitQuad(refQuad(0u, q), q << 2u, s, e); }
}

// Algorithm 3, lines 10-12. With PREFETCH (sable, vector loads) the first quad
// of references is loaded beside the header word that counts them, so a list
// node costs one memory round trip before its successor is known, not two.
// A node with one reference (a pointer chase) goes further: its successor's
// header and first quad are loaded before the atomic that marks it, so the
// two round trips overlap, and the next expand() takes them from `ahead`.
// With CHASE_LOOP the chase goes on in chase() for as long as the budget
// (`maxChase` nodes) allows; `chased` tells dfs_mark how many nodes it marked.
var<private> aheadNode: u32;
var<private> aheadRefs: vec3<u32>;
var<private> aheadQuad: vec4<u32>;
var<private> chased: u32;

fn expand(n: u32, maxChase: u32) -> u32 {
  var pre = vec4<u32>(0u);
  var r: vec3<u32>;
  chased = 0u;
  if (PREFETCH && n == aheadNode) {
    pre = aheadQuad;
    r = aheadRefs;
  } else {
    if (PREFETCH) { pre = firstRefQuad(n); }
    r = nodeRefs(n);
  }
  var count = r.z;
  if (DIVERGENCE && count > SPLIT) {
    let w = atomicAdd(&ctl[CTL_WIDE_TAIL], 1u);
    if (w < params.wideCap) {
      wide[w] = n;
      count = 0u;
    }
  }
  if (PREFETCH && count == 1u) {
    let s = decodeRef(lane(pre, r.y & 3u));
    if (s != 0u) {
      if (CHASE_LOOP && CHASE_AHEAD > 1u) {
        chased = chaseAhead(s, max(1u, maxChase), s - n);
      } else if (CHASE_LOOP) {
        chased = chase(s, max(1u, maxChase));
      } else {
        let q = firstRefQuad(s);
        let h = nodeRefs(s);
        if (markNext(s)) {
          aheadNode = s;
          aheadQuad = q;
          aheadRefs = h;
        }
        chased = 1u;
      }
    }
  } else if (PREFETCH) {
    visitFromQuad(pre, r.y, r.y + count);
  } else {
    visitRange(r.x, r.y, r.y + count, 0u, 1u);
  }
  return count;
}

// Keeps s (marked by this thread, its header and first quad loaded) on the
// hybrid stack for a general expansion: the next expand() takes the loads.
fn keepAhead(s: u32, q: vec4<u32>, h: vec3<u32>) {
  push(s);
  aheadNode = s;
  aheadQuad = q;
  aheadRefs = h;
}

// A pointer chase in one loop (CHASE_LOOP): from s, the only reference of a
// node this thread marked, mark node after node while each has exactly one
// reference, at most maxSteps of them, each step's loads of the successor's
// header and first quad sent beside its atomic. Returns the nodes marked; the
// last one, if it has references to visit, is kept (keepAhead).
//
// Going through dfs_mark's loop (push, pop, the budget, the steal test) for
// each node made a chase slower; so did sending each successor's atomic before
// its predecessor's came back, though sound, since whoever wins a mark expands
// the node (docs/decisions/r19g-0008).
fn chase(first: u32, maxSteps: u32) -> u32 {
  var s = first;
  var steps = 0u;
  loop {
    let q = firstRefQuad(s);
    let h = nodeRefs(s);
    var mine: bool;
    if (won) { mine = tryMarkAtomic(s); } else { mine = tryMark(s); }
    won = mine;
    if (!mine) { return steps; }
    record(s);
    steps += 1u;
    if (h.z != 1u) {
      // No references: done. More than one: a general expansion, later.
      if (h.z != 0u) { keepAhead(s, q, h); }
      return steps;
    }
    let next = decodeRef(lane(q, h.y & 3u));
    if (next == 0u) { return steps; }
    if (steps >= maxSteps) {
      keepAhead(s, q, h);
      return steps;
    }
    s = next;
  }
}

// A pointer chase that marks CHASE_AHEAD nodes per memory round trip
// (CHASE_AHEAD > 1, the default), by predicting where the next nodes lie.
//
// chase() is latency-bound: each node's loads wait for its predecessor's.
// But a list built node
// after node lies at a constant stride in the heap, and a copying collector
// that evacuates in address order keeps it so. So with the stride of the last
// step known, a run of CHASE_AHEAD nodes (the node itself and its guessed
// successors at s + j * stride) is loaded at once, header count and first
// reference of each. A guess is accepted only if the accepted node before it
// has exactly one reference and that reference is the guessed address: then it
// is that node, and its words were loaded from it, so a wrong guess costs only
// wasted loads, never a wrong mark. The accepted nodes' marks go out together
// (one atomicOr per bitmap word), and so do the loads of the next run, before
// the marks come back: loads of a read-only mirror are sound whatever comes of
// the marks.
//
// Ownership is as in chase(): whoever wins a node's mark expands it. Inside a
// run every accepted node but the last has one reference, the next accepted
// node, whose mark this thread tried; so the chase goes on only if this thread
// won the run's last node, and stops if it lost it (its winner goes on). A
// node lost in the middle of a run leaves later ones won and expanded here.
//
// chaseAhead(first, maxSteps, stride0) is generated, unrolled, for the
// adapter's CHASE_AHEAD by engines/chase-ahead.ts and appended to this file: each of a
// run's nodes lives in scalars of its own: written as loops over arrays, the
// run went through local memory and chased no faster than chase()
// (docs/decisions/r19g-0002).
var<private> guessed: u32;  // nodes accepted from guesses, added to ctl at finish()

// Algorithm 5, made sound (see the top): scan this thread's area of the global
// stack, resuming where the last scan stopped, at most once around and at most
// SCAN_BUDGET elements per dispatch. The areas split params.scan*: the whole
// stack, or with `--gpu-opt areas=occupied` a young mark's occupied young
// spaces only (with the whole young range split over 131,072 threads, a
// collection whose eden is empty leaves nearly every idle thread scanning where
// no young object lies).
fn steal(t: u32, cursor: ptr<function, u32>, scanned: ptr<function, u32>) -> u32 {
  // Thread t's area: positions [start, end) of the scanned ranges laid end to end.
  let start = t * params.areaLen;
  let end = min(start + params.areaLen, params.scanN0 + params.scanN1);
  if (start >= end) { return 0u; }
  let span = end - start;
  let limit = min(span, SCAN_BUDGET);
  loop {
    if (*scanned >= limit) { return 0u; }
    *scanned += 1u;
    if (*cursor >= span) { *cursor = 0u; }
    let p = start + *cursor;
    *cursor += 1u;
    let i = select(params.scanLo1 + (p - params.scanN0), params.scanLo0 + p, p < params.scanN0);
    let v = atomicLoad(&stack[i]);
    if (v == 0u || (v & CLAIMED) != 0u) { continue; }
    let n = nodeFromStackIndex(i);
    if (n == 0u) { continue; }
    if (atomicCompareExchangeWeak(&stack[i], v, v | CLAIMED).exchanged) { return n; }
  }
}

// Algorithm 4, lines 14-17: one atomicAdd reserves room for the whole batch.
// Without the storage stack only the count is kept.
fn flushYoung() {
  if (!YOUNG || scount == 0u) { return; }
  var at = atomicAdd(&ctl[CTL_LIVE], scount);
  if (!STORAGE_STACK) {
    scount = 0u;
    return;
  }
  var n = shead;
  for (var k = 0u; k < scount; k += 1u) {
    if (at < params.liveCap) { live[at] = nodeAddress(n); }
    at += 1u;
    n = store[stackIndex(n)];
  }
  shead = 0u;
  scount = 0u;
}

fn finish(t: u32) {
  // Workgroup memory does not outlive the dispatch: keep the newest node of the
  // hybrid stack (the next to pop) for this thread, and spill the rest, oldest
  // first, where idle threads find it next round.
  var next = 0u;
  if (HYBRID && lcount > 0u) {
    lcount -= 1u;
    next = lstack[lbase + lcount];
    for (var k = 0u; k < lcount; k += 1u) { pushGlobal(lstack[lbase + k]); }
    lcount = 0u;
  }
  threads[THREAD_WORDS * t] = top;
  threads[THREAD_WORDS * t + 2u] = next;
  if (top != 0u || next != 0u) { atomicAdd(&ctl[CTL_BUSY], 1u); }
  if (top != 0u) { atomicAdd(&ctl[CTL_STACKED], 1u); }
  if (guessed != 0u) { atomicAdd(&ctl[CTL_GUESSED], guessed); }
  flushYoung();
}

// Starts a dispatch's work for thread t: its global stack's top and the node it kept.
fn resume(t: u32, lid: u32) {
  top = threads[THREAD_WORDS * t];
  lcount = 0u;
  lbase = lid * LCAP;
  shead = 0u;
  scount = 0u;
  let next = threads[THREAD_WORDS * t + 2u];
  if (HYBRID && next != 0u) {
    lstack[lbase] = next;
    lcount = 1u;
  }
}

// Marks and pushes the roots: thread t takes roots t, t+T, t+2T, ...
@compute @workgroup_size(WG)
fn dfs_init(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let t = gid.x;
  // The first submit cleared `threads`: every thread starts with nothing.
  resume(t, lid);
  for (var r = t; r < params.rootCount; r += params.threadCount) { visit(roots[r]); }
  finish(t);
}

@compute @workgroup_size(WG)
fn dfs_mark(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  // After the last round with work, the host's remaining dispatches cost nothing.
  if (atomicLoad(&ctl[CTL_LAST_BUSY]) == 0u) { return; }
  let t = gid.x;
  resume(t, lid);
  var cursor = threads[THREAD_WORDS * t + 1u];
  // In chain-ths of a step: a pointer chase (the hybrid stack held nothing
  // besides n, and n leaves at most one child) costs one, any other expansion
  // a whole step per 16 references. The budget bounds a dispatch and makes
  // threads spill their hybrid stacks, which idle threads cannot see, to the
  // global stack, which they can; a chase has nothing there to spill. `chain`
  // is dfs_advance's choice for this round (0 before the first).
  let chain = max(CHAIN_STEPS, atomicLoad(&ctl[CTL_CHAIN]));
  // Every element of the global stack hangs below some thread's top: when no
  // thread ended the last round with a top, there is nothing to steal, and
  // idle threads leave at once instead of scanning (see dfs_advance).
  let stealable = atomicLoad(&ctl[CTL_LAST_STACKED]) != 0u;
  var budget = STEP_BUDGET * chain;
  var scanned = 0u;
  loop {
    if (budget == 0u) { break; }
    var n = pop();
    if (n == 0u) {
      if (!BALANCE || !stealable) { break; }
      n = steal(t, &cursor, &scanned);
      if (n == 0u) { break; }
    }
    // In broad rounds a chase is cheap even with other work held: a thread
    // that was chasing one list when it took the head of another keeps both
    // (the one finish() spills it pops back first), and charging it whole
    // steps made the 2560 lists end in a tail of 64 steps a round.
    let discount = lcount == 0u || chain > CHAIN_STEPS;
    pushed = 0u;
    let refs = expand(n, select(1u, budget, discount));
    var cost = chain * (1u + (refs >> 4u));
    if (pushed <= 1u && discount) { cost = max(1u, chased); }
    budget -= min(budget, cost);
  }
  threads[THREAD_WORDS * t + 1u] = cursor;
  finish(t);
}

// The grid visits the references of this round's wide objects, one quad or
// word per thread at a time (Maas et al. §5.2: a wide object spread over the
// workgroup). With n wide objects and G workgroups, each object
// gets max(1, G / n) workgroups and min(n, G) objects are visited at once: a
// thread loops over the objects of its workgroup only. (Every thread looping over
// every wide object cost CompleteGraph, with 131,072 threads and 1,782-5,000 wide
// arrays per round, 0.2-0.7 billion header loads.)
@compute @workgroup_size(WG)
fn dfs_wide(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
            @builtin(workgroup_id) wgid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let head = atomicLoad(&ctl[CTL_WIDE_HEAD]);
  let tail = min(atomicLoad(&ctl[CTL_WIDE_TAIL]), params.wideCap);
  if (head >= tail) { return; }
  let t = gid.x;
  resume(t, lid);
  let n = tail - head;
  let per = max(1u, nwg.x / n);
  let slots = nwg.x / per;
  if (wgid.x < slots * per) {
    let k0 = (wgid.x % per) * WG + lid;
    for (var w = head + wgid.x / per; w < tail; w += slots) {
      let r = nodeRefs(wide[w]);
      let s = r.y;
      let e = r.y + r.z;
      // Quads only when the object's threads each get more than one: a quad is
      // four DFS roots for one thread to chase in turn, which doubles the rounds
      // of an array of list heads (docs/decisions/r19g-0008).
      if (e - s >= 4u * per * WG) {
        visitRange(r.x, s, e, k0, per * WG);
      } else {
        visitWords(r.x, s, e, k0, per * WG);
      }
    }
  }
  finish(t);
}

// One thread between rounds: publishes how many threads still hold work, and
// the chase discount of the rounds to come. Until a round ends broad (more
// busy threads than the narrow-tail threshold) it stays CHAIN_STEPS, so a long
// list's one chase shows the host a narrow tail in as many rounds as before
// and goes to the CPU; from then on it is BROAD_CHAIN_STEPS: fewer, longer
// rounds, and the last few chases of many (a thread that took a second list
// while chasing one) finish in them rather than in a submit of short rounds
// (docs/decisions/r19g-0004). It also publishes how many threads ended the
// round with a global stack (CTL_LAST_STACKED): none means idle threads have
// nothing to steal, and their scans would only cost the chasing threads
// (r19g-0004).
@compute @workgroup_size(1)
fn dfs_advance() {
  let busy = atomicLoad(&ctl[CTL_BUSY]);
  if (busy > params.fallbackThreshold) { atomicStore(&ctl[CTL_CHAIN], BROAD_CHAIN_STEPS); }
  atomicStore(&ctl[CTL_LAST_BUSY], busy);
  atomicStore(&ctl[CTL_BUSY], 0u);
  atomicStore(&ctl[CTL_LAST_STACKED], atomicLoad(&ctl[CTL_STACKED]));
  atomicStore(&ctl[CTL_STACKED], 0u);
  atomicStore(&ctl[CTL_WIDE_HEAD], min(atomicLoad(&ctl[CTL_WIDE_TAIL]), params.wideCap));
  atomicAdd(&ctl[CTL_ROUNDS], 1u);
}

// The CPU fallback's hand-over: each thread lists the unclaimed elements of its
// global stack (claimed ones were expanded by the thief) into `wide`, at most
// DRAIN_CAP in all; past that ctl[CTL_DRAIN_OVERFLOW] tells the host to go on
// on the GPU. Reads only: the stacks are left as they are.
@compute @workgroup_size(WG)
fn dfs_drain(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t = gid.x;
  if (t >= params.threadCount) { return; }
  let kept = threads[THREAD_WORDS * t + 2u];
  if (kept != 0u) {
    let at = atomicAdd(&ctl[CTL_PENDING], 1u);
    if (at >= DRAIN_CAP) {
      atomicStore(&ctl[CTL_DRAIN_OVERFLOW], 1u);
      return;
    }
    wide[at] = kept;
  }
  var n = threads[THREAD_WORDS * t];
  var walked = 0u;
  loop {
    if (n == 0u) { break; }
    if (walked >= DRAIN_CAP) {
      atomicStore(&ctl[CTL_DRAIN_OVERFLOW], 1u);
      break;
    }
    walked += 1u;
    let v = atomicLoad(&stack[stackIndex(n)]);
    if (v == 0u) { break; }
    if ((v & CLAIMED) == 0u) {
      let at = atomicAdd(&ctl[CTL_PENDING], 1u);
      if (at >= DRAIN_CAP) {
        atomicStore(&ctl[CTL_DRAIN_OVERFLOW], 1u);
        break;
      }
      wide[at] = n;
    }
    let next = v & BOTTOM;
    n = select(next, 0u, next == BOTTOM);
  }
}
