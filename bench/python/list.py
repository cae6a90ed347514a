"""Python twin of bench/programs/awfy/list.mini (same algorithm, same output).

List from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license), written from the suite's
algorithm. Usage: list.py [INNER_ITERATIONS]   (default 100)
"""
import awfy


class Element:
    __slots__ = ("val", "next")

    def __init__(self, v):
        self.val = v
        self.next = None

    def length(self):
        if self.next is None:
            return 1
        return 1 + self.next.length()


def make_list(length):
    if length == 0:
        return None
    e = Element(length)
    e.next = make_list(length - 1)
    return e


def is_shorter_than(x, y):
    x_tail = x
    y_tail = y
    while y_tail is not None:
        if x_tail is None:
            return True
        x_tail = x_tail.next
        y_tail = y_tail.next
    return False


def tail(x, y, z):
    if is_shorter_than(y, x):
        return tail(tail(x.next, y, z), tail(y.next, z, x), tail(z.next, x, y))
    return z


def benchmark():
    result = tail(make_list(15), make_list(10), make_list(6))
    return result.length()


def verify_result(result):
    return result == 10


def main(inner_iterations):
    awfy.run("List", benchmark, verify_result, inner_iterations)


if __name__ == "__main__":
    main(awfy.inner_iterations_arg(100))
