// Java twin of bench/programs/long_linked_list.mini: one list of LENGTH nodes from one
// root; forces COLLECTIONS young and COLLECTIONS full collections while it is live.
// Usage: java LongLinkedList [LENGTH] [COLLECTIONS]
final class LongLinkedList {
  static final class Node {
    int value;
    Node next;
    Node(int value) { this.value = value; }
  }

  public static void main(String[] args) {
    int length = Gc.arg(args, 0, 2000000);
    int collections = Gc.arg(args, 1, 3);
    Node head = new Node(0);
    Node tail = head;
    for (int i = 1; i < length; i++) {
      Node node = new Node(i);
      tail.next = node;
      tail = node;
    }
    tail = null;
    Gc.markForced();
    Gc.minorGc(collections);
    Gc.gc(collections);
    int count = 0;
    int sum = 0;
    for (Node n = head; n != null; n = n.next) {
      count++;
      sum += n.value;
    }
    System.out.println(count);
    System.out.println(sum);
  }
}
