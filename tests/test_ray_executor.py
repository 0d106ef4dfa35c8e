"""`agentkit eval --executor ray` on a real two-node Ray cluster and a real PostgreSQL store.

Why: the Ray executor's promises are about failures a unit test cannot fake: a worker node that
dies mid-run must not lose a trial nor leave two final episodes for one, the driver must keep the
run's lease, and every Ray process must be gone at the end. So the tests start a Ray cluster on
this machine (a head node and a second worker node, each a raylet process of one CPU:
``ray.cluster_utils.Cluster``), run the real `agentkit eval` command against it in a subprocess,
and kill the worker node's processes while episodes run on it.

The refusals (no Ray, a SQLite file with a remote cluster, an in-memory store) need no cluster.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from agentkit.cli._run_options import RUN_FLAGS, RunFlags
from agentkit.config import RunConfig
from agentkit.runs.executors.ray_address import (
    check_nodes_share_sqlite,
    check_store_for_ray,
    is_local_address,
    require_ray,
)
from agentkit.testing.cli_runner import AGENTKIT, cli_env, run_cli, run_json
from agentkit.transcripts import TranscriptStore

log = logging.getLogger(__name__)

# The tests using the cluster run on one pytest-xdist worker (./dev test uses --dist loadgroup),
# so the suite starts one Ray cluster, not one per worker.
pytestmark = pytest.mark.xdist_group("ray-cluster")

# The 40 Testbed tasks children played, one trial each, as fast as an episode gets: the reference
# agent, one script per episode, no frames rendered, no images sent.
EXPERIMENT = """\
name: ray-children40
env: aai-arena
suite: aai-children40
model: reference
trials: 1
seed: 0
include_images: false
memory: markovian
backend_options: {frames: false}
max_scripts: 1
"""
TRIALS = 40
# Process starts on a loaded machine (2 cores, the suite beside): bounded waits, then another try.
GCS_WAIT_S = 240  # Ray's wait for its GCS server's port (RAY_gcs_server_port_wait_time_s; default 30)
NODE_WAIT_S = 180  # Cluster.wait_for_nodes (default 30)
START_ATTEMPTS = 3  # starts of a node tried before the fixture fails
RUN_WAIT_S = 600  # an eval on the cluster: its driver and Ray workers start, then 40 short episodes
# Node failures seen within a couple of seconds (Ray's defaults take ~30 s).
FAST_FAILURE = {
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 500,
    "health_check_failure_threshold": 3,
}


def _children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc; zombies are dead: left out)."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        fields = raw[raw.rindex(b")") + 2 :].split()
        if fields[0] not in (b"Z", b"X"):
            parents[int(name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        if raw[raw.rindex(b")") + 2 :].split()[0] not in (b"Z", b"X"):
            alive.add(pid)
    return alive


def _kill_new(before: set[int]) -> None:
    """SIGKILL what a failed start left running: this process's descendants not in ``before``."""
    for pid in _alive(_children(os.getpid()) - before):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    time.sleep(2)


def _start_head(cluster_class: Any, before: set[int], attempts: int = START_ATTEMPTS) -> Any:
    """Start the head node, again if it did not come up in time.

    Ray gives a new node's raylet a fixed 30 s to register with the GCS (``ray._private.node``,
    ``raylet_start_wait_time_s``, no setting), and its GCS server ``RAY_gcs_server_port_wait_time_s``
    to write its port; on 2 cores beside the suite's CPU-bound tests either once took longer ("The
    current node timed out during startup"; the GCS server "did not start within 120 s"). Any
    failed start is tried again, up to ``attempts`` times in all: what it left running is killed
    first, so the fixture's own check that nothing is left still holds.
    """
    for attempt in range(1, attempts + 1):
        try:
            return cluster_class(
                initialize_head=True,
                head_node_args={"num_cpus": 1, "include_dashboard": False, "_system_config": FAST_FAILURE},
            )
        except Exception as exc:
            if attempt == attempts:
                raise
            log.warning("Ray head start %d of %d failed, trying again: %s", attempt, attempts, exc)
            _kill_new(before)
    raise AssertionError("unreachable")


