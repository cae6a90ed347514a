// Java twin of bench/programs/parallel_lists_256.mini and parallel_lists_2560.mini:
// LISTS linked lists of NODES nodes, heads in one array; forces COLLECTIONS young and
// COLLECTIONS full collections while they are live.
// Usage: java ParallelLists [LISTS] [NODES] [COLLECTIONS]
final class ParallelLists {
  static final class Node {
    int value;
    Node next;
    Node(int value, Node next) {
      this.value = value;
      this.next = next;
    }
  }

  public static void main(String[] args) {
    int lists = Gc.arg(args, 0, 256);
    int nodes = Gc.arg(args, 1, 10000);
    int collections = Gc.arg(args, 2, 3);
    Node[] heads = new Node[lists];
    for (int l = 0; l < lists; l++) {
      Node head = null;
      for (int i = 0; i < nodes; i++) head = new Node(l + i, head);
      heads[l] = head;
    }
    Gc.markForced();
    Gc.minorGc(collections);
    Gc.gc(collections);
    int count = 0;
    int sum = 0;
    for (int l = 0; l < lists; l++) {
      for (Node n = heads[l]; n != null; n = n.next) {
        count++;
        sum += n.value;
      }
    }
    System.out.println(count);
    System.out.println(sum);
  }
}
