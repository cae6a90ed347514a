// The seed papers' figures for the GC microbenchmarks, to print beside ours.
//
// FastCollect (/work/shared/papers/000_dffa1fbe268fadde.txt), Table 1: execution
// time in ms of the young generation collection algorithms (mark only; ParGC
// excludes copying), averages of five iterations, on a quad-core Intel i7-3610QM and
// its integrated HD 4000 GPU (16 execution units), which shares memory with the CPU.
// Maas et al. (/work/shared/papers/001_69d7a9730de2ec69.txt), Table 1: average mark
// times in ms on an AMD E-350 APU (2 Bobcat cores at 1.6 GHz, Radeon with 2 compute
// units), no overheads included. Their Long Linked List has 10,000 elements and their
// 2560 lists 3,000 elements each (ours follow FastCollect: 2M and 1,000).

export const fastCollect = {
  long_linked_list: { ParGC: 7.71, GPU: 2.68, 'GPU+O': 0.79 },
  parallel_lists_256: { ParGC: 10.27, GPU: 1.77, 'GPU+O': 0.96 },
  parallel_lists_2560: { ParGC: 15.23, GPU: 2.54, 'GPU+O': 0.87 },
  complete_graph: { ParGC: 5.95, GPU: 3.13, 'GPU+O': 1.34 },
};

export const maas = {
  long_linked_list: { size: '156 KB', CPU: 0.151, GPU: 94.604, 'GPU+VD': 85.412, 'GPU+2CU': 84.173 },
  parallel_lists_256: { size: '39 MB', CPU: 129.723, GPU: 140.465, 'GPU+VD': 120.984, 'GPU+2CU': 102.092 },
  parallel_lists_2560: { size: '117 MB', CPU: 1074.92, GPU: 415.553, 'GPU+VD': 356.986, 'GPU+2CU': 194.317 },
  very_wide_object: { size: '3.92 KB', CPU: 0.018, GPU: 1.862, 'GPU+VD': 0.221, 'GPU+2CU': 0.22 },
  vp_linked_list: { size: '4 MB', CPU: 0.15, GPU: 77.462, 'GPU+VD': 69.802, 'GPU+2CU': 68.843 },
  vp_array_of_objects: { size: '20 MB', CPU: 1.347, GPU: 5.361, 'GPU+VD': 3.095, 'GPU+2CU': 1.693 },
};

/** Write-barrier (double write) overheads the papers report for a reference-graph layout. */
export const layoutOverhead = { maas: 0.4, fastCollect: 0.03 };