def _add_worker(cluster: Any, attempts: int = START_ATTEMPTS) -> Any:
    """A second node of one CPU, started again if its raylet did not register in time (the same
    fixed 30 s as the head's; see ``_start_head``), and waited for as long as a loaded machine needs."""
    for attempt in range(1, attempts + 1):
        before = _children(os.getpid())
        try:
            node = cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes(timeout=NODE_WAIT_S)
            return node
        except Exception as exc:
            if attempt == attempts:
                raise
            print(
                f"Ray worker node start {attempt} of {attempts} failed, trying again: {exc}", file=sys.stderr
            )
            _kill_new(before)
    raise AssertionError("unreachable")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A head node and one worker node of one CPU each; every process they started is gone afterwards."""
    pytest.importorskip("ray", reason="the ray extra is not installed: pip install 'agentkit-embodied[ray]'")
    from ray.cluster_utils import Cluster

    # Ray waits 30 s for its GCS server to write its port; under the full suite's load on 2 cores
    # that server once took longer, then once longer than 120 s. The wait is Ray's own setting
    # (RAY_gcs_server_port_wait_time_s; bounded, and a start that still fails is tried again).
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", str(GCS_WAIT_S))
    before = _children(os.getpid())
    made = _start_head(Cluster, before)
    try:
        yield made
    finally:
        ours = _children(os.getpid()) - before
        made.shutdown()
        deadline = time.monotonic() + 30
        while _alive(ours) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(ours), f"Ray processes left running after shutdown: {sorted(_alive(ours))}"


def _final_per_trial(db: str, run_id: str) -> Counter:
    with TranscriptStore(db) as store:
        rows = store.list_episodes(run_id=run_id)
    return Counter((e.task, e.trial) for e in rows if e.status == "finished")


def _wait_for_finished(db: str, proc: subprocess.Popen, n: int, timeout_s: float = RUN_WAIT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with TranscriptStore(db) as store:
                if len(store.list_episodes(status="finished")) >= n:
                    return
        except Exception:  # the run's tables are made by the eval's first write
            pass
        time.sleep(0.2)
    raise AssertionError(f"the eval never finished {n} episodes (exit {proc.poll()})")


def test_worker_node_killed_mid_run_still_one_final_episode_per_trial(cluster, postgres_url, tmp_path):
    worker = _add_worker(cluster)
    (tmp_path / "exp.yaml").write_text(EXPERIMENT)
    proc = subprocess.Popen(
        [*AGENTKIT, "eval", "exp.yaml", "--ray-address", cluster.address, "--db", postgres_url, "--json"],
        cwd=tmp_path,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_finished(postgres_url, proc, 6)  # episodes run on both nodes by now
        cluster.remove_node(worker, allow_graceful=False)  # SIGKILL: its raylet and its workers
        out, err = proc.communicate(timeout=RUN_WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-3000:]
    data = json.loads(out)  # stdout holds the JSON document alone (workers' prints go to stderr)
    assert len(data["episodes"]) == TRIALS
    final = _final_per_trial(postgres_url, data["run_id"])
    assert len(final) == TRIALS and set(final.values()) == {1}  # exactly one final episode per trial
    with TranscriptStore(postgres_url) as store:
        (run,) = store.list_runs()
        rows = store.list_episodes(run_id=run.id)
        assert run.status == "finished" and run.config["executor"] == "ray"
        assert run.config["ray_address"] == cluster.address
    writers = {e.writer_pid for e in rows}
    assert len(writers) >= 2  # the episodes ran in several Ray worker processes, not in the driver
    assert proc.pid not in writers


def test_killed_ray_eval_resumes_on_the_stored_cluster_with_one_final_episode_per_trial(
    cluster, postgres_url, tmp_path
):
    (tmp_path / "exp.yaml").write_text(EXPERIMENT)
    args = ["eval", "exp.yaml", "--limit", "6", "--ray-address", cluster.address, "--db", postgres_url]
    proc = subprocess.Popen(
        [*AGENTKIT, *args], cwd=tmp_path, env=cli_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_for_finished(postgres_url, proc, 2)
        proc.kill()  # SIGKILL the driver: its tasks die with its job, its episodes stay unfinished
    finally:
        proc.wait(timeout=120)
    with TranscriptStore(postgres_url) as store:
        (run,) = store.list_runs()
    # No --executor given: the run's stored executor and cluster are used again.
    data = run_json(["eval", "--resume", run.id, "--db", postgres_url], tmp_path, timeout=RUN_WAIT_S)
    assert data["run_id"] == run.id and len(data["episodes"]) == 6
    final = _final_per_trial(postgres_url, run.id)
    assert len(final) == 6 and set(final.values()) == {1}
    with TranscriptStore(postgres_url) as store:
        assert store.get_run(run.id).status == "finished"


def test_run_command_joins_the_cluster_and_stores_its_executor(cluster, postgres_url, tmp_path):
    task = "01-04-03"
    data = run_json(
        ["run", "--env", "aai-arena", "--task", task, "--model", "reference", "--episodes", "2",
         "--max-scripts", "1", "--no-images", "--ray-address", cluster.address, "--db", postgres_url],
        tmp_path,
    )  # fmt: skip
    assert [e["task"] for e in data["episodes"]] == [task, task]
    with TranscriptStore(postgres_url) as store:
        run = store.get_run(data["run_id"])
    assert run.config["executor"] == "ray" and run.config["ray_address"] == cluster.address
    assert run.status == "finished"


def test_the_response_cache_answers_a_second_ray_run_without_asking_the_model(
    cluster, postgres_url, tmp_path
):
    """The cache behaves as with the local executor: tasks on the cluster store answers in the shared
    store, and a second run of the same episodes asks the model nothing."""
    from agentkit.testing.fake_openai import FakeOpenAIServer

    key = "sk-test-not-a-real-key-000000000000"
    with FakeOpenAIServer(responder=lambda body: "Go(3);", api_key=key) as server:
        args = ["run", "--env", "aai-arena", "--task", "01-04-03", "--model", "openai/fake-model",
                "--api-base", server.base_url, "--api-key-env", "RAY_CACHE_TEST_KEY", "--episodes", "2",
                "--max-scripts", "2", "--no-images", "--cache", "--ray-address", cluster.address,
                "--db", postgres_url, "--json"]  # fmt: skip
        env = cli_env(RAY_CACHE_TEST_KEY=key)
        first = json.loads(run_cli(args, tmp_path, env).stdout)
        asked = server.request_count
        second = json.loads(run_cli(args, tmp_path, env).stdout)
        assert asked >= 2 and server.request_count == asked  # every answer of the second run was cached
    assert len(first["episodes"]) == len(second["episodes"]) == 2
    with TranscriptStore(postgres_url) as store:
        assert store.get_run(second["run_id"]).config["executor"] == "ray"
        answers = [
            [t.answer for t in store.get_turns(e["episode_id"])]
            for e in first["episodes"] + second["episodes"]
        ]
    assert answers[:2] == answers[2:]


def test_rate_limit_is_shared_by_every_worker_of_the_cluster(cluster):
    """Three tasks (separate worker processes) asking together are spaced one interval apart overall:
    the k-th request of all to go cannot go before k intervals after the first was asked."""
    import ray

    from agentkit.runs.executors.ray_rate_limit import start_bucket

    def acquire_times(bucket, go, n):  # nested: Ray ships it by value to the workers
        import time as clock

        from agentkit.runs.executors.ray_rate_limit import ClusterRateLimiter

        limiter = ClusterRateLimiter(bucket, 300)
        clock.sleep(max(0.0, go - clock.time()))  # all three start asking at the same moment
        asked, times = clock.time(), []
        for _ in range(n):
            limiter.acquire()
            times.append(clock.time())
        return asked, times

    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    try:
        bucket = start_bucket(300)  # one request every 0.2 s for the whole cluster
        task = ray.remote(num_cpus=0)(acquire_times)
        go = time.time() + 5  # time for three worker processes to start
        results = ray.get([task.remote(bucket, go, 3) for _ in range(3)])
        ray.kill(bucket)
    finally:
        ray.shutdown()
    first_asked = min(asked for asked, _ in results)
    went = sorted(t for _, times in results for t in times)
    assert len(went) == 9
    # Three limiters of their own would let three requests go at once, at first_asked.
    assert all(t - first_asked >= k * 0.2 - 0.02 for k, t in enumerate(went)), [t - first_asked for t in went]


def test_a_stop_the_driver_decides_reaches_a_running_task(cluster):
    """A budget reached (or Ctrl-C) in the driver: a task on the cluster sees the reason within a second."""
    import ray

    from agentkit.records import EndReason
    from agentkit.runs.budget import StopFlag
    from agentkit.runs.executors.ray_stop_signal import DriverCell, start_signal

    def wait_for_stop(signal, started):  # nested: Ray ships it by value to the workers
        import time as clock

        from agentkit.runs.budget import StopFlag
        from agentkit.runs.executors.ray_stop_signal import TaskCell

        flag = StopFlag(TaskCell(signal))
        ray.get(started.set.remote(1))  # tell the test this task is running, flag unset
        deadline = clock.monotonic() + 30
        while flag.get() is None and clock.monotonic() < deadline:
            clock.sleep(0.05)
        return flag.get().value if flag.get() else None

    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    try:
        signal, started = start_signal(), start_signal()
        waiting = ray.remote(num_cpus=0)(wait_for_stop).remote(signal, started)
        deadline = time.monotonic() + 60
        while ray.get(started.get.remote()) == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        StopFlag(DriverCell(signal)).set(EndReason.BUDGET)
        assert ray.get(waiting, timeout=30) == EndReason.BUDGET.value
    finally:
        ray.shutdown()


def test_sqlite_file_with_a_remote_cluster_is_refused_in_one_line(tmp_path):
    (tmp_path / "exp.yaml").write_text(EXPERIMENT)
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_cli(["eval", "exp.yaml", "--ray-address", "10.1.2.3:6379", "--db", db], tmp_path, check=False)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "--ray-address 10.1.2.3:6379: a SQLite store is a file on this machine" in done.stderr
    assert not (tmp_path / "runs.db").exists() or not TranscriptStore(db).list_runs()  # no run created


def test_store_checks_for_ray():
    check_store_for_ray("sqlite:///runs.db", False, None)  # a new local cluster shares the file
    check_store_for_ray("sqlite:///runs.db", False, "127.0.0.1:6379")
    check_store_for_ray("postgresql+psycopg://u@db.example/runs", False, "ray://10.0.0.5:10001")
    with pytest.raises(ValueError, match="in-memory store"):
        check_store_for_ray("sqlite://", True, None)
    with pytest.raises(ValueError, match="remote cluster"):
        check_store_for_ray("sqlite:///runs.db", False, "ray://10.0.0.5:10001")
    assert (
        is_local_address("auto") and is_local_address("localhost:6379") and not is_local_address("10.9.9.9:1")
    )


def test_sqlite_store_refused_when_a_node_is_on_another_machine():
    check_nodes_share_sqlite("sqlite:///runs.db", ["127.0.0.1", socket.gethostname()], None)
    check_nodes_share_sqlite("postgresql+psycopg://u@db/runs", ["10.0.0.7"], "10.0.0.6:6379")
    with pytest.raises(ValueError, match="the cluster has a node on 10.0.0.7, which cannot write it"):
        check_nodes_share_sqlite("sqlite:///runs.db", ["127.0.0.1", "10.0.0.7"], "127.0.0.1:6379")


def test_an_address_nobody_answers_fails_in_one_line(tmp_path):
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    (tmp_path / "exp.yaml").write_text(EXPERIMENT)
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_cli(
        ["eval", "exp.yaml", "--ray-address", f"127.0.0.1:{port}", "--db", db], tmp_path, check=False
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert f"--ray-address 127.0.0.1:{port}: no Ray cluster answers there" in done.stderr
    with TranscriptStore(db) as store:
        assert store.list_runs() == []  # refused before the run was created


def test_missing_ray_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if it were not installed
    with pytest.raises(ValueError, match=r"Ray is not installed: pip install 'agentkit-embodied\[ray\]'"):
        require_ray()


def test_executor_flags_are_checked_in_one_line(tmp_path):
    (tmp_path / "exp.yaml").write_text(EXPERIMENT)
    done = run_cli(["eval", "exp.yaml", "--executor", "dask"], tmp_path, check=False)
    assert done.returncode != 0 and "--executor: 'dask' is not one of local, ray" in done.stderr
    done = run_cli(["eval", "exp.yaml", "--executor", "local", "--ray-address", "h:1"], tmp_path, check=False)
    assert (
        done.returncode != 0 and "--ray-address: names a Ray cluster, but --executor is local" in done.stderr
    )
    assert RunConfig(env="aai-arena", tasks=["x"]).executor == "local"


def test_run_follows_the_same_ray_address_rule_as_eval(tmp_path):
    """`run` reads the flags through agentkit.cli._run_options, `eval` through agentkit.cli._executor:
    one rule (agentkit.cli._executor.executor_for) for both."""
    assert RunFlags({"ray_address": "h:1"}, RUN_FLAGS).overrides()["executor"] == "ray"
    with pytest.raises(ValueError, match="--ray-address: names a Ray cluster, but --executor is local"):
        RunFlags({"ray_address": "h:1", "executor": "local"}, RUN_FLAGS).overrides()
    (tmp_path / "exp.yaml").write_text(EXPERIMENT)
    run = ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--max-scripts", "1"]
    for command in (run, ["eval", "exp.yaml"]):
        done = run_cli([*command, "--ray-address", " "], tmp_path, check=False)
        assert done.returncode == 2 and "--ray-address: give HOST:PORT" in done.stderr, command
    assert not (tmp_path / "agentkit.db").exists()  # refused before a store was made
