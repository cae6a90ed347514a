"""Python twin of bench/programs/awfy/deltablue.mini (same algorithm, same output).

DeltaBlue from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license), written from the suite's
algorithm with the same port choices as the .mini version (shared Strength
objects, a small Vector class, markInputs / inputsKnown instead of closures).
Usage: deltablue.py [INNER_ITERATIONS]   (default 2000)
"""
import awfy


class Strength:
    __slots__ = ("arithmetic_value",)

    def __init__(self, arithmetic_value):
        self.arithmetic_value = arithmetic_value

    def same_as(self, s):
        return self.arithmetic_value == s.arithmetic_value

    def stronger(self, s):
        return self.arithmetic_value < s.arithmetic_value

    def weaker(self, s):
        return self.arithmetic_value > s.arithmetic_value

    def strongest(self, s):
        return s if s.stronger(self) else self

    def weakest(self, s):
        return s if s.weaker(self) else self


ABSOLUTE_STRONGEST = Strength(-10000)
REQUIRED = Strength(-800)
STRONG_PREFERRED = Strength(-600)
PREFERRED = Strength(-400)
STRONG_DEFAULT = Strength(-200)
DEFAULT = Strength(0)
WEAK_DEFAULT = Strength(500)
ABSOLUTE_WEAKEST = Strength(10000)

NONE = 0
FORWARD = 1
BACKWARD = 2

failed = False
failure = ""


def fail(message):
    global failed, failure
    if not failed:
        failure = message
    failed = True


class Vector:
    """The suite's som.Vector: a growable array with a moving first index."""

    def __init__(self, size):
        self.storage = [None] * size
        self.first_idx = 0
        self.last_idx = 0

    def at(self, idx):
        return self.storage[self.first_idx + idx]

    def append(self, elem):
        if self.last_idx >= len(self.storage):
            self.storage = self.storage + [None] * len(self.storage)
        self.storage[self.last_idx] = elem
        self.last_idx += 1

    def is_empty(self):
        return self.last_idx == self.first_idx

    def size(self):
        return self.last_idx - self.first_idx

    def remove_first(self):
        if self.is_empty():
            return None
        self.first_idx += 1
        return self.storage[self.first_idx - 1]

    def remove(self, obj):
        new_array = [None] * len(self.storage)
        new_last = 0
        found = False
        for i in range(self.first_idx, self.last_idx):
            it = self.storage[i]
            if it is obj:
                found = True
            else:
                new_array[new_last] = it
                new_last += 1
        self.storage = new_array
        self.last_idx = new_last
        self.first_idx = 0
        return found


def vector_with(elem):
    v = Vector(1)
    v.append(elem)
    return v


class Plan(Vector):
    def __init__(self):
        super().__init__(15)

    def execute(self):
        for i in range(self.size()):
            self.at(i).execute()


class Variable:
    def __init__(self):
        self.value = 0
        self.constraints = Vector(2)
        self.determined_by = None
        self.walk_strength = ABSOLUTE_WEAKEST
        self.stay = True
        self.mark = 0

    def add_constraint(self, c):
        self.constraints.append(c)

    def remove_constraint(self, c):
        self.constraints.remove(c)
        if self.determined_by is c:
            self.determined_by = None


def variable_with_value(value):
    v = Variable()
    v.value = value
    return v


def input_unknown(v, mark):
    return not (v.mark == mark or v.stay or v.determined_by is None)


class AbstractConstraint:
    def __init__(self, strength):
        self.strength = strength

    def is_input(self):
        return False

    def add_constraint(self, planner):
        self.add_to_graph()
        planner.incremental_add(self)

    def destroy_constraint(self, planner):
        if self.is_satisfied():
            planner.incremental_remove(self)
        self.remove_from_graph()

    def satisfy(self, mark, planner):
        self.choose_method(mark)
        if self.is_satisfied():
            self.mark_inputs(mark)
            out = self.get_output()
            overridden = out.determined_by
            if overridden is not None:
                overridden.mark_unsatisfied()
            out.determined_by = self
            if not planner.add_propagate(self, mark):
                fail("Cycle encountered")
            out.mark = mark
        else:
            overridden = None
            if self.strength.same_as(REQUIRED):
                fail("Could not satisfy a required constraint")
        return overridden


class UnaryConstraint(AbstractConstraint):
    def __init__(self, v, strength, planner):
        super().__init__(strength)
        self.output = v
        self.satisfied = False
        self.add_constraint(planner)

    def is_satisfied(self):
        return self.satisfied

    def add_to_graph(self):
        self.output.add_constraint(self)
        self.satisfied = False

    def remove_from_graph(self):
        if self.output is not None:
            self.output.remove_constraint(self)
        self.satisfied = False

    def choose_method(self, mark):
        self.satisfied = self.output.mark != mark and self.strength.stronger(self.output.walk_strength)

    def mark_inputs(self, mark):
        pass

    def inputs_known(self, mark):
        return True

    def mark_unsatisfied(self):
        self.satisfied = False

    def get_output(self):
        return self.output

    def recalculate(self):
        self.output.walk_strength = self.strength
        self.output.stay = not self.is_input()
        if self.output.stay:
            self.execute()


