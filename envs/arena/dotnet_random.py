"""The random numbers of .NET's ``System.Random(seed)``, so spawners drop their goals where Animal-AI does.

Why: Animal-AI's spawners do not use Unity's random generator for where and how big their goals
appear; ``GoalSpawner.Awake`` makes its own ``System.Random`` with fixed seeds (1 for the spawn angle,
``spawnSizeSeed`` = 1 for the size), so every SpawnerTree of every episode drops its fruit in the same
sequence of places. Reproducing that sequence needs the generator itself: the seeded algorithm of
.NET's ``System.Random`` (Knuth's subtractive generator, as in Mono's and .NET Framework's class
library, which Unity's scripting runtime uses), written here from its published description.

Only what the spawners call is provided: ``next_double`` (``NextDouble``) and ``next_int``
(``Next(min, max)``).
"""

from __future__ import annotations

_MBIG = 2**31 - 1  # int.MaxValue
_MSEED = 161803398
_SIZE = 56


class DotNetRandom:
    """``System.Random(seed)``: the same sequence for the same seed, on every machine."""

    def __init__(self, seed: int) -> None:
        state = [0] * _SIZE
        subtraction = _MBIG if seed == -(2**31) else abs(seed)
        mj = _MSEED - subtraction
        state[55] = mj
        mk = 1
        for i in range(1, 55):
            ii = (21 * i) % 55
            state[ii] = mk
            mk = mj - mk
            if mk < 0:
                mk += _MBIG
            mj = state[ii]
        for _ in range(4):
            for i in range(1, 56):
                state[i] -= state[1 + (i + 30) % 55]  # both in [0, MBIG): no 32-bit overflow
                if state[i] < 0:
                    state[i] += _MBIG
        self._state = state
        self._inext = 0
        self._inextp = 21

    def _sample(self) -> int:
        self._inext = 1 if self._inext + 1 >= _SIZE else self._inext + 1
        self._inextp = 1 if self._inextp + 1 >= _SIZE else self._inextp + 1
        value = self._state[self._inext] - self._state[self._inextp]
        if value == _MBIG:
            value -= 1
        if value < 0:
            value += _MBIG
        self._state[self._inext] = value
        return value

    def next_double(self) -> float:
        """``NextDouble()``: uniform in [0, 1)."""
        return self._sample() * (1.0 / _MBIG)

    def next_int(self, low: int, high: int) -> int:
        """``Next(low, high)``: an integer in [low, high) (ranges below 2^31, all the spawners use)."""
        if high < low:
            raise ValueError(f"high ({high}) must not be below low ({low})")
        return int(self.next_double() * (high - low)) + low
