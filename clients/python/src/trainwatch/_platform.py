"""Protocol v1.4: where the run lives when it runs in a Kubernetes pod (EKS), so the watchdog can diagnose and
restart it through the Kubernetes API rather than SSM on an EC2 instance.

`metadata.json` gets `"platform": {"kind": "eks", "cluster", "namespace", "pod", "node", "job": {"kind", "name"}}`
and each node file the `pod`, `node` and `namespace` of the pod that writes it. Every value is optional, found once
when the run is watched (never on `progress()`'s path), validated, and left out with a warning when invalid: this
module never raises into the training script.

Where each value comes from (the first that is set and valid wins; explicit `platform=` values win over all):

- in a pod at all: `KUBERNETES_SERVICE_HOST` (the kubelet sets it in every container);
- namespace: `TRAINWATCH_K8S_NAMESPACE`, `POD_NAMESPACE` (downward API), the service account's namespace file;
- pod: `POD_NAME` (downward API), `HOSTNAME` (the pod's name unless the pod sets `hostname` or uses the host's
  network, where it is the node's name: then it is left out when `NODE_NAME` shows it);
- node: `NODE_NAME` (downward API `spec.nodeName`);
- job: the pod's labels in a downward-API labels file (`TRAINWATCH_PODINFO_LABELS`, default /etc/podinfo/labels),
  else `TRAINWATCH_JOB_KIND` and `TRAINWATCH_JOB_NAME`;
- cluster: `TRAINWATCH_EKS_CLUSTER` (a pod cannot see its cluster's name).
"""

from __future__ import annotations

import logging
import re
from typing import Any, Callable, Mapping, Optional

log = logging.getLogger("trainwatch")

KIND = "eks"
#: Read at call time, so tests can point it elsewhere.
NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
DEFAULT_LABELS_FILE = "/etc/podinfo/labels"
#: A labels or namespace file larger than this is not what the kubelet writes: it is left out.
MAX_FILE_BYTES = 256 * 1024

#: The job kinds the watchdog knows how to restart, by their lower-case spelling.
JOB_KINDS = {"pytorchjob": "PyTorchJob", "rayjob": "RayJob"}

# Label keys the job is read from.
#
# Kubeflow training-operator v1 (and kubeflow/common, pkg/apis/common/v1/constants.go: JobNameLabel,
# OperatorNameLabel) labels every pod of a PyTorchJob `training.kubeflow.org/job-name=<job>` and
# `training.kubeflow.org/operator-name=pytorchjob-controller` (a TFJob's or an MPIJob's pods name their own
# controller). The older kubeflow/pytorch-operator labelled them `pytorch-job-name=<job>`.
KUBEFLOW_JOB_NAME = "training.kubeflow.org/job-name"
KUBEFLOW_OPERATOR = "training.kubeflow.org/operator-name"
KUBEFLOW_PYTORCH_OPERATOR = "pytorchjob-controller"
LEGACY_PYTORCH_JOB_NAME = "pytorch-job-name"
# KubeRay (ray-project/kuberay, ray-operator/controllers/ray/utils/constant.go: RayOriginatedFromCRNameLabelKey,
# RayOriginatedFromCRDLabelKey, RayClusterLabelKey) marks what a RayJob creates with
# `ray.io/originated-from-crd=RayJob` and `ray.io/originated-from-cr-name=<rayjob>`: the RayCluster
# (rayjob_controller.go, constructRayClusterForRayJob) and the submitter Job's pod template (rayjob_controller.go,
# getSubmitterTemplate). The cluster's head and worker pods are labelled by common/pod.go's labelPod with
# `ray.io/cluster=<raycluster>`, `ray.io/node-type`, `ray.io/group`, ... plus the labels of their pod template, and
# not with the two above: a Ray pod names its RayJob only when the RayJob's pod templates carry those two labels
# (or the pod sets TRAINWATCH_JOB_KIND / TRAINWATCH_JOB_NAME). The cluster's name (`<rayjob>-<5 random>` for a
# RayJob's own cluster, any name with `clusterSelector`) is never taken for the RayJob's: a guessed name could
# restart someone else's job. The watchdog can follow the pod's owner references instead.
RAY_ORIGIN_KIND = "ray.io/originated-from-crd"
RAY_ORIGIN_NAME = "ray.io/originated-from-cr-name"
RAY_CLUSTER = "ray.io/cluster"

