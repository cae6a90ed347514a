// gpu-bfs: Maas et al., "GPUs as an Opportunity for Offloading Garbage
// Collection", section 5: frontier-queue BFS.
//
// The frontier queue holds reference words. Each workgroup takes WG entries at a
// time (Algorithm 1): marks them, counts the references of the newly marked
// ones (already-marked objects count as having none), computes every
// reference's slot in the output with on-chip offsets (histogram, Algorithm 2,
// or a Blelloch prefix sum, §5.1), reserves the chunk's output with a single
// atomicAdd on the queue tail, and copies the references there. Objects with
// more than WIDE references go to a workgroup list and are copied by the whole
// workgroup, one reference per thread (divergence handling, §5.2).
//
// Departures: one dispatch handles one level with all its workgroups striding
// over it (Maas ran one workgroup per compute unit, looping inside the kernel);
// bfs_advance, one thread, moves the level bounds between dispatches, so many
// levels chain in one submit and the host reads the queue bounds rarely. Marks
// are atomicOr on a bitmap (Maas set a header bit without an atomic, which a
// shared bitmap word does not allow); the old value tells who was first, so a
// duplicate entry is expanded once. The queue is a ring of queueCap entries;
// overwriting entries not yet read sets OVERFLOW and the host marks on the CPU.
// Null references and, in young collections, references leaving the young
// generation are copied like any other and dropped when dequeued, as Maas does.

// WIDE and the Q_* slots of `ctl` come from kernels/constants.ts BFS,
// generated ahead of this file.

var<workgroup> wgStart: u32;
var<workgroup> wgEnd: u32;
var<workgroup> wgTotal: atomic<u32>;
var<workgroup> wgMax: atomic<u32>;
var<workgroup> wgLive: atomic<u32>;
var<workgroup> wideCount: atomic<u32>;
var<workgroup> wideSum: atomic<u32>;
var<workgroup> hist: array<atomic<u32>, 3>;
var<workgroup> outBaseW: u32;
var<workgroup> totalW: u32;
var<workgroup> maxW: u32;
var<workgroup> wideCountW: u32;
var<workgroup> wideSumW: u32;
var<workgroup> liveBaseW: u32;
var<workgroup> skipW: u32;
var<workgroup> wideNode: array<u32, WG>;
var<workgroup> wideOff: array<u32, WG>;

fn put(pos: u32, raw: u32) {
  queue[pos % params.queueCap] = raw;
}

// Copies references [s, s+count) of generation g to queue positions dst,
// dst+1, ... (the prefix-sum layout): by vec4 with the vector optimization,
// quads k0, k0+stride, ... of the run, else words s+k0, s+k0+stride, ...
fn copyRun(g: u32, s: u32, count: u32, dst: u32, k0: u32, stride: u32) {
  let e = s + count;
  if (VECTOR) {
    let qe = (e + 3u) >> 2u;
    for (var q = (s >> 2u) + k0; q < qe; q += stride) {
      let v = refQuad(g, q);
      for (var k = 0u; k < 4u; k += 1u) {
        let i = (q << 2u) + k;
        if (i >= s && i < e) { put(dst + i - s, lane(v, k)); }
      }
    }
  } else {
    for (var i = s + k0; i < e; i += stride) { put(dst + i - s, refWord(g, i)); }
  }
}

