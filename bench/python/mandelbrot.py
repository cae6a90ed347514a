"""Python twin of bench/programs/awfy/mandelbrot.mini (same algorithm, same output).

Mandelbrot from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
https://github.com/smarr/are-we-fast-yet, MIT license), written from the suite's
algorithm. The inner iteration count is the image size.
Usage: mandelbrot.py [INNER_ITERATIONS]   (default 500)
"""
import awfy


def wrap32(x):
    return ((x + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def mandelbrot(size):
    total = 0
    byte_acc = 0
    bit_num = 0
    y = 0
    while y < size:
        ci = (2.0 * y / size) - 1.0
        x = 0
        while x < size:
            zr = 0.0
            zrzr = 0.0
            zi = 0.0
            zizi = 0.0
            cr = (2.0 * x / size) - 1.5
            z = 0
            not_done = True
            escape = 0
            while not_done and z < 50:
                zr = zrzr - zizi + cr
                zi = 2.0 * zr * zi + ci
                zrzr = zr * zr
                zizi = zi * zi
                if zrzr + zizi > 4.0:
                    not_done = False
                    escape = 1
                z += 1
            byte_acc = wrap32((byte_acc << 1) + escape)
            bit_num += 1
            if bit_num == 8:
                total ^= byte_acc
                byte_acc = 0
                bit_num = 0
            elif x == size - 1:
                byte_acc = wrap32(byte_acc << (8 - bit_num))
                total ^= byte_acc
                byte_acc = 0
                bit_num = 0
            x += 1
        y += 1
    return total


def verify_result(result, inner_iterations):
    if inner_iterations == 500:
        return result == 191
    if inner_iterations == 750:
        return result == 50
    if inner_iterations == 1:
        return result == 128
    print(f"No verification result for {inner_iterations} found")
    print(f"Result is: {result}")
    return False


def main(inner_iterations):
    result = mandelbrot(inner_iterations)
    print(f"Mandelbrot: {result}")
    ok = verify_result(result, inner_iterations)
    print("verified: " + awfy.show(ok))


if __name__ == "__main__":
    main(awfy.inner_iterations_arg(500))