# Kubernetes' own rules (k8s.io/apimachinery/pkg/util/validation): a namespace is a DNS-1123 label, a pod, a node
# and a job a DNS-1123 subdomain; a label value at most 63 characters of [A-Za-z0-9._-], alphanumeric at both ends.
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_LABEL_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
# An EKS cluster name (the CreateCluster API's rule): 1-100 characters, alphanumeric first.
_EKS_CLUSTER = re.compile(r"[0-9A-Za-z][A-Za-z0-9_-]*")

_GO_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, '"': 34, "'": 39}

def is_dns_label(value: object) -> bool:
    return isinstance(value, str) and len(value) <= 63 and _DNS_LABEL.fullmatch(value) is not None


def is_dns_subdomain(value: object) -> bool:
    return isinstance(value, str) and len(value) <= 253 and _DNS_SUBDOMAIN.fullmatch(value) is not None


def is_label_value(value: object) -> bool:
    return isinstance(value, str) and len(value) <= 63 and _LABEL_VALUE.fullmatch(value) is not None


def is_label_key(key: object) -> bool:
    """`[prefix/]name`: the prefix a DNS-1123 subdomain, the name like a non-empty label value."""
    if not isinstance(key, str):
        return False
    prefix, _, name = key.rpartition("/")
    if prefix and not is_dns_subdomain(prefix):
        return False
    return len(name) <= 63 and _LABEL_NAME.fullmatch(name) is not None


def is_eks_cluster(value: object) -> bool:
    return isinstance(value, str) and len(value) <= 100 and _EKS_CLUSTER.fullmatch(value) is not None


#: Each field's rule, and what a warning calls it.
_CHECKS: dict[str, tuple[Callable[[object], bool], str]] = {
    "cluster": (is_eks_cluster, "an EKS cluster name (1-100 letters, digits, '-' or '_')"),
    "namespace": (is_dns_label, "a Kubernetes namespace (RFC 1123 label, at most 63 characters)"),
    "pod": (is_dns_subdomain, "a Kubernetes pod name (RFC 1123 subdomain, at most 253 characters)"),
    "node": (is_dns_subdomain, "a Kubernetes node name (RFC 1123 subdomain, at most 253 characters)"),
}