@compute @workgroup_size(WG)
fn bfs_level(@builtin(local_invocation_index) lid: u32,
             @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  if (lid == 0u) {
    let s = atomicLoad(&ctl[Q_START]);
    var e = atomicLoad(&ctl[Q_END]);
    if (atomicLoad(&ctl[Q_STOP]) != 0u || atomicLoad(&ctl[Q_OVERFLOW]) != 0u) { e = s; }
    wgStart = s;
    wgEnd = e;
  }
  let qs = workgroupUniformLoad(&wgStart);
  let qe = workgroupUniformLoad(&wgEnd);

  for (var base = qs + wid.x * WG; base < qe; base += nwg.x * WG) {
    if (lid == 0u) {
      atomicStore(&wgTotal, 0u);
      atomicStore(&wgMax, 0u);
      atomicStore(&wgLive, 0u);
      atomicStore(&wideCount, 0u);
      atomicStore(&wideSum, 0u);
      atomicStore(&hist[0], 0u);
      atomicStore(&hist[1], 0u);
      atomicStore(&hist[2], 0u);
    }
    workgroupBarrier();

    // Algorithm 1, lines 5-11: dequeue, mark, read the reference count.
    var n = 0u;
    var g = 0u;
    var rs = 0u;
    var rc = 0u;
    let idx = base + lid;
    if (idx < qe) {
      let m = decodeRef(queue[idx % params.queueCap]);
      if (m != 0u && tryMark(m)) {
        n = m;
        let r = nodeRefs(m);
        g = r.x;
        rs = r.y;
        rc = r.z;
      }
    }
    var liveSlot = 0u;
    if (YOUNG && n != 0u) { liveSlot = atomicAdd(&wgLive, 1u); }
    if (rc > 0u) {
      atomicAdd(&wgTotal, rc);
      if (DIVERGENCE && rc > WIDE) {
        let w = atomicAdd(&wideCount, 1u);
        wideNode[w] = n;
        wideOff[w] = atomicAdd(&wideSum, rc);
        rc = 0u;
      } else {
        atomicMax(&wgMax, rc);
      }
    }
    workgroupBarrier();

    // One atomicAdd per chunk reserves its output: narrow objects' references
    // first, then the wide objects'.
    if (lid == 0u) {
      let total = atomicLoad(&wgTotal);
      var ob = 0u;
      if (total > 0u) { ob = atomicAdd(&ctl[Q_TAIL], total); }
      skipW = 0u;
      if (total > 0u && ob + total - qs > params.queueCap) {
        atomicStore(&ctl[Q_OVERFLOW], 1u);
        skipW = 1u;
      }
      outBaseW = ob;
      totalW = total;
      maxW = atomicLoad(&wgMax);
      wideCountW = atomicLoad(&wideCount);
      wideSumW = atomicLoad(&wideSum);
      let nl = atomicLoad(&wgLive);
      liveBaseW = 0u;
      if (YOUNG && nl > 0u) { liveBaseW = atomicAdd(&ctl[Q_LIVE], nl); }
    }
    let outBase = workgroupUniformLoad(&outBaseW);
    let total = workgroupUniformLoad(&totalW);
    let maxRc = workgroupUniformLoad(&maxW);
    let nWide = workgroupUniformLoad(&wideCountW);
    let wideTotal = workgroupUniformLoad(&wideSumW);
    let liveBase = workgroupUniformLoad(&liveBaseW);
    let skip = workgroupUniformLoad(&skipW) != 0u;

    if (YOUNG && n != 0u && liveBase + liveSlot < params.liveCap) {
      live[liveBase + liveSlot] = nodeAddress(n);
    }

    if (HISTOGRAM) {
      // Algorithm 2: round i places every object's i-th reference; the atomic
      // count of round i gives each thread its slot and the round's size. Three
      // counters rotate so that one barrier per round suffices: round i resets
      // the counter of round i+2, last read before this round's barrier.
      var goff = outBase;
      var quad = vec4<u32>();
      for (var i = 0u; i < maxRc; i += 1u) {
        var lo = 0u;
        if (i < rc) { lo = atomicAdd(&hist[i % 3u], 1u); }
        workgroupBarrier();
        let cnt = atomicLoad(&hist[i % 3u]);
        if (lid == 0u) { atomicStore(&hist[(i + 2u) % 3u], 0u); }
        if (i < rc && !skip) {
          let k = rs + i;
          var word: u32;
          if (VECTOR) {
            if (i == 0u || (k & 3u) == 0u) { quad = refQuad(g, k >> 2u); }
            word = lane(quad, k & 3u);
          } else {
            word = refWord(g, k);
          }
          put(goff + lo, word);
        }
        goff += cnt;
      }
    } else {
      // §5.1's first strategy: Blelloch's work-efficient exclusive scan of the
      // counts in workgroup memory (scan.wgsl); each object's references land
      // consecutively.
      let off = workgroupScan(rc, lid).x;
      if (rc > 0u && !skip) { copyRun(g, rs, rc, outBase + off, 0u, 1u); }
    }

    // §5.2: the whole workgroup copies each wide object, one reference (or one
    // vec4) per thread, in the same iteration.
    if (DIVERGENCE) {
      let wideBase = outBase + total - wideTotal;
      for (var w = 0u; w < nWide; w += 1u) {
        let r = nodeRefs(wideNode[w]);
        let dst = wideBase + wideOff[w];
        if (!skip) { copyRun(r.x, r.y, r.z, dst, lid, WG); }
      }
    }
    // The next chunk resets the workgroup counters and lists.
    workgroupBarrier();
  }
}

// One thread between levels: the next level is what the last one appended.
// With the fallback on, a level narrower than the threshold after the minimum
// number of levels stops the GPU (Maas §5.4, defaults 20 and 5).
@compute @workgroup_size(1)
fn bfs_advance() {
  if (atomicLoad(&ctl[Q_STOP]) != 0u || atomicLoad(&ctl[Q_OVERFLOW]) != 0u) { return; }
  let s = atomicLoad(&ctl[Q_START]);
  let e = atomicLoad(&ctl[Q_END]);
  if (s == e) { return; }
  let tail = atomicLoad(&ctl[Q_TAIL]);
  atomicStore(&ctl[Q_START], e);
  atomicStore(&ctl[Q_END], tail);
  let level = atomicAdd(&ctl[Q_LEVEL], 1u) + 1u;
  let size = tail - e;
  if (FALLBACK && size > 0u && level >= params.fallbackMinIterations && size < params.fallbackThreshold) {
    atomicStore(&ctl[Q_STOP], 1u);
  }
}
