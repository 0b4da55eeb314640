"""Patches for behaviour moto server does not emulate. Each patch is small and named."""


def apply() -> None:
    """Apply every patch. Called once by moto_server.py before the server starts."""
    _patch_ssm_invocations()


# Parameter Store names the SSM patch reads (documented in docs/REMEDIATION.md, used by local/simulatedInstance.ts).
SIMULATED_INSTANCE_PARAM = "/trainwatch/emulator/instances/{instance_id}"
SEEDED_INVOCATION_PARAM = "/trainwatch/emulator/invocations/{command_id}/{instance_id}"


def _patch_ssm_invocations() -> None:
    """SSM GetCommandInvocation: replay outcomes seeded through Parameter Store.

    moto runs nothing and answers every invocation `Success` with empty output. A simulator (or a test)
    seeds what an instance "did" with the ordinary PutParameter API:
      - `/trainwatch/emulator/instances/{instance_id}` (any value) marks a simulated instance: its
        invocations stay `InProgress` until an outcome is seeded, as on a real instance still running;
      - `/trainwatch/emulator/invocations/{command_id}/{instance_id}` holds a JSON object whose fields
        (Status, StatusDetails, ResponseCode, StandardOutputContent, StandardErrorContent, ...) replace
        moto's in the GetCommandInvocation response.
    Instances never marked and commands never seeded keep moto's behaviour.
    """
    import json

    from moto.ssm.models import SimpleSystemManagerBackend

    original = SimpleSystemManagerBackend.get_command_invocation

    def lookup(backend, name):
        try:
            param = backend.get_parameter(name)
        except Exception:  # noqa: BLE001 - ParameterNotFound and friends: not seeded
            return None
        return None if param is None else param.value

    def get_command_invocation(self, command_id, instance_id, plugin_name):
        invocation = dict(original(self, command_id, instance_id, plugin_name))
        seeded = lookup(self, SEEDED_INVOCATION_PARAM.format(command_id=command_id, instance_id=instance_id))
        if seeded is not None:
            invocation.update(json.loads(seeded))
        elif lookup(self, SIMULATED_INSTANCE_PARAM.format(instance_id=instance_id)) is not None:
            invocation.update({"Status": "InProgress", "StatusDetails": "InProgress", "ResponseCode": -1})
        return invocation

    SimpleSystemManagerBackend.get_command_invocation = get_command_invocation
