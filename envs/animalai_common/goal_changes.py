"""Goals whose reward or size changes over time: DecayGoal, AntiDecayGoal (RipenGoal), GrowGoal, ShrinkGoal.

Why a module of its own: what such a goal is worth when the agent reaches it is decided update by
update by Animal-AI's own scripts, including their quirks, and a researcher comparing with Animal-AI
needs the same numbers. These are plain state machines, advanced once per 0.02 s physics update
(``update``), tested alone; ``item_runtime.py`` applies their size and reward to the pybullet world.

DecayGoal / AntiDecayGoal (Rewards/Scripts/DecayGoal.cs, prefabs DecayGoal.prefab, AntiDecayGoal.prefab):

* The reward starts at the initial value and, after ``delay`` updates, moves by ``rate`` every update
  until it reaches the final value. The rate's sign is forced to the direction (down for a decay, up
  for a ripening, ``CheckIfNeedToFlip``); a final value on the wrong side is replaced by the initial
  one (the reward then never changes). Both values are clamped to 0..5.
* The size does not change: a DecayGoal is built at its initial value, an AntiDecayGoal at its final
  value (x 0.999, ``BallGoal.SetSize``). Only the colour (purple = initial end, grey = final end) and a
  radial timer show the change.
* Defaults when the file gives none (ArenaBuilders.InstantiateSpawnable): delay 0 (the prefab's 150
  is overwritten; the docs' "default 150" is not what runs), rate 0.005, and initial/final values
  chosen by the name as the file spells it: names starting "Anti" or "Grow" (or holding "Tree") get
  0.5 -> 2.5, all others 2.5 -> 0.5; v3.1.3's AntiDecayGoal ripens 0.5 -> 2.5.
* v4.1.0's RipenGoal (its name for AntiDecayGoal) is built from a prefab whose ``flipDecayDirection``
  is 0 (RipenGoal.prefab, v4.1.0): it decays like a DecayGoal. Its name does not start with "Anti"
  (v4.1.0 resolves old names first), so without values it decays 2.5 -> 0.5, and with a final value
  above the initial one it stays at the initial value. ``aai_version`` "4.1.0" reproduces that.
* Collected, it gives its current reward (not x 0.999) and ends the episode only as the last good goal.

GrowGoal / ShrinkGoal (Rewards/Scripts/SizeChangeGoal.cs):

* After ``delay`` updates the diameter moves by ``rate`` per update towards the final size; each
  step goes through ``BallGoal.SetSize``, which clamps to [min, max] of the two sizes (both clamped
  to 0..8) and multiplies by 0.999, so a growing goal ends at 0.999 x final, just short of it. A
  growing goal stops while something solid is above it or inside it (``free_to_grow``).
* The reward is the sign of the previous reward times the size. Quirk reproduced: while the arena
  builder tests the goal's place it sizes it with the prefab's range (0..0), which makes the reward
  0, and only ``SetInitialValue`` with a delay > 0 restores a positive one; so a Grow/ShrinkGoal
  without a positive ``delays`` entry is worth 0 (in v3.1.3 and v4.1.0 alike).
"""

from __future__ import annotations

from dataclasses import dataclass

from agentkit.envs.animalai_common.config import ItemParams
from agentkit.envs.animalai_common.items import RGB, Behaviour

SIZE_ADJUSTMENT = 0.999  # Prefab.cs: sizeAdjustement
DECAY_MAX = 5.0  # DecayGoal.Awake: sizeMax = 5, sizeMin = 0
SIZE_CHANGE_MAX = 8.0  # SizeChangeGoal.Start: sizeMax = 8
DEFAULT_RATE = -0.005  # ArenaBuilders.InstantiateSpawnable: changeRate default
DEFAULT_DELAY = 0.0  # ArenaBuilders.InstantiateSpawnable: delay default
RIPEN_DEFAULTS = (0.5, 2.5)  # ArenaBuilders: initial/final for names starting "Anti"/"Grow"
DECAY_DEFAULTS = (2.5, 0.5)  # ArenaBuilders: initial/final for the other names
# DecayGoal.prefab / AntiDecayGoal.prefab: initialColour, finalColour (HDR emission, as 0..255).
DECAY_INITIAL_COLOUR = (0.55506897, 0.0, 1.0)
DECAY_FINAL_COLOUR = (0.39215687, 0.39215687, 0.39215687)


