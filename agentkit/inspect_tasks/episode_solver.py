"""The Inspect solver that plays one agentkit episode per sample, the model's turns going to Inspect.

Why: in Inspect a solver turns a sample into the model's work. Here the work is a whole embodied
episode (world, prompts, script language, memory policy), which agentkit's loop already plays; the
solver only runs that loop in a worker thread with Inspect's model as the participant, and leaves
the episode's result in the sample's metadata for the scorer and its last exchange in the log.
"""

from __future__ import annotations

import anyio.to_thread
from inspect_ai.model import get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from agentkit.inspect_tasks.inspect_participant import InspectParticipant
from agentkit.inspect_tasks.store_run import StoreRun

RESULT_KEY = "agentkit"  # the sample metadata entry holding the episode's result (EpisodeResult.to_json)


@solver
def agentkit_episode(run: StoreRun) -> Solver:
    """Play the sample's task (``metadata["task"]``), trial = Inspect's epoch - 1, into ``run``'s store."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        participant = InspectParticipant(get_model())
        task = str(state.metadata["task"])
        result = await anyio.to_thread.run_sync(run.play, task, state.epoch - 1, participant)
        state.metadata[RESULT_KEY] = {**result.to_json(), "run_id": run.run_id}
        if participant.last_output is not None:
            state.messages = [*participant.last_input, participant.last_output.message]
            state.output = participant.last_output
        state.completed = True
        return state

    return solve
