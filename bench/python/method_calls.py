"""Python twin of bench/programs/method_calls.mini (same algorithm, same output).

The old Shootout's "Method Calls" (methcall): Toggle / NthToggle, activate() then
value() N times on each. Usage: method_calls.py [N]
"""
import sys


class Toggle:
    def __init__(self, start):
        self.state = start

    def value(self):
        return self.state

    def activate(self):
        self.state = not self.state
        return self


class NthToggle(Toggle):
    def __init__(self, start, max_counter):
        super().__init__(start)
        self.count_max = max_counter
        self.counter = 0

    def activate(self):
        self.counter += 1
        if self.counter >= self.count_max:
            self.state = not self.state
            self.counter = 0
        return self


def show(b):
    return "true" if b else "false"


def main(n):
    val = True
    toggle = Toggle(val)
    trues = 0
    for _ in range(n):
        val = toggle.activate().value()
        if val:
            trues += 1
    print(show(val))
    print(trues)

    val = True
    ntoggle = NthToggle(val, 3)
    trues = 0
    for _ in range(n):
        val = ntoggle.activate().value()
        if val:
            trues += 1
    print(show(val))
    print(trues)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2500000)
