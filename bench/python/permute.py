"""Python twin of bench/programs/awfy/permute.mini (same algorithm, same output).

Permute from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license), written from the suite's
algorithm. Usage: permute.py [INNER_ITERATIONS]   (default 100)
"""
import awfy


class Permute:
    def __init__(self):
        self.count = 0
        self.v = None

    def benchmark(self):
        self.count = 0
        self.v = [0] * 6
        self.permute(6)
        return self.count

    def permute(self, n):
        self.count += 1
        if n != 0:
            n1 = n - 1
            self.permute(n1)
            for i in range(n1, -1, -1):
                self.swap(n1, i)
                self.permute(n1)
                self.swap(n1, i)

    def swap(self, i, j):
        tmp = self.v[i]
        self.v[i] = self.v[j]
        self.v[j] = tmp

    def verify_result(self, result):
        return result == 8660


def main(inner_iterations):
    bench = Permute()
    awfy.run("Permute", bench.benchmark, bench.verify_result, inner_iterations)


if __name__ == "__main__":
    main(awfy.inner_iterations_arg(100))
