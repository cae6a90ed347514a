// Java twin of bench/programs/very_wide_object.mini: one array of WIDTH objects; each of
// ROUNDS rounds forces a young and a full collection while it is live (the second half
// of the rounds replaces the elements with new objects first).
// Usage: java VeryWideObject [WIDTH] [ROUNDS]
final class VeryWideObject {
  static final class Item {
    int value;
    Item(int value) { this.value = value; }
  }

  public static void main(String[] args) {
    int width = Gc.arg(args, 0, 1000);
    int rounds = Gc.arg(args, 1, 20);
    Item[] wide = new Item[width];
    for (int i = 0; i < width; i++) wide[i] = new Item(i);
    int checksum = 0;
    Gc.markForced();
    for (int round = 0; round < rounds; round++) {
      if (round >= rounds / 2) {
        for (int i = 0; i < width; i++) wide[i] = new Item(i + round);
      }
      Gc.minorGc(1);
      Gc.gc(1);
      for (int i = 0; i < width; i++) checksum += wide[i].value;
    }
    System.out.println(wide.length);
    System.out.println(checksum);
  }
}
