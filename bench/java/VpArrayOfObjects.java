// Java twin of bench/programs/vp_array_of_objects.mini: ARRAYS arrays of OBJECTS
// objects, only the first RETAINED arrays kept; forces COLLECTIONS young and
// COLLECTIONS full collections while they are live.
// Usage: java VpArrayOfObjects [ARRAYS] [OBJECTS] [RETAINED] [COLLECTIONS]
final class VpArrayOfObjects {
  static final class Item {
    int value;
    Item(int value) { this.value = value; }
  }

  public static void main(String[] args) {
    int arrays = Gc.arg(args, 0, 1024);
    int objects = Gc.arg(args, 1, 1024);
    int retainedCount = Gc.arg(args, 2, 64);
    int collections = Gc.arg(args, 3, 3);
    Item[][] retained = new Item[retainedCount][];
    int droppedSum = 0;
    for (int a = 0; a < arrays; a++) {
      Item[] arr = new Item[objects];
      for (int i = 0; i < objects; i++) arr[i] = new Item(a + i);
      if (a < retainedCount) retained[a] = arr;
      else droppedSum += arr[a % objects].value;
    }
    Gc.markForced();
    Gc.minorGc(collections);
    Gc.gc(collections);
    int count = 0;
    int sum = 0;
    for (int a = 0; a < retainedCount; a++) {
      for (int i = 0; i < objects; i++) {
        count++;
        sum += retained[a][i].value;
      }
    }
    System.out.println(count);
    System.out.println(sum);
    System.out.println(droppedSum);
  }
}
