"""Python twin of bench/programs/awfy/towers.mini (same algorithm, same output).

Towers from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license), written from the suite's
algorithm. Usage: towers.py [INNER_ITERATIONS]   (default 100)
"""
import awfy


class TowersDisk:
    __slots__ = ("size", "next")

    def __init__(self, size):
        self.size = size
        self.next = None


class Towers:
    def __init__(self):
        self.piles = None
        self.moves_done = 0
        self.failed = False

    def benchmark(self):
        self.piles = [None] * 3
        self.build_tower_at(0, 13)
        self.moves_done = 0
        self.move_disks(13, 0, 1)
        return self.moves_done

    def verify_result(self, result):
        return not self.failed and result == 8191

    def push_disk(self, disk, pile):
        top = self.piles[pile]
        if top is not None and disk.size >= top.size:
            self.failed = True  # "Cannot put a big disk on a smaller one"
        disk.next = top
        self.piles[pile] = disk

    def pop_disk_from(self, pile):
        top = self.piles[pile]
        if top is None:
            self.failed = True  # "Attempting to remove a disk from an empty pile"
            return TowersDisk(0)
        self.piles[pile] = top.next
        top.next = None
        return top

    def move_top_disk(self, from_pile, to_pile):
        self.push_disk(self.pop_disk_from(from_pile), to_pile)
        self.moves_done += 1

    def build_tower_at(self, pile, disks):
        for i in range(disks, -1, -1):
            self.push_disk(TowersDisk(i), pile)

    def move_disks(self, disks, from_pile, to_pile):
        if disks == 1:
            self.move_top_disk(from_pile, to_pile)
        else:
            other_pile = (3 - from_pile) - to_pile
            self.move_disks(disks - 1, from_pile, other_pile)
            self.move_top_disk(from_pile, to_pile)
            self.move_disks(disks - 1, other_pile, to_pile)


def main(inner_iterations):
    bench = Towers()
    awfy.run("Towers", bench.benchmark, bench.verify_result, inner_iterations)


if __name__ == "__main__":
    main(awfy.inner_iterations_arg(100))
