"""The agentkit run an Inspect eval writes to: created at the first sample, one episode row per sample.

Why: the episodes an Inspect eval plays should be readable by agentkit's viewer, reports and replay
like any run of ``agentkit run``. This object holds the run's configuration and store, creates the
run (with its templates) once, however many samples Inspect runs at the same time, plays each episode
with the given participant into it, and closes the run when every planned episode has ended.
"""

from __future__ import annotations

import logging
import threading

from agentkit.config import RunConfig
from agentkit.loop import run_episode
from agentkit.models.participant import Participant
from agentkit.prompts.renderer import resolve_templates
from agentkit.records import EndReason, EpisodeResult
from agentkit.runs.setup_episode import make_backend, make_setup
from agentkit.runs.worker import ended_unjudged, episode_id_for
from agentkit.transcripts import TranscriptStore

log = logging.getLogger(__name__)


class StoreRun:
    """One agentkit run in the store at ``db_url``, played by an Inspect eval (``expected`` episodes)."""

    def __init__(self, config: RunConfig, db_url: str, expected: int) -> None:
        self.config = config
        self.db_url = db_url
        self.expected = expected
        self.run_id: str | None = None
        self._templates: dict[str, str] = {}
        self._store: TranscriptStore | None = None
        self._ended = 0
        self._lock = threading.Lock()

    def check(self) -> None:
        """Resolve the templates and check every task against the backend (ValueError in one line), so a
        bad task or template folder is refused when the Inspect task is made, before any sample."""
        backend = make_backend(self.config)
        try:
            self._templates = resolve_templates(backend.template_set, self.config.templates_dir)
            for task in self.config.tasks:
                backend.check_task(task)
        finally:
            backend.close()

    def _open(self, model_name: str) -> TranscriptStore:
        """The store, with the run created in it (once, by the first sample to get here)."""
        with self._lock:
            if self._store is None:
                if not self._templates:
                    self.check()
                self.config = self.config.model_copy(update={"model": model_name})
                store = TranscriptStore(self.db_url)
                self.run_id = store.create_run(
                    env=self.config.env,
                    tasks=self.config.tasks,
                    model=model_name,
                    config={**self.config.model_dump(), "harness": "inspect_ai"},
                    templates=self._templates,
                )
                self._store = store
                log.info("inspect eval writes agentkit run %s to %s", self.run_id, self.db_url)
            return self._store

    def play(self, task: str, trial: int, participant: Participant) -> EpisodeResult:
        """Play trial ``trial`` of ``task`` with ``participant`` (seed: the run's seed plus the trial, as
        ``agentkit run`` plans it), its turns and result written to the store."""
        store = self._open(participant.name)
        assert self.run_id is not None
        seed = self.config.seed + trial
        episode_id = episode_id_for(self.run_id, task, trial, seed, 0)
        store.start_episode(self.run_id, task, seed, trial=trial, attempt=0, episode_id=episode_id)
        setup = None
        try:
            setup = make_setup(
                self.config, templates=self._templates, model_factory=lambda _backend: participant
            )
            result = run_episode(setup, task, seed, sink=store, episode_id=episode_id)
            error = result.error
        except Exception as exc:  # the world failed outside the turn loop: recorded, never lost
            log.exception("episode %s (%s) failed outside the turn loop", episode_id, task)
            error = f"{type(exc).__name__}: {exc}"
            result = ended_unjudged(
                episode_id, task, seed, EndReason.ENV_ERROR, self.config.pass_rule, error=error
            )
        finally:
            if setup is not None:
                setup.backend.close()
        result.trial = trial
        store.finish_episode(episode_id, result, error=error)
        with self._lock:
            self._ended += 1
            if self._ended == self.expected:
                store.finish_run(self.run_id, "finished")
        return result