def _clamp(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


def _sign(value: float) -> int:
    """C#'s ``Math.Sign``: 0 for 0."""
    return (value > 0) - (value < 0)


def round_half_even(value: float) -> int:
    """Unity's ``Mathf.RoundToInt`` (halves go to the even neighbour, like Python's ``round``)."""
    return int(round(value))


def value_defaults(behaviour: Behaviour, version: str) -> tuple[float, float]:
    """The initial and final values a changing goal gets when the file gives none."""
    if behaviour == "grow":
        return RIPEN_DEFAULTS
    if behaviour == "ripen" and version == "3.1.3":  # "AntiDecayGoal".StartsWith("Anti")
        return RIPEN_DEFAULTS
    return DECAY_DEFAULTS  # DecayGoal, ShrinkGoal, and v4.1.0's RipenGoal


@dataclass
class RewardChange:
    """A DecayGoal (``ripen`` False) or AntiDecayGoal / RipenGoal (``ripen`` True)."""

    initial: float
    final: float
    rate: float  # per update, signed towards the final value
    delay: int  # updates before the change starts
    ripen: bool
    reward: float
    diameter: float
    counter: int
    changing: bool = False

    def update(self) -> None:
        """One physics update (``DecayGoal.FixedUpdate``)."""
        at_start = self.reward <= self.initial if self.ripen else self.reward >= self.initial
        if at_start and not self.changing:
            if self.counter > 0:
                self.counter -= 1
            else:
                self.changing = True
        if self.changing:
            low, high = min(self.initial, self.final), max(self.initial, self.final)
            self.reward = _clamp(self.reward + self.rate, low, high)
        done = self.reward >= self.final if self.ripen else self.reward <= self.final
        if done and self.changing:
            self.changing = False

    @property
    def proportion(self) -> float:
        """Where the reward is between the two values (1 = the higher end): drives the colour."""
        width = abs(self.initial - self.final)
        if width == 0:
            return 1.0 if self.ripen else 0.0
        return _clamp((self.reward - min(self.initial, self.final)) / width, 0.0, 1.0)

    @property
    def color(self) -> RGB:
        """``DecayGoal.UpdateColour``: purple at the high end, grey at the low end, a little white between."""
        p = self.proportion
        glow = (0.5 - abs(p - 0.5)) * 0.1
        return tuple(
            int(round(255 * _clamp(p * a + (1 - p) * b + glow, 0.0, 1.0)))  # type: ignore[return-value]
            for a, b in zip(DECAY_INITIAL_COLOUR, DECAY_FINAL_COLOUR)
        )


def reward_change(behaviour: Behaviour, params: ItemParams, version: str) -> RewardChange:
    """The state of a Decay/AntiDecay goal when the episode starts (ArenaBuilders' setters, then ``Start``)."""
    ripen = behaviour == "ripen" and version == "3.1.3"  # v4.1.0 RipenGoal.prefab: flipDecayDirection 0
    default_initial, default_final = value_defaults(behaviour, version)
    initial = params.initial_value if params.initial_value is not None else default_initial
    final = params.final_value if params.final_value is not None else default_final
    rate = params.change_rate if params.change_rate is not None else DEFAULT_RATE
    delay = round_half_even(params.delay if params.delay is not None else DEFAULT_DELAY)
    if (rate < 0) if ripen else (rate > 0):  # CheckIfNeedToFlip
        rate = -rate
    initial = _clamp(initial, 0.0, DECAY_MAX)  # Start
    final = _clamp(final, 0.0, DECAY_MAX)
    diameter = SIZE_ADJUSTMENT * _clamp(final if ripen else initial, 0.0, DECAY_MAX)
    if (ripen and final < initial) or (not ripen and final > initial):
        final = initial
    return RewardChange(initial, final, rate, delay, ripen, reward=initial, diameter=diameter, counter=delay)


@dataclass
class SizeChange:
    """A GrowGoal or ShrinkGoal: its diameter (the collider's and the reward's) per update."""

    initial: float
    final: float
    rate: float  # per update, signed towards the final size
    shrinking: bool
    diameter: float
    sign: int  # the reward's sign (Math.Sign of the previous reward)
    counter: int
    finished: bool = False

    @property
    def reward(self) -> float:
        return self.sign * self.diameter

    def update(self, free_to_grow: bool = True) -> None:
        """One physics update (``SizeChangeGoal.FixedUpdate``); ``free_to_grow`` matters only when growing."""
        free = True if self.shrinking else free_to_grow
        if self.counter > 0:
            self.counter -= 1
            return
        if self.finished or not free:
            return
        self._set(self.diameter + self.rate)
        if (self.diameter <= self.final) if self.shrinking else (self.diameter >= self.final):
            self._set(self.final)
            self.finished = True

    def _set(self, size: float) -> None:
        """``BallGoal.SetSize``: clamp to the goal's range, x 0.999; the reward follows the size."""
        low, high = min(self.initial, self.final), max(self.initial, self.final)
        self.diameter = SIZE_ADJUSTMENT * _clamp(size, low, high)
        self.sign = _sign(self.sign * self.diameter)


def size_change(behaviour: Behaviour, params: ItemParams, version: str) -> SizeChange:
    """The state of a Grow/Shrink goal when the episode starts (ArenaBuilders' setters, then ``Start``)."""
    default_initial, default_final = value_defaults(behaviour, version)
    initial = params.initial_value if params.initial_value is not None else default_initial
    final = params.final_value if params.final_value is not None else default_final
    rate = params.change_rate if params.change_rate is not None else DEFAULT_RATE
    delay = round_half_even(params.delay if params.delay is not None else DEFAULT_DELAY)
    # The placement test sized the goal with the prefab's range 0..0: reward = Sign(reward) x 0 = 0.
    # SetInitialValue sets reward = initial only while the delay counter is positive.
    reward = float(initial) if delay > 0 else 0.0
    initial = _clamp(initial, 0.0, SIZE_CHANGE_MAX)  # Start
    final = _clamp(final, 0.0, SIZE_CHANGE_MAX)
    shrinking = final <= initial
    if shrinking == (rate >= 0):
        rate = -rate
    state = SizeChange(initial, final, rate, shrinking, diameter=0.0, sign=_sign(reward), counter=delay)
    state._set(initial)
    return state


def initial_diameter(behaviour: Behaviour, params: ItemParams, version: str) -> float:
    """The diameter a changing goal is built with."""
    if behaviour in ("decay", "ripen"):
        return reward_change(behaviour, params, version).diameter
    return size_change(behaviour, params, version).diameter
