// Java twin of bench/programs/vp_linked_list.mini: LISTS lists of NODES nodes, all but
// one garbage at once; forces COLLECTIONS young and COLLECTIONS full collections while
// the kept one is live.
// Usage: java VpLinkedList [LISTS] [NODES] [COLLECTIONS]
final class VpLinkedList {
  static final class Node {
    int value;
    Node next;
    Node(int value, Node next) {
      this.value = value;
      this.next = next;
    }
  }

  static Node build(int base, int nodes) {
    Node head = null;
    for (int i = 0; i < nodes; i++) head = new Node(base + i, head);
    return head;
  }

  public static void main(String[] args) {
    int lists = Gc.arg(args, 0, 16);
    int nodes = Gc.arg(args, 1, 8192);
    int collections = Gc.arg(args, 2, 3);
    Node kept = null;
    int dropped = 0;
    for (int l = 0; l < lists; l++) {
      Node list = build(l * nodes, nodes);
      if (l == lists / 2) kept = list;
      else dropped += list.value;
    }
    Gc.markForced();
    Gc.minorGc(collections);
    Gc.gc(collections);
    int count = 0;
    int sum = 0;
    for (Node n = kept; n != null; n = n.next) {
      count++;
      sum += n.value;
    }
    System.out.println(count);
    System.out.println(sum);
    System.out.println(dropped);
  }
}
