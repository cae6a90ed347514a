// Java twin of bench/programs/binary_tree_gc.mini: a complete binary tree of depth
// DEPTH, live while COLLECTIONS young and COLLECTIONS full collections are forced.
// Usage: java BinaryTreeGc [DEPTH] [COLLECTIONS]
final class BinaryTreeGc {
  static final class T {
    T left;
    T right;
    int value;
    T(T left, T right, int value) {
      this.left = left;
      this.right = right;
      this.value = value;
    }
  }

  static T build(int depth, int value) {
    if (depth == 0) return new T(null, null, value);
    return new T(build(depth - 1, 2 * value), build(depth - 1, 2 * value + 1), value);
  }

  static int count(T t) {
    return t == null ? 0 : 1 + count(t.left) + count(t.right);
  }

  static int sum(T t) {
    return t == null ? 0 : t.value % 1000 + sum(t.left) + sum(t.right);
  }

  public static void main(String[] args) {
    int depth = Gc.arg(args, 0, 19);
    int collections = Gc.arg(args, 1, 3);
    T root = build(depth, 1);
    Gc.markForced();
    Gc.minorGc(collections);
    Gc.gc(collections);
    System.out.println(count(root));
    System.out.println(sum(root));
  }
}
