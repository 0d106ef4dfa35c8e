"""`--profile causalworld|agentkit` on `agentkit run`: it reaches the stored config and the episode metrics."""

from __future__ import annotations

import pytest

from agentkit.testing.cli_runner import cli_env, run_cli, run_json
from agentkit.transcripts import TranscriptStore

pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*qualifier:UserWarning")


def test_the_profile_flag_reaches_the_stored_config_and_the_episode_metrics(tmp_path):
    profile = "agentkit"  # not the default (causalworld: test_reference_run_prints_pure_json_with_the_final_overlap)

    db = f"sqlite:///{tmp_path / 'r.db'}"
    data = run_json(
        ["run", "--env", "trifinger", "--task", "picking", "--profile", profile, "--db", db], tmp_path
    )
    (episode,) = data["episodes"]
    assert episode["profile"] == profile
    assert episode["success_measure"] == "volumetric_overlap>0.9"
    assert TranscriptStore(db).get_run(data["run_id"]).config["backend_options"]["profile"] == profile


def test_a_bad_profile_is_refused_in_one_line(tmp_path):
    proc = run_cli(
        [
            "run",
            "--env",
            "trifinger",
            "--task",
            "picking",
            "--profile",
            "fast",
            "--db",
            f"sqlite:///{tmp_path / 'r.db'}",
        ],
        tmp_path,
        cli_env(),
        check=False,
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert (
        proc.returncode != 0
        and len(lines) == 1
        and "profile must be one of causalworld, agentkit" in lines[0]
    ), proc.stderr
