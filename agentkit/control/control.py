"""The loop's view of a control mode: how a command becomes steps, and what the prompt templates
are told.

Why an object: the loop asks the same questions whatever the mode, so it holds one ``Control``
and stays ignorant of modes (as it is of backends). ``script`` compiles with the backend;
``frame-by-frame`` repeats a primitive's low-level action for the mode's N steps. How an answer is
read is chosen from it once per episode (``agentkit.control.answer_reading``).
"""

from __future__ import annotations

from typing import Any

from agentkit.actions import Command, CompileError
from agentkit.control.modes import ControlMode, ObserveMode
from agentkit.envs.base import Backend, PrimitiveAction


class Control:
    """One episode's control mode, bound to its backend's primitive actions."""

    def __init__(
        self,
        mode: ControlMode | None = None,
        primitives: tuple[PrimitiveAction, ...] = (),
        observe: ObserveMode | None = None,
        observe_max_images: int = 8,
    ) -> None:
        self.mode = mode or ControlMode()
        self.observe = observe or ObserveMode()
        self.observe_max_images = observe_max_images
        self._primitives = {p.name: p for p in primitives}
        if self.frame_by_frame and not primitives:
            raise ValueError("--control frame-by-frame: this backend has no primitive actions")

    @property
    def frame_by_frame(self) -> bool:
        return self.mode.kind == "frame-by-frame"

    @property
    def primitive_names(self) -> tuple[str, ...]:
        """The names a frame-by-frame answer may give, in the backend's order."""
        return tuple(self._primitives)

    def compile(self, backend: Backend, command: Command) -> list[Any]:
        """The low-level actions of one command: the backend's compiler, or N copies of a primitive."""
        if not self.frame_by_frame:
            return backend.compile(command)
        primitive = self._primitives.get(command.name)
        if primitive is None:  # a stored script of another mode, replayed here
            raise CompileError(f"{command.name!r} is not one of this world's primitive actions", command)
        action = primitive.action
        return [list(action) if isinstance(action, (list, tuple)) else action for _ in range(self.mode.steps)]

    def check_templates(self, sources: dict[str, str]) -> None:
        """Refuse (ValueError, one line) frame-by-frame control with a system template that never
        reads ``control``: it would tell the model to write scripts the mode cannot read."""
        if not self.frame_by_frame:
            return
        from agentkit.prompts.template_sets import template_variables

        if "control" not in template_variables(sources.get("system.j2", "")):
            raise ValueError(
                "--control frame-by-frame: these templates' system.j2 never reads the variable "
                "control, so it would ask for scripts; use a set that describes frame-by-frame "
                "control (aai-arena, gridworld) or add it (docs/templates.md)"
            )

    def prompt_context(self) -> dict[str, Any]:
        """Template variables: ``control`` (mode, steps, the primitive actions) and ``observe``."""
        control: dict[str, Any] = {"mode": self.mode.kind, "spec": self.mode.spec}
        if self.frame_by_frame:
            control["steps"] = self.mode.steps
            control["actions"] = [{"name": p.name, "doc": p.doc} for p in self._primitives.values()]
        observe: dict[str, Any] = {
            "mode": self.observe.kind,
            "spec": self.observe.spec,
            "max_images": self.observe_max_images,
        }
        if self.observe.kind == "every":
            observe["every"] = self.observe.every
        return {"control": control, "observe": observe}


def make_control(control: str, observe: str, observe_max_images: int, backend: Backend) -> Control:
    """The Control of a run's ``control``/``observe`` settings for ``backend`` (ValueError in one line)."""
    from agentkit.control.modes import parse_control, parse_observe

    mode, watch = parse_control(control), parse_observe(observe)
    if mode.kind == "frame-by-frame" and watch.kind != "end":
        raise ValueError(
            "--observe: frames during a script are for --control script; frame-by-frame "
            "already sees every answer's end"
        )
    if watch.kind != "end" and type(backend).frames_now is Backend.frames_now:
        raise ValueError(
            f"--observe {watch.spec}: the {backend.name} backend cannot take frames during a script"
        )
    return Control(mode, backend.primitive_actions(), watch, observe_max_images)
