"""Protocol v1.4: in a Kubernetes pod (EKS), metadata.json says where the run lives (`platform`) and each node file
names its pod, node and namespace; found once at start, validated, and never a reason for training to fail."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import time
from pathlib import Path
from typing import Any, Optional

import pytest

import trainwatch
from _support import RunFiles, wait_for
from test_nodes import LAUNCHER_VARS, assert_the_watchdog_accepts
from test_protocol_schema import CHECK, REPO
from trainwatch import _platform
from trainwatch._platform import go_unquote, job_from_labels, parse_labels, platform

FAST = {"interval": 0.05, "flush_timeout": 5.0}
K8S_VARS = ("KUBERNETES_SERVICE_HOST", "POD_NAME", "POD_NAMESPACE", "NODE_NAME", "HOSTNAME", "TRAINWATCH_K8S_NAMESPACE",
            "TRAINWATCH_EKS_CLUSTER", "TRAINWATCH_JOB_KIND", "TRAINWATCH_JOB_NAME", "TRAINWATCH_PODINFO_LABELS")

# What the kubelet writes for a PyTorchJob worker's `metadata.labels` (keys sorted, values as Go's %q quotes them).
PYTORCHJOB_LABELS = """\
training.kubeflow.org/job-name="llama-7b-sft"
training.kubeflow.org/operator-name="pytorchjob-controller"
training.kubeflow.org/replica-index="1"
training.kubeflow.org/replica-type="worker\""""

PLATFORM = {
    "kind": "eks",
    "cluster": "ml-prod",
    "namespace": "team-nlp",
    "pod": "llama-7b-sft-worker-1",
    "node": "ip-10-0-1-23.us-west-2.compute.internal",
    "job": {"kind": "PyTorchJob", "name": "llama-7b-sft"},
}


class Pod:
    """A fake pod: its environment (os.environ, which watch() reads), its labels file and its namespace file."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        self.monkeypatch, self.tmp = monkeypatch, tmp_path
        for name in K8S_VARS + LAUNCHER_VARS:
            monkeypatch.delenv(name, raising=False)
        self.labels_file = tmp_path / "podinfo" / "labels"
        self.namespace_file = tmp_path / "serviceaccount" / "namespace"
        monkeypatch.setattr(_platform, "NAMESPACE_FILE", str(self.namespace_file))
        monkeypatch.setenv("TRAINWATCH_PODINFO_LABELS", str(self.labels_file))

    def enter(self, labels: Optional[str] = PYTORCHJOB_LABELS, namespace: Optional[str] = "team-nlp\n",
              **env: str) -> "Pod":
        """In a pod, with the downward API's variables (unless given otherwise), these labels and namespace file."""
        defaults = {"KUBERNETES_SERVICE_HOST": "172.20.0.1", "POD_NAME": "llama-7b-sft-worker-1",
                    "NODE_NAME": "ip-10-0-1-23.us-west-2.compute.internal", "TRAINWATCH_EKS_CLUSTER": "ml-prod",
                    "HOSTNAME": "llama-7b-sft-worker-1"}
        for name, value in {**defaults, **env}.items():
            if value is None:
                self.monkeypatch.delenv(name, raising=False)
            else:
                self.monkeypatch.setenv(name, value)
        if labels is not None:
            self.labels_file.parent.mkdir(exist_ok=True)
            self.labels_file.write_text(labels)
        if namespace is not None:
            self.namespace_file.parent.mkdir(exist_ok=True)
            self.namespace_file.write_text(namespace)
        return self

    def env(self) -> dict[str, str]:
        return dict(os.environ)


