// Java twin of bench/programs/binary_trees.mini (the Benchmarks Game's binary-trees,
// a class per node and a recursive check()). No forced collections: every pause in its
// -Xlog:gc output is an allocation-failure collection.
// Usage: java BinaryTrees [MAX_DEPTH]
final class BinaryTrees {
  static final class TreeNode {
    final TreeNode left;
    final TreeNode right;
    TreeNode(TreeNode left, TreeNode right) {
      this.left = left;
      this.right = right;
    }
    int check() {
      if (left == null) return 1;
      return 1 + left.check() + right.check();
    }
  }

  static TreeNode bottomUpTree(int depth) {
    if (depth > 0) return new TreeNode(bottomUpTree(depth - 1), bottomUpTree(depth - 1));
    return new TreeNode(null, null);
  }

  public static void main(String[] args) {
    int minDepth = 4;
    int maxDepth = Gc.arg(args, 0, 16);
    if (minDepth + 2 > maxDepth) maxDepth = minDepth + 2;
    int stretchDepth = maxDepth + 1;
    System.out.println("stretch tree of depth " + stretchDepth + " check: " + bottomUpTree(stretchDepth).check());
    TreeNode longLivedTree = bottomUpTree(maxDepth);
    for (int depth = minDepth; depth <= maxDepth; depth += 2) {
      int iterations = 1 << (maxDepth - depth + minDepth);
      int check = 0;
      for (int i = 1; i <= iterations; i++) check += bottomUpTree(depth).check();
      System.out.println(iterations + " trees of depth " + depth + " check: " + check);
    }
    System.out.println("long lived tree of depth " + maxDepth + " check: " + longLivedTree.check());
  }
}