def go_unquote(text: str) -> str:
    """The string a Go `%q` wrote (what the kubelet writes for each label value); ValueError when it is not one."""
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError("not a double-quoted string")
    body, out, i = text[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char == '"':
            raise ValueError("an unescaped quote")
        if char != "\\":
            out += char.encode()
            i += 1
            continue
        if i + 1 >= len(body):
            raise ValueError("a trailing backslash")
        code = body[i + 1]
        if code in _GO_ESCAPES:
            out.append(_GO_ESCAPES[code])
            i += 2
        elif code in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[code]
            digits = body[i + 2 : i + 2 + width]
            if len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError(f"a bad \\{code} escape")
            value = int(digits, 16)
            if code == "x":
                out.append(value)
            else:
                out += chr(value).encode()  # ValueError beyond U+10FFFF; surrogates fail below
            i += 2 + width
        elif code in "01234567":
            digits = body[i + 1 : i + 4]
            if len(digits) != 3 or not all(d in "01234567" for d in digits) or int(digits, 8) > 255:
                raise ValueError("a bad octal escape")
            out.append(int(digits, 8))
            i += 4
        else:
            raise ValueError(f"an unknown escape \\{code}")
    return out.decode("utf-8")  # UnicodeDecodeError is a ValueError


def parse_labels(text: str) -> dict[str, str]:
    """A downward-API labels file: `key="value"` per line, keys sorted, values quoted by Go's `%q`. ValueError
    (naming the line) for anything the kubelet would not have written: then none of the file is trusted."""
    labels: dict[str, str] = {}
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        key, sep, quoted = line.partition("=")
        if not sep or not is_label_key(key):
            raise ValueError(f"line {number} is not key=\"value\" with a valid label key")
        if key in labels:
            raise ValueError(f"line {number} repeats the label {key!r}")
        try:
            labels[key] = go_unquote(quoted)
        except ValueError as error:
            raise ValueError(f"line {number}: the value is not a quoted string ({error})") from None
    return labels


def job_from_labels(labels: Mapping[str, str]) -> Optional[tuple[str, str]]:
    """(kind, name) of the job that owns the pod with these labels, or None when they do not say."""
    name = labels.get(KUBEFLOW_JOB_NAME)
    if name is not None:
        operator = labels.get(KUBEFLOW_OPERATOR)
        if operator is None or operator == KUBEFLOW_PYTORCH_OPERATOR:
            return "PyTorchJob", name
        log.debug("trainwatch: the pod belongs to a %s job, not a PyTorchJob: no job in platform", operator)
        return None
    name = labels.get(LEGACY_PYTORCH_JOB_NAME)
    if name is not None:
        return "PyTorchJob", name
    if labels.get(RAY_ORIGIN_KIND) == "RayJob" and labels.get(RAY_ORIGIN_NAME) is not None:
        return "RayJob", labels[RAY_ORIGIN_NAME]
    return None


def _read_small(path: str) -> str:
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
    return data.decode("utf-8")


def _env(env: Mapping[str, str], name: str) -> Optional[str]:
    value = env.get(name, "").strip()
    return value or None


class _Finder:
    """One discovery: the values found, and each problem warned about once."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.warned: set[str] = set()

    def warn(self, key: str, message: str, *args: Any) -> None:
        if key not in self.warned:
            self.warned.add(key)
            log.warning("trainwatch: " + message, *args)

    def checked(self, field: str, value: Optional[str], source: str) -> Optional[str]:
        """`value` when it passes `field`'s rule; else None, with a warning naming where it came from."""
        if value is None:
            return None
        check, what = _CHECKS[field]
        if check(value):
            return value
        self.warn(f"{field}:{source}", "platform: %s=%r is not %s: left out", source, value[:300], what)
        return None

    def first(self, field: str, sources: list[tuple[str, Callable[[], Optional[str]]]]) -> Optional[str]:
        for source, read in sources:
            value = self.checked(field, read(), source)
            if value is not None:
                return value
        return None

    def namespace_file(self) -> Optional[str]:
        try:
            return _read_small(NAMESPACE_FILE).strip() or None
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            self.warn("namespace-file", "platform: cannot read %s (%s): no namespace from it", NAMESPACE_FILE, error)
            return None

    def labels(self) -> dict[str, str]:
        path = _env(self.env, "TRAINWATCH_PODINFO_LABELS") or DEFAULT_LABELS_FILE
        try:
            return parse_labels(_read_small(path))
        except FileNotFoundError:
            if path != DEFAULT_LABELS_FILE:  # asked for by name: say it is missing
                self.warn("labels", "platform: no labels file at %s (TRAINWATCH_PODINFO_LABELS): no job from it", path)
            return {}
        except (OSError, ValueError) as error:
            self.warn("labels", "platform: the labels file %s is malformed (%s): no job from it", path, error)
            return {}

    def job(self, kind: object, name: object, source: str) -> Optional[dict[str, str]]:
        """{"kind", "name"} when both are valid; None (warned) otherwise."""
        canonical = JOB_KINDS.get(kind.strip().lower()) if isinstance(kind, str) else None
        if canonical is None:
            self.warn(f"job-kind:{source}", "platform: %s job kind %r is not one of %s: no job", source,
                      str(kind)[:100], ", ".join(sorted(JOB_KINDS.values())))
            return None
        if not is_dns_subdomain(name) or (source == "labels" and not is_label_value(name)):
            self.warn(f"job-name:{source}", "platform: %s job name %r is not a Kubernetes name: no job", source,
                      str(name)[:300])
            return None
        return {"kind": canonical, "name": name}  # type: ignore[dict-item]

    def discover(self) -> dict[str, Any]:
        """What the pod's environment and files say; {} when not in a pod."""
        env = self.env
        if not _env(env, "KUBERNETES_SERVICE_HOST"):
            return {}
        found: dict[str, Any] = {}
        found["cluster"] = self.checked("cluster", _env(env, "TRAINWATCH_EKS_CLUSTER"), "TRAINWATCH_EKS_CLUSTER")
        found["namespace"] = self.first("namespace", [
            ("TRAINWATCH_K8S_NAMESPACE", lambda: _env(env, "TRAINWATCH_K8S_NAMESPACE")),
            ("POD_NAMESPACE", lambda: _env(env, "POD_NAMESPACE")),
            (NAMESPACE_FILE, self.namespace_file),
        ])
        found["node"] = self.checked("node", _env(env, "NODE_NAME"), "NODE_NAME")
        pod = self.checked("pod", _env(env, "POD_NAME"), "POD_NAME")
        if pod is None:
            pod = self.checked("pod", _env(env, "HOSTNAME"), "HOSTNAME")
            node = found["node"]
            if pod is not None and node is not None and pod in (node, node.split(".")[0]):
                # hostNetwork: HOSTNAME is the node's name, not the pod's.
                self.warn("pod:hostnetwork", "platform: HOSTNAME=%r is the node's name (a hostNetwork pod?): no pod "
                          "name; set POD_NAME from the downward API", pod)
                pod = None
        found["pod"] = pod
        labelled = job_from_labels(self.labels())
        if labelled is not None:
            found["job"] = self.job(*labelled, "labels")
        if found.get("job") is None:
            kind, name = _env(env, "TRAINWATCH_JOB_KIND"), _env(env, "TRAINWATCH_JOB_NAME")
            if kind and name:
                found["job"] = self.job(kind, name, "TRAINWATCH_JOB_KIND/TRAINWATCH_JOB_NAME")
            elif kind or name:
                self.warn("job-env", "platform: TRAINWATCH_JOB_KIND and TRAINWATCH_JOB_NAME go together; only %s is "
                          "set: no job from them", "TRAINWATCH_JOB_KIND" if kind else "TRAINWATCH_JOB_NAME")
        return {k: v for k, v in found.items() if v is not None}

    def explicit(self, given: Mapping[Any, Any]) -> dict[str, Any]:
        """The valid values of an explicit `platform=` argument (None values are as if not given)."""
        out: dict[str, Any] = {}
        for key, value in given.items():
            if value is None:
                continue
            if key == "kind":
                if value != KIND:
                    self.warn("arg:kind", "platform: kind=%r is not %r: ignored", value, KIND)
            elif key in _CHECKS:
                if not isinstance(value, str):
                    self.warn(f"arg:{key}", "platform: %s must be a string, not %s: ignored", key, type(value).__name__)
                    continue
                checked = self.checked(key, value, f"platform[{key!r}]")
                if checked is not None:
                    out[key] = checked
            elif key == "job":
                if isinstance(value, Mapping):
                    job = self.job(value.get("kind"), value.get("name"), "platform['job']")
                    if job is not None:
                        out["job"] = job
                else:
                    self.warn("arg:job", "platform: job must be {'kind': ..., 'name': ...}, not %r: ignored", value)
            else:
                self.warn(f"arg:{key}", "platform: unknown key %r: ignored", key)
        return out


def platform(env: Mapping[str, str], given: Any = None) -> Optional[dict[str, Any]]:
    """`metadata.json`'s `platform` object, or None (not in a pod, nothing valid found, or `given` is False).

    `given`: None to discover; False for no platform at all; a dict whose valid values win over discovery (an
    invalid one is dropped, with a warning, as if not given). Never raises."""
    try:
        if given is False:
            return None
        finder = _Finder(env)
        explicit: dict[str, Any] = {}
        if given is not None and given is not True:
            if isinstance(given, Mapping):
                explicit = finder.explicit(given)
            else:
                finder.warn("arg", "platform= must be a dict, None or False, not %s: ignored", type(given).__name__)
        found = {**finder.discover(), **explicit}
        if not any(k in found for k in ("namespace", "pod", "job")):
            if explicit:
                finder.warn("empty", "platform: no namespace, pod or job known: no platform written")
            return None
        order = ("cluster", "namespace", "pod", "node", "job")
        return {"kind": KIND, **{k: found[k] for k in order if k in found}}
    except Exception as error:  # never into the training script
        log.warning("trainwatch: platform discovery failed (%s): no platform written", error)
        return None


def pod_fields(place: Optional[Mapping[str, Any]]) -> dict[str, str]:
    """What a node file carries of the platform: its pod, node and namespace."""
    if not place:
        return {}
    return {k: place[k] for k in ("pod", "node", "namespace") if k in place}
