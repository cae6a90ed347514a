// Where an object's references are, for the evacuation kernels (replay.wgsl,
// evacuate.wgsl), in the sable layout: a+2 counts them and they follow the
// 4-word header contiguously (heap/ref-slots.ts, the run form).

fn refCountOf(a: u32) -> u32 { return heapWord(a + 2u); }

fn refSlotOf(a: u32, j: u32) -> u32 { return a + 4u + j; }
