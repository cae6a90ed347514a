"""Python twin of bench/programs/binary_trees.mini (same algorithm, same output).

The Computer Language Benchmarks Game's binary-trees, with a class per node and a
recursive check() method, as in the .mini version. Usage: binary_trees.py [MAX_DEPTH]
"""
import sys

sys.setrecursionlimit(10000)


class TreeNode:
    __slots__ = ("left", "right")

    def __init__(self, left, right):
        self.left = left
        self.right = right

    def check(self):
        if self.left is None:
            return 1
        return 1 + self.left.check() + self.right.check()


def bottom_up_tree(depth):
    if depth > 0:
        return TreeNode(bottom_up_tree(depth - 1), bottom_up_tree(depth - 1))
    return TreeNode(None, None)


def main(max_depth):
    min_depth = 4
    if min_depth + 2 > max_depth:
        max_depth = min_depth + 2
    stretch_depth = max_depth + 1
    print(f"stretch tree of depth {stretch_depth} check: {bottom_up_tree(stretch_depth).check()}")
    long_lived_tree = bottom_up_tree(max_depth)
    for depth in range(min_depth, max_depth + 1, 2):
        iterations = 1 << (max_depth - depth + min_depth)
        check = 0
        for _ in range(iterations):
            check += bottom_up_tree(depth).check()
        print(f"{iterations} trees of depth {depth} check: {check}")
    print(f"long lived tree of depth {max_depth} check: {long_lived_tree.check()}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 16)
