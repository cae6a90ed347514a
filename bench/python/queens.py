"""Python twin of bench/programs/awfy/queens.mini (same algorithm, same output).

Queens from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license), written from the suite's
algorithm. Usage: queens.py [INNER_ITERATIONS]   (default 100)
"""
import awfy


class Queens:
    def benchmark(self):
        result = True
        for _ in range(10):
            result = result and self.queens()
        return result

    def queens(self):
        self.free_rows = [True] * 8
        self.free_maxs = [True] * 16
        self.free_mins = [True] * 16
        self.queen_rows = [-1] * 8
        return self.place_queen(0)

    def place_queen(self, c):
        for r in range(8):
            if self.get_row_column(r, c):
                self.queen_rows[r] = c
                self.set_row_column(r, c, False)
                if c == 7:
                    return True
                if self.place_queen(c + 1):
                    return True
                self.set_row_column(r, c, True)
        return False

    def get_row_column(self, r, c):
        return self.free_rows[r] and self.free_maxs[c + r] and self.free_mins[c - r + 7]

    def set_row_column(self, r, c, v):
        self.free_rows[r] = v
        self.free_maxs[c + r] = v
        self.free_mins[c - r + 7] = v

    def verify_result(self, result):
        return result


def main(inner_iterations):
    bench = Queens()
    awfy.run("Queens", bench.benchmark, bench.verify_result, inner_iterations, result=False)


if __name__ == "__main__":
    main(awfy.inner_iterations_arg(100))
