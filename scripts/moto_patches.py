"""Patches for behaviour moto server does not emulate. Each patch is small and named."""


def apply() -> None:
    """Apply every patch. Called once by moto_server.py before the server starts."""
    _patch_ssm_invocations()
    _patch_atomic_dynamodb_writes()
    _patch_atomic_s3_writes()
    _patch_copy_source_if_match()
    _patch_query_reads_one_partition()


def _serialise(cls, names, lock) -> None:
    """Runs each named request handler of `cls` under `lock`: check and write become one step."""
    import functools

    for name in names:
        original = getattr(cls, name)

        def locked(self, *args, __original=original, **kwargs):
            with lock:
                return __original(self, *args, **kwargs)

        setattr(cls, name, functools.wraps(original)(locked))


def _patch_atomic_dynamodb_writes() -> None:
    """DynamoDB: a conditional write is atomic (real DynamoDB serialises writes to an item).

    moto's threaded server evaluates a ConditionExpression and then writes, with no lock between the two:
    two PutItems conditional on the same version, arriving together, can both pass. That broke the test
    "alerts exactly once per transition when two sweeps race" on a loaded machine (issue 24): the product
    relies on DynamoDB's guarantee, the emulator did not keep it. Every write handler runs under one lock.
    """
    import threading

    from moto.dynamodb.responses import DynamoHandler

    _serialise(
        DynamoHandler,
        ["put_item", "update_item", "delete_item", "batch_write_item", "transact_write_items"],
        threading.RLock(),
    )


def _patch_atomic_s3_writes() -> None:
    """S3: a conditional PUT, COPY or DELETE (If-Match, If-None-Match) is atomic, as on S3.

    moto checks the precondition in the request handler and writes afterwards, unlocked, so a write
    landing in between would be overwritten or deleted although its ETag no longer matches. The watchdog's
    moves of ended runs (copy if the source still matches, delete if it still matches) depend on it.
    """
    import threading

    from moto.s3.responses import S3Response

    _serialise(S3Response, ["_key_response_put", "delete_object"], threading.RLock())


def _patch_copy_source_if_match() -> None:
    """S3 CopyObject: honour `x-amz-copy-source-if-match` (moto reads only `...-if-none-match`).

    The copy is refused with 412 when the source's ETag is not the one named, as on S3.
    """
    from urllib.parse import unquote, urlparse

    from moto.s3.exceptions import MissingKey, PreconditionFailed
    from moto.s3.responses import S3Response

    original = S3Response.copy_object

    def copy_object(self):
        wanted = self.headers.get("x-amz-copy-source-if-match")
        if wanted:
            source = unquote(urlparse(self.headers["x-amz-copy-source"]).path).lstrip("/")
            bucket, _, key = source.partition("/")
            obj = self.backend.get_object(bucket, key)
            if obj is None:
                raise MissingKey(key=key)
            if wanted.replace('"', "") != obj.etag.replace('"', ""):
                raise PreconditionFailed("x-amz-copy-source-If-Match")
        return original(self)

    S3Response.copy_object = copy_object


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


def _patch_query_reads_one_partition() -> None:
    """DynamoDB Query on the table's key: read the one partition asked for, as DynamoDB does.

    moto answers a Query by sorting every item of the table and keeping those of the partition, so a
    Query's time grows with the whole table: an aged table (20,000 ended runs) made each of the sweep's
    live-partition Queries ~3x slower on the emulator, though DynamoDB reads only the partition. Results
    are unchanged (the same items, in the same order); index Queries keep moto's path.
    """
    import threading

    from moto.dynamodb.models.table import Table

    hint = threading.local()
    all_items, query = Table.all_items, Table.query

    def partition_items(self):
        key = getattr(hint, "key", None)
        if key is None or getattr(hint, "table", None) is not self or not self.range_key_attr:
            return all_items(self)
        part = self.items.get(key, {})
        return sorted(part.values(), key=lambda x: (x.hash_key, x.range_key) if x.range_key else x.hash_key)

    def partition_query(self, hash_key, *args, **kwargs):
        if kwargs.get("index_name") is not None or hash_key is None:
            return query(self, hash_key, *args, **kwargs)
        hint.key, hint.table = hash_key, self
        try:
            return query(self, hash_key, *args, **kwargs)
        finally:
            hint.key, hint.table = None, None

    Table.all_items = partition_items
    Table.query = partition_query
