"""CausalWorld's own trained PPO actors, read from their stable-baselines zips and run with numpy.

Why: CausalWorld ships five policies it trained (``causal_world/assets/baseline_actors``, MIT,
copied to ``assets/causalworld/baseline_actors`` with its licence and a README naming the commit).
They are the natural non-LLM participants of its tasks, but loading them the usual way
(``stable_baselines.PPO2.load``) needs TensorFlow 1 and unpickles the zip's ``data`` entry, which
runs whatever code the pickle names. Here nothing is unpickled: the ``data`` entry is read as JSON
text only (its human-readable ``observation_space`` / ``action_space`` bounds and
``policy_kwargs.net_arch``; every ``:serialized:`` field is ignored), ``parameters`` is an ``.npz``
read with ``allow_pickle=False``, and ``parameter_list`` is a JSON list of names. Every entry is
bounded in size, and a bad, missing or wrongly shaped one is refused in one line naming the file and
the entry (``ActorFileError``).

The deterministic action is what ``PPO2.predict(obs, deterministic=True)`` returns
(hill-a/stable-baselines ``common/policies.py``, ``common/distributions.py``, ``common/base_class.py``):
an ``MlpPolicy`` casts the observation to float32 unscaled (``observation_input(scale=False)``),
``mlp_extractor`` applies ``tanh(x @ w + b)`` for each shared layer ``model/shared_fc<i>``, the
diagonal Gaussian's mode is its mean ``latent @ model/pi/w + model/pi/b`` (``model/pi/logstd``, the
value head ``model/vf`` and ``model/q`` are not used to act), and ``predict`` clips it to the action
space's bounds ([-1, 1]: normalised joint positions). The actors read CausalWorld's normalised
structured observation of their task (``observation_vector``) and run every 12 ms (``skip_frame`` 3
physics steps of 4 ms: CausalWorld's ``*_policy.py`` "expected to run @83.3 Hz").
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

#: The five actors CausalWorld ships, by file stem, and the task family each was trained on.
ACTORS: dict[str, str] = {
    "pushing_ppo_curr1": "pushing",
    "picking_ppo_curr1": "picking",
    "reaching_ppo_curr1": "reaching",
    "stacking2_ppo_curr1": "stacking2",
    "pick_and_place_ppo_curr0": "pick_and_place",
}
#: causal_world/actors/*_policy.py: "expected to run @83.3 Hz", skip_frame 3 x 4 ms.
ACTOR_SKIP_FRAME = 3
ASSET_DIR = ("assets", "causalworld", "baseline_actors")
MAX_ZIP_BYTES = 8 * 2**20  # the largest shipped zip is 390 KB
MAX_ENTRY_BYTES = {"data": 2**20, "parameters": 8 * 2**20, "parameter_list": 2**16}
MAX_LAYER_WIDTH = 4096
ACTIVATIONS = {"tanh": np.tanh}  # stable-baselines' MlpPolicy default (policy_kwargs act_fun)


class ActorFileError(ValueError):
    """A CausalWorld actor zip that cannot be read; the message is one line naming file and entry."""


@dataclass(frozen=True)
class ActorNetwork:
    """One actor's policy network: shared tanh layers then the Gaussian mean (its deterministic action).

    ``layers``: (weights (in, out), bias (out,)) of each shared layer, float32; ``mean_weights`` /
    ``mean_bias``: the action head; ``observation_low`` / ``observation_high``: the observation
    space it was trained on (normalised: -1 / 1, except the unscaled object-type slots, whose
    bounds are equal); ``action_low`` / ``action_high``: where ``predict`` clips its action.
    """

    name: str
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]
    mean_weights: np.ndarray
    mean_bias: np.ndarray
    observation_low: np.ndarray
    observation_high: np.ndarray
    action_low: np.ndarray
    action_high: np.ndarray
    activation: str = "tanh"

    @property
    def observation_size(self) -> int:
        return int(self.layers[0][0].shape[0])

    @property
    def action_size(self) -> int:
        return int(self.mean_bias.shape[0])

    @property
    def hidden_sizes(self) -> tuple[int, ...]:
        return tuple(int(b.shape[0]) for _, b in self.layers)

    def fixed_slots(self) -> dict[int, float]:
        """The observation slots CausalWorld leaves unscaled (equal bounds: the objects' type ids)."""
        same = np.flatnonzero(self.observation_low == self.observation_high)
        return {int(i): float(self.observation_low[i]) for i in same}

    def act(self, observation: np.ndarray) -> np.ndarray:
        """The deterministic action (float32, in the action bounds) for one observation (n,) or a
        batch (k, n), as ``PPO2.predict(observation, deterministic=True)[0]``."""
        x = np.asarray(observation, dtype=np.float32)
        if x.shape[-1:] != (self.observation_size,) or x.ndim > 2:
            raise ValueError(
                f"actor {self.name} reads {self.observation_size} numbers per observation, got shape {x.shape}"
            )
        function = ACTIVATIONS[self.activation]
        for weights, bias in self.layers:
            x = function(x @ weights + bias)
        mean = x @ self.mean_weights + self.mean_bias
        return np.clip(mean, self.action_low, self.action_high).astype(np.float32)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        return self.act(observation)


def actor_path(name: str) -> Path:
    """The shipped zip of actor ``name`` (one of ``ACTORS``)."""
    if name not in ACTORS:
        raise ValueError(f"unknown CausalWorld actor {name!r}; the shipped ones: {', '.join(ACTORS)}")
    root = resources.files("agentkit.envs.trifinger")
    return Path(str(root.joinpath("/".join((*ASSET_DIR, f"{name}.zip")))))


@lru_cache(maxsize=8)
def load_actor(name: str) -> ActorNetwork:
    """The shipped actor ``name``, or a policy file ``<path>.zip`` in the same format (what
    ``bench/trifinger_ppo.py`` writes for the agent it trains), loaded once per process and file
    version (the arrays are read-only)."""
    if is_actor_file(name):
        path = Path(name).expanduser()
        return _load_file(str(path.resolve()), _version(path))
    return read_actor_zip(actor_path(name), name)


def is_actor_file(name: str) -> bool:
    """Whether ``name`` names a policy file rather than a shipped actor."""
    return name.endswith(".zip") and name not in ACTORS


def trained_on(network: ActorNetwork) -> str:
    """The task a shipped actor was trained on, or "its own task" for a file."""
    return ACTORS.get(network.name, "its own task")


def _version(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError as exc:
        raise ActorFileError(f"{path}: cannot read the policy file ({exc.strerror or exc})") from None
    return stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=8)
def _load_file(path: str, version: tuple[int, int]) -> ActorNetwork:
    return read_actor_zip(path, path)


def read_actor_zip(path: str | Path, name: str | None = None) -> ActorNetwork:
    """Read a stable-baselines 2 PPO2 zip with an MlpPolicy; ``ActorFileError`` names what is wrong."""
    path = Path(path)
    label = path.name
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ActorFileError(f"{label}: cannot read the actor file ({exc.strerror or exc})") from None
    if size > MAX_ZIP_BYTES:
        raise ActorFileError(f"{label}: {size} bytes, more than an actor zip may have ({MAX_ZIP_BYTES})")
    try:
        with zipfile.ZipFile(path) as archive:
            entries = {key: _entry(archive, label, key) for key in MAX_ENTRY_BYTES}
    except zipfile.BadZipFile as exc:
        raise ActorFileError(f"{label}: not a zip file ({exc})") from None
    data = _json(entries["data"], label, "data")
    names = _json(entries["parameter_list"], label, "parameter_list")
    if not isinstance(data, dict):
        raise ActorFileError(f"{label}: entry 'data' is not a JSON object")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ActorFileError(f"{label}: entry 'parameter_list' is not a JSON list of names")
    arrays = _arrays(entries["parameters"], label)
    if sorted(arrays) != sorted(names):
        raise ActorFileError(
            f"{label}: entry 'parameters' holds {sorted(arrays)}, 'parameter_list' names {names}"
        )
    return _network(name or path.stem, label, data, arrays)


def _entry(archive: zipfile.ZipFile, label: str, key: str) -> bytes:
    try:
        info = archive.getinfo(key)
    except KeyError:
        raise ActorFileError(f"{label}: entry {key!r} is missing") from None
    if info.file_size > MAX_ENTRY_BYTES[key]:
        raise ActorFileError(
            f"{label}: entry {key!r} is {info.file_size} bytes (at most {MAX_ENTRY_BYTES[key]})"
        )
    try:
        with archive.open(info) as handle:
            raw = handle.read(MAX_ENTRY_BYTES[key] + 1)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:  # a bad CRC, a truncated member
        raise ActorFileError(f"{label}: entry {key!r} cannot be read ({exc})") from None
    if len(raw) > MAX_ENTRY_BYTES[key]:
        raise ActorFileError(f"{label}: entry {key!r} is larger than {MAX_ENTRY_BYTES[key]} bytes")
    return raw


def _json(raw: bytes, label: str, key: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ActorFileError(f"{label}: entry {key!r} is not JSON ({exc})") from None


def _arrays(raw: bytes, label: str) -> dict[str, np.ndarray]:
    """The ``parameters`` entry: an .npz of float arrays, read with pickles refused."""
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            arrays = {key: npz[key] for key in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        raise ActorFileError(f"{label}: entry 'parameters' is not an .npz of arrays ({exc})") from None
    for key, value in arrays.items():
        if value.dtype.kind != "f" or not np.isfinite(value).all():
            raise ActorFileError(f"{label}: parameter {key!r} is not finite floats ({value.dtype})")
    return arrays


def _space(data: dict[str, Any], label: str, field: str) -> tuple[np.ndarray, np.ndarray]:
    """A gym Box's bounds from the JSON text stable-baselines writes beside its pickle (``low``,
    ``high``: numpy's printed arrays; ``shape``: a list)."""
    space = data.get(field)
    if not isinstance(space, dict) or not isinstance(space.get("shape"), list):
        raise ActorFileError(f"{label}: data field {field!r} has no Box shape")
    bounds = []
    for key in ("low", "high"):
        text = space.get(key)
        if not isinstance(text, str) or "..." in text:
            raise ActorFileError(f"{label}: data field {field}.{key} is not a printed array")
        try:
            bounds.append(np.array([float(v) for v in text.strip().strip("[]").split()], dtype=np.float32))
        except ValueError:
            raise ActorFileError(
                f"{label}: data field {field}.{key} is not a printed array of numbers"
            ) from None
    shape = space["shape"]
    if len(shape) != 1 or any(b.shape != (shape[0],) for b in bounds):
        raise ActorFileError(f"{label}: data field {field} has shape {shape} but {bounds[0].size} bounds")
    return bounds[0], bounds[1]


def _network(name: str, label: str, data: dict[str, Any], arrays: dict[str, np.ndarray]) -> ActorNetwork:
    kwargs = data.get("policy_kwargs")
    arch = kwargs.get("net_arch") if isinstance(kwargs, dict) else None
    if (
        not isinstance(arch, list)
        or not arch
        or not all(type(n) is int and 0 < n <= MAX_LAYER_WIDTH for n in arch)
    ):
        raise ActorFileError(
            f"{label}: data field policy_kwargs.net_arch is not a list of shared layer widths"
        )
    act_fun = str(kwargs.get("act_fun", "tanh")) if isinstance(kwargs, dict) else "tanh"
    activation = next((a for a in ACTIVATIONS if f"function {a} " in act_fun or act_fun == a), None)
    if activation is None:
        raise ActorFileError(
            f"{label}: data field policy_kwargs.act_fun {act_fun!r} is not one of {list(ACTIVATIONS)}"
        )
    observation_low, observation_high = _space(data, label, "observation_space")
    action_low, action_high = _space(data, label, "action_space")

    def array(key: str, shape: tuple[int, ...]) -> np.ndarray:
        value = arrays.get(key)
        if value is None:
            raise ActorFileError(f"{label}: parameter {key!r} is missing")
        if value.shape != shape:
            raise ActorFileError(f"{label}: parameter {key!r} has shape {value.shape}, expected {shape}")
        out = value.astype(np.float32)
        out.setflags(write=False)
        return out

    layers = []
    width = observation_low.shape[0]
    for index, size in enumerate(arch):
        prefix = f"model/shared_fc{index}"
        layers.append((array(f"{prefix}/w:0", (width, size)), array(f"{prefix}/b:0", (size,))))
        width = size
    actions = action_low.shape[0]
    return ActorNetwork(
        name=name,
        layers=tuple(layers),
        mean_weights=array("model/pi/w:0", (width, actions)),
        mean_bias=array("model/pi/b:0", (actions,)),
        observation_low=observation_low,
        observation_high=observation_high,
        action_low=action_low,
        action_high=action_high,
        activation=activation,
    )
