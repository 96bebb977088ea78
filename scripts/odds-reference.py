#!/usr/bin/env python3
"""Reference values for the odds and seeds tests (Tests/MonkeyCoreTests/Odds*.swift,
SeededTypingTests.swift) and for the test vectors in monkeyd(8).

Computed independently of the Swift code: the probability that an entry of N
characters over an alphabet of k contains a target comes from Conway's
correlation polynomial (Guibas and Odlyzko, 1981) in exact integer arithmetic,
not from the automaton the daemon uses. The number of strings of length n that
do not contain the target t (m characters) has the generating function

    f(z) = c(z) / (z^m + (1 - k z) c(z)),

where c(z) = sum of z^i over the periods i of t (0 <= i < m, t[i:] == t[:m-i]).
So p = 1 - f_N / k^N, exactly, as a fraction. Seeded texts follow the
specification in monkeyd(8) ("Reproducible typing").

Run: python3 scripts/odds-reference.py
"""

from fractions import Fraction
from decimal import Decimal, getcontext
import itertools

getcontext().prec = 60
MASK = (1 << 64) - 1


def avoiding_counts(target, k, n_max):
    """f_0 ... f_n_max: the number of strings of each length avoiding target."""
    m = len(target)
    c = [1 if target[i:] == target[:m - i] else 0 for i in range(m)]
    # D(z) = z^m + c(z) - k z c(z)
    d = [0] * (m + 1)
    for i, ci in enumerate(c):
        d[i] += ci
        d[i + 1] -= k * ci
    d[m] += 1
    assert d[0] == 1
    terms = [(i, di) for i, di in enumerate(d) if i > 0 and di != 0]
    f = []
    for n in range(n_max + 1):
        value = c[n] if n < m else 0
        for i, di in terms:
            if i <= n:
                value -= di * f[n - i]
        f.append(value)
    return f


def probability(target, k, n):
    """p as an exact fraction."""
    f = avoiding_counts(target, k, n)
    return Fraction(k ** n - f[n], k ** n)


def brute_force(target, alphabet, n):
    count = sum(1 for s in itertools.product(alphabet, repeat=n) if target in "".join(s))
    return Fraction(count, len(alphabet) ** n)


def four_digits(x, places=3):
    """x (a Fraction or Decimal, > 0) as %.3e with an unbounded exponent."""
    x = Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, Fraction) else Decimal(x)
    text = f"{x:.{places}e}"
    mantissa, exponent = text.split("e")
    sign = "-" if exponent.startswith("-") else "+"
    digits = exponent.lstrip("+-").lstrip("0") or "0"
    return f"{mantissa}e{sign}{digits.rjust(2, '0')}"


def chance(p, typed):
    """1 - (1 - p)^typed, to 60 digits."""
    q = 1 - Decimal(p.numerator) / Decimal(p.denominator)
    return 1 - q ** typed


# --- seeds -------------------------------------------------------------------

def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
    return z ^ (z >> 31)


def seeded_text(seed, entry_id, monkeys, alphabet):
    state = mix((mix(seed) + entry_id * 0x9e3779b97f4a7c15) & MASK)
    letters = list(alphabet)
    k = len(letters)

    def draw():
        nonlocal state
        state = (state + 0xa0761d6478bd642f) & MASK
        product = state * (state ^ 0xe7037ed1a0b428db)
        return (product >> 64) ^ (product & MASK)

    text = []
    for _ in range(monkeys):
        product = draw() * k
        threshold = ((1 << 64) - k) % k
        while product & MASK < threshold:
            product = draw() * k
        text.append(letters[product >> 64])
    return "".join(text)


LATIN = "abcdefghijklmnopqrstuvwxyz"
# 256 characters: printable ASCII, then U+00A0 ... U+0140.
WIDE = "".join(chr(c) for c in range(0x20, 0x7F)) + "".join(chr(c) for c in range(0xA0, 0xA0 + 161))
# A 1024-character target of period 7, so with 146 borders.
PERIODIC = ("monkey!" * 147)[:1024]


def main():
    assert len(WIDE) == 256
    # Conway's formula agrees with brute force on small cases.
    for alphabet in ("ab", "abc"):
        for m in range(1, 4 if alphabet == "abc" else 5):
            for target in map("".join, itertools.product(alphabet, repeat=m)):
                for n in range(0, 7):
                    assert probability(target, len(alphabet), n) == brute_force(target, alphabet, n), target

    print("# p, 1/p and 1 - p")
    cases = [
        ("abc", LATIN, 3),
        ("a", LATIN, 10000),
        ("abracadabra", LATIN, 10000),
        ("aab", "ab", 10000),
        ("ab" * 10, "ab", 10000),
        (PERIODIC, WIDE, 10000),
        (PERIODIC, WIDE, 1024),
        ("a" * 1024, LATIN, 1024),
        (PERIODIC, "".join(sorted(set(PERIODIC))), 10000),
    ]
    for target, alphabet, n in cases:
        p = probability(target, len(alphabet), n)
        shown = target if len(target) <= 20 else f"{target[:10]}... ({len(target)})"
        print(f"{shown!r} k={len(alphabet)} N={n}: p={four_digits(p)} 1/p={four_digits(1 / p)} "
              f"1-p={four_digits(1 - p) if p != 1 else 0}")
        print(f"    p={four_digits(p, 15)} 1-p={four_digits(1 - p, 15) if p != 1 else 0}")

    print("# chance = 1 - (1 - p)^typed")
    for target, alphabet, n, typed in [
        ("abc", LATIN, 3, 10000),
        ("abc", LATIN, 3, 5_000_000_000),
        ("abcdefghijk", LATIN, 11, 3_000_000_000),
        ("abcdefghijk", LATIN, 11, 1),
    ]:
        p = probability(target, len(alphabet), n)
        print(f"{target!r} k={len(alphabet)} N={n} typed={typed}: chance={four_digits(chance(p, typed))}")
    p = probability(PERIODIC, 256, 10000)
    print(f"periodic k=256 N=10000 typed=7000000000: chance={four_digits(p * 7_000_000_000)}")

    print("# seeded texts")
    for seed, entry_id, monkeys, alphabet in [
        (0, 1, 10, LATIN),
        (42, 1, 10, LATIN),
        (42, 2, 10, LATIN),
        (18446744073709551615, 7, 12, LATIN),
        (2024, 1000000, 8, "01"),
        (7, 3, 6, "äöü🐒"),
    ]:
        print(f"seed={seed} id={entry_id} monkeys={monkeys} alphabet={alphabet!r}: "
              f"{seeded_text(seed, entry_id, monkeys, alphabet)!r}")
    print(f"mix(0)={mix(0):#x} mix(1)={mix(1):#x} state(42,1)="
          f"{mix((mix(42) + 0x9e3779b97f4a7c15) & MASK):#x}")


if __name__ == "__main__":
    main()
