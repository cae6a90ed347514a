"""Shared pieces of the Python twins of the Are We Fast Yet benchmarks
(bench/programs/awfy/*.mini; the suite is Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license).

The twins run as `python3 bench/python/<name>.py [INNER_ITERATIONS]`, so this
module's folder is on sys.path and they import it as `awfy`.
"""
import sys


class Random:
    """The suite's som.Random: a 16-bit linear congruential generator."""

    def __init__(self):
        self.seed = 74755

    def next(self):
        self.seed = ((self.seed * 1309) + 13849) & 65535
        return self.seed


def show(value):
    """A value as the .mini versions print it: booleans as true / false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def inner_iterations_arg(default):
    """The one command-line argument, INNER_ITERATIONS, or the benchmark's default."""
    return int(sys.argv[1]) if len(sys.argv) > 1 else default


def run(name, benchmark, verify_result, inner_iterations, result=0):
    """The suite's inner benchmark loop: run benchmark() inner_iterations times,
    verify each result, then print the last result and whether all verified.
    `result` is what is printed when inner_iterations is 0."""
    verified = True
    for _ in range(inner_iterations):
        result = benchmark()
        if not verify_result(result):
            verified = False
    print(f"{name}: {show(result)}")
    print("verified: " + show(verified))