@pytest.fixture
def pod(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Pod:
    return Pod(monkeypatch, tmp_path)


def train(run_id: str, bucket: str, steps: int = 3, **options: Any) -> None:
    with trainwatch.watch(run_id, bucket, **FAST, **options) as run:
        for step in range(steps):
            run.progress(step, total_steps=steps)


def assert_the_watchdog_accepts_metadata(tmp_path: Path, body: str) -> None:
    path = tmp_path / "metadata.json"
    path.write_text(body)
    result = subprocess.run(["node", "--import", "tsx/esm", "--input-type=module", "-e", CHECK,
                             json.dumps([("metadata", str(path))])], cwd=REPO, capture_output=True, text=True,
                            timeout=60, check=True)
    assert json.loads(result.stdout) == [{"path": str(path), "ok": True}]


# -- metadata.json and the node files ---------------------------------------------------------------------------


def test_in_a_pod_the_metadata_and_node_file_say_where_the_run_lives(bucket: str, run_id: str, files: RunFiles,
                                                                      pod: Pod, tmp_path: Path):
    pod.enter()
    train(run_id, bucket)
    metadata = files.json("metadata.json")
    assert metadata["status"] == "completed" and files.json("_complete")["step"] == 2
    assert metadata["platform"] == PLATFORM
    assert metadata["client"] == f"trainwatch-python/{trainwatch.__version__}"
    node = files.json("nodes/0.json")
    assert {k: node[k] for k in ("pod", "node", "namespace")} == {
        "pod": "llama-7b-sft-worker-1", "node": "ip-10-0-1-23.us-west-2.compute.internal", "namespace": "team-nlp"}
    assert "platform" not in node and "cluster" not in node and "job" not in node
    # The watchdog's own parsers take both and keep every field.
    assert_the_watchdog_accepts_metadata(tmp_path, files.text("metadata.json"))
    assert_the_watchdog_accepts(tmp_path, files.text("nodes/0.json"), rank=0)


def test_each_nodes_file_names_its_own_pod(bucket: str, run_id: str, files: RunFiles, pod: Pod):
    # Local rank 0 of node 2, in its own pod: only its node file, with its pod; rank 0's metadata is not its to write.
    pod.enter(POD_NAME="llama-7b-sft-worker-2", NODE_NAME="ip-10-0-3-7.us-west-2.compute.internal",
              RANK="16", LOCAL_RANK="0", GROUP_RANK="2", LOCAL_WORLD_SIZE="8", WORLD_SIZE="32")
    train(run_id, bucket)
    assert files.keys() == ["nodes/2.json"]
    node = files.json("nodes/2.json")
    assert (node["pod"], node["node"], node["namespace"]) == (
        "llama-7b-sft-worker-2", "ip-10-0-3-7.us-west-2.compute.internal", "team-nlp")


def test_not_in_a_pod_there_is_no_platform(bucket: str, run_id: str, files: RunFiles, pod: Pod):
    # The downward-API variables alone (a laptop with POD_NAME exported) do not make a pod: no KUBERNETES_SERVICE_HOST.
    pod.enter(KUBERNETES_SERVICE_HOST=None)
    train(run_id, bucket)
    assert "platform" not in files.json("metadata.json")
    assert not {"pod", "node", "namespace"} & set(files.json("nodes/0.json"))


def test_a_malformed_labels_file_leaves_the_job_out_and_training_goes_on(bucket: str, run_id: str, files: RunFiles,
                                                                         pod: Pod, caplog: pytest.LogCaptureFixture):
    pod.enter(labels=PYTORCHJOB_LABELS.replace('"llama-7b-sft"', "llama-7b-sft") + "\n\x00garbage")
    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        train(run_id, bucket)
    metadata = files.json("metadata.json")
    assert metadata["status"] == "completed"
    assert metadata["platform"] == {k: v for k, v in PLATFORM.items() if k != "job"}
    malformed = [r.getMessage() for r in caplog.records if "labels file" in r.getMessage()]
    assert len(malformed) == 1 and "malformed" in malformed[0], malformed


def test_invalid_names_are_left_out_with_a_warning_and_training_goes_on(bucket: str, run_id: str, files: RunFiles,
                                                                        pod: Pod, caplog: pytest.LogCaptureFixture):
    pod.enter(labels="", namespace="Not_A_Namespace", POD_NAME="Bad Pod", HOSTNAME="-bad-", NODE_NAME="x" * 254,
              TRAINWATCH_EKS_CLUSTER="-nope")
    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        train(run_id, bucket)
    metadata = files.json("metadata.json")
    assert metadata["status"] == "completed" and "platform" not in metadata  # nothing left that finds the pod
    assert not {"pod", "node", "namespace"} & set(files.json("nodes/0.json"))
    said = " ".join(r.getMessage() for r in caplog.records)
    for source in ("POD_NAME", "HOSTNAME", "NODE_NAME", "TRAINWATCH_EKS_CLUSTER", str(pod.namespace_file)):
        assert source in said


def test_explicit_arguments_win_over_discovery(bucket: str, run_id: str, files: RunFiles, pod: Pod):
    pod.enter()
    given = {"cluster": "ml-staging", "pod": "my-pod-0", "job": {"kind": "RayJob", "name": "sweep-42"},
             "namespace": None}  # None: as if not given (discovered)
    train(run_id, bucket, platform=given)
    assert files.json("metadata.json")["platform"] == {
        **PLATFORM, "cluster": "ml-staging", "pod": "my-pod-0", "job": {"kind": "RayJob", "name": "sweep-42"}}
    assert files.json("nodes/0.json")["pod"] == "my-pod-0"


def test_explicit_arguments_work_without_discovery_and_can_turn_it_off(bucket: str, run_id: str, files: RunFiles,
                                                                        pod: Pod, s3: Any):
    # Not in a pod, but told: written as told.
    train(run_id, bucket, platform={"namespace": "ml", "pod": "trainer-0", "job": {"kind": "pytorchjob", "name": "t"}})
    assert files.json("metadata.json")["platform"] == {
        "kind": "eks", "namespace": "ml", "pod": "trainer-0", "job": {"kind": "PyTorchJob", "name": "t"}}
    # In a pod, platform=False: nothing.
    pod.enter()
    other = RunFiles(s3, bucket, run_id + "-off")
    train(run_id + "-off", bucket, platform=False)
    assert "platform" not in other.json("metadata.json")
    assert "pod" not in other.json("nodes/0.json")


def test_discovery_runs_once_at_start(bucket: str, run_id: str, files: RunFiles, pod: Pod,
                                      monkeypatch: pytest.MonkeyPatch):
    pod.enter()
    with trainwatch.watch(run_id, bucket, **FAST) as run:
        # What the pod says later changes nothing: progress() and the writer use what watch() found.
        monkeypatch.setenv("POD_NAME", "someone-else")
        pod.labels_file.write_text('training.kubeflow.org/job-name="other"')
        for step in range(3):
            run.progress(step)
        wait_for(lambda: (m := files.json("metadata.json")) and m["status"] == "running", what="running heartbeat")
        time.sleep(0.15)
    assert files.json("metadata.json")["platform"] == PLATFORM
    assert files.json("nodes/0.json")["pod"] == PLATFORM["pod"]


# -- where each value comes from --------------------------------------------------------------------------------


def test_namespace_sources_in_order(pod: Pod):
    pod.enter(namespace="from-file")
    assert platform(pod.env())["namespace"] == "from-file"
    pod.enter(POD_NAMESPACE="from-downward-api")
    assert platform(pod.env())["namespace"] == "from-downward-api"
    pod.enter(TRAINWATCH_K8S_NAMESPACE="from-trainwatch")
    assert platform(pod.env())["namespace"] == "from-trainwatch"
    pod.enter(TRAINWATCH_K8S_NAMESPACE="Invalid!")  # invalid: the next source counts
    assert platform(pod.env())["namespace"] == "from-downward-api"


def test_the_pod_name_falls_back_to_hostname_but_not_to_a_host_networks_node_name(pod: Pod):
    pod.enter(POD_NAME=None, HOSTNAME="trainer-7f9c-0")
    assert platform(pod.env())["pod"] == "trainer-7f9c-0"
    pod.enter(POD_NAME=None, HOSTNAME="ip-10-0-1-23", NODE_NAME="ip-10-0-1-23.us-west-2.compute.internal")
    assert "pod" not in platform(pod.env())
    pod.enter(POD_NAME="trainer-7f9c-0")  # POD_NAME wins whatever HOSTNAME says
    assert platform(pod.env())["pod"] == "trainer-7f9c-0"


def test_cluster_node_and_job_are_each_optional(pod: Pod):
    pod.enter(labels="", TRAINWATCH_EKS_CLUSTER=None, NODE_NAME=None)
    assert platform(pod.env()) == {"kind": "eks", "namespace": "team-nlp", "pod": "llama-7b-sft-worker-1"}


@pytest.mark.parametrize(("labels", "job"), [
    ({"training.kubeflow.org/job-name": "a", "training.kubeflow.org/operator-name": "pytorchjob-controller"},
     ("PyTorchJob", "a")),
    ({"training.kubeflow.org/job-name": "a"}, ("PyTorchJob", "a")),
    ({"training.kubeflow.org/job-name": "a", "training.kubeflow.org/operator-name": "tfjob-controller"}, None),
    ({"pytorch-job-name": "old", "group-name": "kubeflow.org"}, ("PyTorchJob", "old")),
    # KubeRay: what a RayJob's submitter pod carries, or a Ray pod whose RayJob's templates add those labels.
    ({"ray.io/originated-from-crd": "RayJob", "ray.io/originated-from-cr-name": "sweep",
      "ray.io/cluster": "sweep-x7k2p"},
     ("RayJob", "sweep")),
    # A Ray head or worker pod as KubeRay labels it: the cluster, not the RayJob; its name is never guessed.
    ({"ray.io/cluster": "sweep-x7k2p", "ray.io/node-type": "worker", "ray.io/group": "gpu",
      "app.kubernetes.io/created-by": "kuberay-operator"}, None),
    ({"ray.io/originated-from-crd": "RayService", "ray.io/originated-from-cr-name": "svc"}, None),
    ({}, None),
])
def test_the_job_from_the_pods_labels(labels: dict[str, str], job: Optional[tuple[str, str]]):
    assert job_from_labels(labels) == job


def test_ray_pods_name_their_rayjob_from_labels_or_the_environment(pod: Pod):
    worker = 'ray.io/cluster="sweep-x7k2p"\nray.io/group="gpu"\nray.io/node-type="worker"'
    pod.enter(labels=worker)
    assert "job" not in platform(pod.env())
    pod.enter(labels=worker, TRAINWATCH_JOB_KIND="RayJob", TRAINWATCH_JOB_NAME="sweep")
    assert platform(pod.env())["job"] == {"kind": "RayJob", "name": "sweep"}
    labelled = worker + '\nray.io/originated-from-cr-name="sweep"\nray.io/originated-from-crd="RayJob"'
    pod.enter(labels=labelled, TRAINWATCH_JOB_KIND="PyTorchJob", TRAINWATCH_JOB_NAME="ignored")
    assert platform(pod.env())["job"] == {"kind": "RayJob", "name": "sweep"}  # the labels first, the variables after


def test_a_job_from_the_environment_needs_a_known_kind_and_both_variables(pod: Pod, caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        assert "job" not in platform(pod.enter(labels="", TRAINWATCH_JOB_KIND="TFJob", TRAINWATCH_JOB_NAME="a").env())
        assert "job" not in platform(pod.enter(labels="", TRAINWATCH_JOB_KIND="", TRAINWATCH_JOB_NAME="a").env())
        bad_name = pod.enter(labels="", TRAINWATCH_JOB_KIND="RayJob", TRAINWATCH_JOB_NAME="A_b").env()
        assert "job" not in platform(bad_name)
    said = [r.getMessage() for r in caplog.records]
    assert any("TFJob" in s for s in said) and any("go together" in s for s in said) and any("A_b" in s for s in said)


def test_invalid_explicit_values_are_dropped_and_discovery_fills_in(pod: Pod, caplog: pytest.LogCaptureFixture):
    pod.enter()
    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        found = platform(pod.env(), {"pod": "UPPER", "namespace": 7, "job": {"kind": "TFJob", "name": "x"},
                                     "kind": "gke", "zone": "a"})
        assert platform(pod.env(), "not a dict") == PLATFORM
    assert found == PLATFORM
    said = " ".join(r.getMessage() for r in caplog.records)
    for problem in ("'UPPER'", "namespace must be a string", "TFJob", "'gke'", "unknown key 'zone'", "must be a dict"):
        assert problem in said


def test_names_follow_kubernetes_rules():
    assert _platform.is_dns_subdomain("a" * 253) and not _platform.is_dns_subdomain("a" * 254)
    assert _platform.is_dns_subdomain("ip-10-0-1-23.ec2.internal") and not _platform.is_dns_subdomain("a..b")
    assert _platform.is_dns_label("a" * 63) and not _platform.is_dns_label("a" * 64)
    assert not _platform.is_dns_label("a.b") and not _platform.is_dns_label("-a") and not _platform.is_dns_label("A")
    assert _platform.is_label_value("") and _platform.is_label_value("My_Job.v2")
    assert not _platform.is_label_value("a" * 64) and not _platform.is_label_value("-a")
    assert _platform.is_label_key("training.kubeflow.org/job-name") and not _platform.is_label_key("a/b/c")
    assert _platform.is_eks_cluster("ml_prod-2") and not _platform.is_eks_cluster("a" * 101)


def test_discovery_never_raises(pod: Pod, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture):
    pod.enter()

    def boom(env: Any) -> Any:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(_platform._Finder, "discover", boom)
    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        assert platform(pod.env()) is None
    assert any("kaboom" in r.getMessage() for r in caplog.records)


def test_an_unreadable_labels_file_is_no_job(pod: Pod):
    pod.enter(labels=None)
    pod.labels_file.mkdir(parents=True)  # a directory where the file should be
    assert "job" not in platform(pod.env())
    pod.monkeypatch.setenv("TRAINWATCH_PODINFO_LABELS", str(pod.tmp / "missing"))
    assert platform(pod.env())["pod"] == PLATFORM["pod"]


# -- the labels file as the kubelet writes it --------------------------------------------------------------------


def test_label_values_are_unquoted_as_go_quotes_them():
    assert go_unquote('"plain"') == "plain"
    assert go_unquote(r'"a\"b\\c\n\t\u00e9\U0001F600\x41\101"') == 'a"b\\c\n\té\U0001F600AA'
    for bad in ('plain', '"open', '"a"b"', r'"\q"', r'"\x4"', '"tail\\"', r'"\777"', r'"\xff"'):
        with pytest.raises(ValueError):
            go_unquote(bad)


def test_a_labels_file_parses_only_when_every_line_is_what_the_kubelet_writes():
    assert parse_labels(PYTORCHJOB_LABELS + "\n")["training.kubeflow.org/job-name"] == "llama-7b-sft"
    assert parse_labels("") == {}
    for bad in ('job-name=unquoted', 'no-equals-sign', '="x"', 'a/b/c="x"', 'a="1"\na="2"', 'bad key="x"'):
        with pytest.raises(ValueError):
            parse_labels(bad)


def test_a_huge_labels_file_is_not_read(pod: Pod, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(_platform, "MAX_FILE_BYTES", 64)
    pod.enter(labels=PYTORCHJOB_LABELS)
    assert "job" not in platform(pod.env())
