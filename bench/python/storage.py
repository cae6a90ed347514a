"""Python twin of bench/programs/awfy/storage.mini (same algorithm, same output).

Storage from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license), written from the suite's
algorithm. Usage: storage.py [INNER_ITERATIONS]   (default 100)
"""
import awfy


class Storage:
    def __init__(self):
        self.count = 0

    def benchmark(self):
        random = awfy.Random()
        self.count = 0
        self.build_tree_depth(7, random)
        return self.count

    def build_tree_depth(self, depth, random):
        self.count += 1
        if depth == 1:
            return [None] * (random.next() % 10 + 1)
        arr = [None] * 4
        for i in range(4):
            arr[i] = self.build_tree_depth(depth - 1, random)
        return arr

    def verify_result(self, result):
        return result == 5461


def main(inner_iterations):
    bench = Storage()
    awfy.run("Storage", bench.benchmark, bench.verify_result, inner_iterations)


if __name__ == "__main__":
    main(awfy.inner_iterations_arg(100))