class EditConstraint(UnaryConstraint):
    def is_input(self):
        return True

    def execute(self):
        pass


class StayConstraint(UnaryConstraint):
    def execute(self):
        pass


class BinaryConstraint(AbstractConstraint):
    def __init__(self, var1, var2, strength, planner):
        super().__init__(strength)
        self.v1 = var1
        self.v2 = var2
        self.direction = NONE

    def is_satisfied(self):
        return self.direction != NONE

    def add_to_graph(self):
        self.v1.add_constraint(self)
        self.v2.add_constraint(self)
        self.direction = NONE

    def remove_from_graph(self):
        if self.v1 is not None:
            self.v1.remove_constraint(self)
        if self.v2 is not None:
            self.v2.remove_constraint(self)
        self.direction = NONE

    def choose_method(self, mark):
        if self.v1.mark == mark:
            if self.v2.mark != mark and self.strength.stronger(self.v2.walk_strength):
                self.direction = FORWARD
            else:
                self.direction = NONE
            return
        if self.v2.mark == mark:
            if self.v1.mark != mark and self.strength.stronger(self.v1.walk_strength):
                self.direction = BACKWARD
            else:
                self.direction = NONE
            return
        if self.v1.walk_strength.weaker(self.v2.walk_strength):
            self.direction = BACKWARD if self.strength.stronger(self.v1.walk_strength) else NONE
        else:
            self.direction = FORWARD if self.strength.stronger(self.v2.walk_strength) else NONE

    def mark_inputs(self, mark):
        if self.direction == FORWARD:
            self.v1.mark = mark
        else:
            self.v2.mark = mark

    def inputs_known(self, mark):
        if self.direction == FORWARD:
            return not input_unknown(self.v1, mark)
        return not input_unknown(self.v2, mark)

    def mark_unsatisfied(self):
        self.direction = NONE

    def get_output(self):
        return self.v2 if self.direction == FORWARD else self.v1

    def recalculate(self):
        if self.direction == FORWARD:
            ihn, out = self.v1, self.v2
        else:
            ihn, out = self.v2, self.v1
        out.walk_strength = self.strength.weakest(ihn.walk_strength)
        out.stay = ihn.stay
        if out.stay:
            self.execute()


class EqualityConstraint(BinaryConstraint):
    def __init__(self, var1, var2, strength, planner):
        super().__init__(var1, var2, strength, planner)
        self.add_constraint(planner)

    def execute(self):
        if self.direction == FORWARD:
            self.v2.value = self.v1.value
        else:
            self.v1.value = self.v2.value


