// Java twin of bench/programs/complete_graph.mini: NODES nodes, each with an array of
// references to all the others, ROOTS of them kept as roots; forces COLLECTIONS young
// and COLLECTIONS full collections while the graph is live, then walks it.
// Usage: java CompleteGraph [NODES] [ROOTS] [COLLECTIONS]
final class CompleteGraph {
  static final class GNode {
    int id;
    GNode[] edges;
    GNode(int id) { this.id = id; }
  }

  public static void main(String[] args) {
    int nodes = Gc.arg(args, 0, 5000);
    int rootCount = Gc.arg(args, 1, 100);
    int collections = Gc.arg(args, 2, 3);
    GNode[] all = new GNode[nodes];
    for (int i = 0; i < nodes; i++) all[i] = new GNode(i);
    for (int i = 0; i < nodes; i++) {
      GNode[] edges = new GNode[nodes - 1];
      int k = 0;
      for (int j = 0; j < nodes; j++) {
        if (j != i) edges[k++] = all[j];
      }
      all[i].edges = edges;
    }
    GNode[] roots = new GNode[rootCount];
    for (int r = 0; r < rootCount; r++) roots[r] = all[r * (nodes / rootCount)];
    all = null;
    Gc.markForced();
    Gc.minorGc(collections);
    Gc.gc(collections);
    boolean[] seen = new boolean[nodes];
    GNode[] stack = new GNode[nodes];
    int top = 1;
    stack[0] = roots[0];
    seen[roots[0].id] = true;
    int reached = 0;
    int idSum = 0;
    int edgeCount = 0;
    while (top > 0) {
      GNode node = stack[--top];
      reached++;
      idSum += node.id;
      edgeCount += node.edges.length;
      for (GNode next : node.edges) {
        if (!seen[next.id]) {
          seen[next.id] = true;
          stack[top++] = next;
        }
      }
    }
    System.out.println(reached);
    System.out.println(idSum);
    System.out.println(edgeCount);
    int rootSum = 0;
    for (int r = 0; r < rootCount; r++) rootSum += roots[r].id + roots[r].edges[r].id;
    System.out.println(rootSum);
  }
}
