"""Reports that compare runs with baselines (children, Olympics entrants, reference agents).

``agentkit report aai`` is built from these parts: ``baselines`` (the shipped raw data of the
children study and the 2019 Olympics, reduced to passes per task), ``run_results`` (a stored run's
passes per task), ``aai_report`` (the columns and per-level proportions, and the JSON), then
``console_table`` and ``figure`` to show them. ``task_ids`` is the one place task spellings meet,
``levels`` names the ten levels, and ``clustered`` gives the interval that does not take a
participant's (or a task's) pairs for independent draws, beside ``proportions``' Wilson interval.
"""

from agentkit.reports.aai_report import AAIReport, build_report
from agentkit.reports.baselines import BaselineDataError, Baselines, read_baselines, shipped_baselines
from agentkit.reports.clustered import cluster_robust_interval
from agentkit.reports.levels import LEVEL_NAMES, level_name
from agentkit.reports.proportions import Proportion, wilson_interval
from agentkit.reports.run_results import RunResults, RunResultsError, read_run

__all__ = [
    "AAIReport",
    "BaselineDataError",
    "Baselines",
    "LEVEL_NAMES",
    "Proportion",
    "RunResults",
    "RunResultsError",
    "build_report",
    "cluster_robust_interval",
    "level_name",
    "read_baselines",
    "read_run",
    "shipped_baselines",
    "wilson_interval",
]