def int_div(a, b):
    """int / int truncating toward zero, as in mini and Java."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


class ScaleConstraint(BinaryConstraint):
    def __init__(self, src, scale, offset, dest, strength, planner):
        super().__init__(src, dest, strength, planner)
        self.scale = scale
        self.offset = offset
        self.add_constraint(planner)

    def add_to_graph(self):
        self.v1.add_constraint(self)
        self.v2.add_constraint(self)
        self.scale.add_constraint(self)
        self.offset.add_constraint(self)
        self.direction = NONE

    def remove_from_graph(self):
        if self.v1 is not None:
            self.v1.remove_constraint(self)
        if self.v2 is not None:
            self.v2.remove_constraint(self)
        if self.scale is not None:
            self.scale.remove_constraint(self)
        if self.offset is not None:
            self.offset.remove_constraint(self)
        self.direction = NONE

    def execute(self):
        if self.direction == FORWARD:
            self.v2.value = self.v1.value * self.scale.value + self.offset.value
        else:
            self.v1.value = int_div(self.v2.value - self.offset.value, self.scale.value)

    def mark_inputs(self, mark):
        if self.direction == FORWARD:
            self.v1.mark = mark
        else:
            self.v2.mark = mark
        self.scale.mark = mark
        self.offset.mark = mark

    def inputs_known(self, mark):
        first = self.v1 if self.direction == FORWARD else self.v2
        return not (input_unknown(first, mark) or input_unknown(self.scale, mark)
                    or input_unknown(self.offset, mark))

    def recalculate(self):
        if self.direction == FORWARD:
            ihn, out = self.v1, self.v2
        else:
            out, ihn = self.v1, self.v2
        out.walk_strength = self.strength.weakest(ihn.walk_strength)
        out.stay = ihn.stay and self.scale.stay and self.offset.stay
        if out.stay:
            self.execute()


class Planner:
    def __init__(self):
        self.current_mark = 1

    def incremental_add(self, c):
        mark = self.new_mark()
        overridden = c.satisfy(mark, self)
        while overridden is not None:
            overridden = overridden.satisfy(mark, self)

    def incremental_remove(self, c):
        out = c.get_output()
        c.mark_unsatisfied()
        c.remove_from_graph()
        unsatisfied = self.remove_propagate_from(out)
        for i in range(unsatisfied.size()):
            self.incremental_add(unsatisfied.at(i))

    def extract_plan_from_constraints(self, constraints):
        sources = Vector(50)
        for i in range(constraints.size()):
            c = constraints.at(i)
            if c.is_input() and c.is_satisfied():
                sources.append(c)
        return self.make_plan(sources)

    def make_plan(self, sources):
        mark = self.new_mark()
        plan = Plan()
        todo = sources
        while not todo.is_empty():
            c = todo.remove_first()
            if c.get_output().mark != mark and c.inputs_known(mark):
                plan.append(c)
                c.get_output().mark = mark
                self.add_constraints_consuming_to(c.get_output(), todo)
        return plan

    def add_constraints_consuming_to(self, v, coll):
        determining = v.determined_by
        cs = v.constraints
        for i in range(cs.size()):
            c = cs.at(i)
            if c is not determining and c.is_satisfied():
                coll.append(c)

    def add_propagate(self, c, mark):
        todo = vector_with(c)
        while not todo.is_empty():
            d = todo.remove_first()
            if d.get_output().mark == mark:
                self.incremental_remove(c)
                return False
            d.recalculate()
            self.add_constraints_consuming_to(d.get_output(), todo)
        return True

    def remove_propagate_from(self, out):
        unsatisfied = Vector(50)
        out.determined_by = None
        out.walk_strength = ABSOLUTE_WEAKEST
        out.stay = True
        todo = Vector(1)
        todo.append(out)
        while not todo.is_empty():
            v = todo.remove_first()
            cs = v.constraints
            for i in range(cs.size()):
                c = cs.at(i)
                if not c.is_satisfied():
                    unsatisfied.append(c)
            determining = v.determined_by
            for i in range(cs.size()):
                nxt = cs.at(i)
                if nxt is not determining and nxt.is_satisfied():
                    nxt.recalculate()
                    todo.append(nxt.get_output())
        return unsatisfied

    def change(self, v, new_value):
        edit_c = EditConstraint(v, PREFERRED, self)
        edit_v = vector_with(edit_c)
        plan = self.extract_plan_from_constraints(edit_v)
        for _ in range(10):
            v.value = new_value
            plan.execute()
        edit_c.destroy_constraint(self)

    def new_mark(self):
        self.current_mark += 1
        return self.current_mark


def chain_test(n):
    planner = Planner()
    variables = [Variable() for _ in range(n + 1)]
    for i in range(n):
        EqualityConstraint(variables[i], variables[i + 1], REQUIRED, planner)
    StayConstraint(variables[n], STRONG_DEFAULT, planner)
    edit_c = EditConstraint(variables[0], PREFERRED, planner)
    edit_v = vector_with(edit_c)
    plan = planner.extract_plan_from_constraints(edit_v)
    for i in range(100):
        variables[0].value = i
        plan.execute()
        if variables[n].value != i:
            fail("Chain test failed!")
    edit_c.destroy_constraint(planner)


def projection_test(n):
    planner = Planner()
    dests = Vector(50)
    scale = variable_with_value(10)
    offset = variable_with_value(1000)
    src = None
    dst = None
    for i in range(1, n + 1):
        src = variable_with_value(i)
        dst = variable_with_value(i)
        dests.append(dst)
        StayConstraint(src, DEFAULT, planner)
        ScaleConstraint(src, scale, offset, dst, REQUIRED, planner)

    planner.change(src, 17)
    if dst.value != 1170:
        fail("Projection test 1 failed!")
    planner.change(dst, 1050)
    if src.value != 5:
        fail("Projection test 2 failed!")
    planner.change(scale, 5)
    for i in range(n - 1):
        if dests.at(i).value != (i + 1) * 5 + 1000:
            fail("Projection test 3 failed!")
    planner.change(offset, 2000)
    for i in range(n - 1):
        if dests.at(i).value != (i + 1) * 5 + 2000:
            fail("Projection test 4 failed!")


def inner_benchmark_loop(inner_iterations):
    chain_test(inner_iterations)
    projection_test(inner_iterations)
    return not failed


def main(inner_iterations):
    ok = inner_benchmark_loop(inner_iterations)
    if failed:
        print(failure)
    print("DeltaBlue: " + ("true" if ok else "false"))
    print("verified: " + awfy.show(ok))


if __name__ == "__main__":
    main(awfy.inner_iterations_arg(2000))
