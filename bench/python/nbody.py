"""Python twin of bench/programs/awfy/nbody.mini (same algorithm, same output).

NBody from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license), written from the suite's
algorithm. Usage: nbody.py [INNER_ITERATIONS]   (default 20000)
"""
import awfy
import math

PI = 3.141592653589793
SOLAR_MASS = 4.0 * PI * PI
DAYS_PER_YEAR = 365.24


def fmt(x):
    """mini's float format for values of ordinary magnitude (Python's repr agrees)."""
    s = repr(x)
    return s


class Body:
    __slots__ = ("x", "y", "z", "vx", "vy", "vz", "mass")

    def __init__(self, x, y, z, vx, vy, vz, mass):
        self.x = x
        self.y = y
        self.z = z
        self.vx = vx * DAYS_PER_YEAR
        self.vy = vy * DAYS_PER_YEAR
        self.vz = vz * DAYS_PER_YEAR
        self.mass = mass * SOLAR_MASS

    def offset_momentum(self, px, py, pz):
        self.vx = 0.0 - (px / SOLAR_MASS)
        self.vy = 0.0 - (py / SOLAR_MASS)
        self.vz = 0.0 - (pz / SOLAR_MASS)


def jupiter():
    return Body(4.84143144246472090, -1.16032004402742839, -0.103622044471123109,
                0.00166007664274403694, 0.00769901118419740425, -0.0000690460016972063023,
                0.000954791938424326609)


def saturn():
    return Body(8.34336671824457987, 4.12479856412430479, -0.403523417114321381,
                -0.00276742510726862411, 0.00499852801234917238, 0.0000230417297573763929,
                0.000285885980666130812)


def uranus():
    return Body(12.8943695621391310, -15.1111514016986312, -0.223307578892655734,
                0.00296460137564761618, 0.00237847173959480950, -0.0000296589568540237556,
                0.0000436624404335156298)


def neptune():
    return Body(15.3796971148509165, -25.9193146099879641, 0.179258772950371181,
                0.00268067772490389322, 0.00162824170038242295, -0.0000951592254519715870,
                0.0000515138902046611451)


def sun():
    return Body(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


class NBodySystem:
    def __init__(self):
        self.bodies = self.create_bodies()

    def create_bodies(self):
        bodies = [sun(), jupiter(), saturn(), uranus(), neptune()]
        px = py = pz = 0.0
        for b in bodies:
            px = px + b.vx * b.mass
            py = py + b.vy * b.mass
            pz = pz + b.vz * b.mass
        bodies[0].offset_momentum(px, py, pz)
        return bodies

    def advance(self, dt):
        bodies = self.bodies
        n = len(bodies)
        for i in range(n):
            i_body = bodies[i]
            for j in range(i + 1, n):
                j_body = bodies[j]
                dx = i_body.x - j_body.x
                dy = i_body.y - j_body.y
                dz = i_body.z - j_body.z
                d_squared = dx * dx + dy * dy + dz * dz
                distance = math.sqrt(d_squared)
                mag = dt / (d_squared * distance)
                i_body.vx = i_body.vx - (dx * j_body.mass * mag)
                i_body.vy = i_body.vy - (dy * j_body.mass * mag)
                i_body.vz = i_body.vz - (dz * j_body.mass * mag)
                j_body.vx = j_body.vx + (dx * i_body.mass * mag)
                j_body.vy = j_body.vy + (dy * i_body.mass * mag)
                j_body.vz = j_body.vz + (dz * i_body.mass * mag)
        for body in bodies:
            body.x = body.x + dt * body.vx
            body.y = body.y + dt * body.vy
            body.z = body.z + dt * body.vz

    def energy(self):
        e = 0.0
        bodies = self.bodies
        n = len(bodies)
        for i in range(n):
            i_body = bodies[i]
            e = e + 0.5 * i_body.mass * (i_body.vx * i_body.vx + i_body.vy * i_body.vy + i_body.vz * i_body.vz)
            for j in range(i + 1, n):
                j_body = bodies[j]
                dx = i_body.x - j_body.x
                dy = i_body.y - j_body.y
                dz = i_body.z - j_body.z
                distance = math.sqrt(dx * dx + dy * dy + dz * dz)
                e = e - (i_body.mass * j_body.mass) / distance
        return e


def verify_result(result, inner_iterations):
    if inner_iterations == 250000:
        return result == -0.1690859889909308
    if inner_iterations == 1:
        return result == -0.16907495402506745
    if inner_iterations == 20000:
        return result == VALUE_20000
    print(f"No verification result for {inner_iterations} found")
    print("Result is:")
    print(fmt(result))
    return False


VALUE_20000 = -0.16908926275526803


def main(inner_iterations):
    system = NBodySystem()
    for _ in range(inner_iterations):
        system.advance(0.01)
    energy = system.energy()
    print(fmt(energy))
    print("verified: " + awfy.show(verify_result(energy, inner_iterations)))


if __name__ == "__main__":
    main(awfy.inner_iterations_arg(20000))
