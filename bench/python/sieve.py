"""Python twin of bench/programs/awfy/sieve.mini (same algorithm, same output).

Sieve from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license), written from the suite's
algorithm. Usage: sieve.py [INNER_ITERATIONS]   (default 300)
"""
import awfy


def sieve(flags, size):
    prime_count = 0
    for i in range(2, size + 1):
        if flags[i - 1]:
            prime_count += 1
            k = i + i
            while k <= size:
                flags[k - 1] = False
                k += i
    return prime_count


def benchmark():
    flags = [True] * 5000
    return sieve(flags, 5000)


def verify_result(result):
    return result == 669


def main(inner_iterations):
    awfy.run("Sieve", benchmark, verify_result, inner_iterations)


if __name__ == "__main__":
    main(awfy.inner_iterations_arg(300))
