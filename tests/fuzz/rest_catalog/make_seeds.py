"""Writes the seed scripts of fuzz/rest_catalog_fuzz.cc into this folder.

A script is one byte choosing the authentication (bit 0: a bearer token, bit 1:
OAuth2 client credentials), then the server's answers in the order the fuzz
target sends its requests: each answer is one byte choosing the status (an index
into the target's kStatuses; 0 is 200), two bytes of body length (little-endian)
and the body. The answers are shaped after Iceberg's REST OpenAPI spec.

    python3 tests/fuzz/rest_catalog/make_seeds.py
"""

import json
import pathlib
import struct

HERE = pathlib.Path(__file__).resolve().parent
OK, NO_CONTENT, CONFLICT, UNAVAILABLE = 0, 4, 10, 16

METADATA = {
    "format-version": 2,
    "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
    "location": "s3://bucket/db/t",
    "last-sequence-number": 1,
    "last-updated-ms": 1700000000000,
    "last-column-id": 2,
    "current-schema-id": 0,
    "schemas": [{"type": "struct", "schema-id": 0, "identifier-field-ids": [1], "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "note", "required": False, "type": "string"}]}],
    "default-spec-id": 0,
    "partition-specs": [{"spec-id": 0, "fields": []}],
    "last-partition-id": 999,
    "default-sort-order-id": 0,
    "sort-orders": [{"order-id": 0, "fields": []}],
    "properties": {"write.format.default": "parquet"},
    "current-snapshot-id": 3051729675574597004,
    "refs": {"main": {"snapshot-id": 3051729675574597004, "type": "branch"}},
    "snapshots": [{"snapshot-id": 3051729675574597004, "sequence-number": 1,
                   "timestamp-ms": 1700000000000, "summary": {"operation": "append"},
                   "manifest-list": "s3://bucket/db/t/metadata/snap-1.avro", "schema-id": 0}],
    "snapshot-log": [], "metadata-log": [],
}


def load_result(vended: bool) -> dict:
    result = {"metadata-location": "s3://bucket/db/t/metadata/00001.metadata.json", "metadata": METADATA,
              "config": {"s3.endpoint": "http://127.0.0.1:9000", "s3.path-style-access": "true"}}
    if vended:
        result["storage-credentials"] = [{"prefix": "s3://bucket/db/t", "config": {
            "s3.access-key-id": "AKIA", "s3.secret-access-key": "secret", "s3.session-token": "session"}}]
    return result


def answer(status: int, body) -> bytes:
    text = body if isinstance(body, str) else json.dumps(body)
    data = text.encode()
    return struct.pack("<BH", status, len(data)) + data


def error(code: int, kind: str, message: str) -> dict:
    return {"error": {"message": message, "type": kind, "code": code}}


def script(auth: int, answers: list[bytes]) -> bytes:
    return bytes([auth]) + b"".join(answers)


def main() -> None:
    happy = [
        answer(OK, {"defaults": {"s3.region": "us-east-1"}, "overrides": {"prefix": "wh"}}),
        answer(OK, {"namespaces": [["db"], ["other"]], "next-page-token": None}),
        answer(OK, {"namespaces": []}),
        answer(OK, {"namespace": ["db"], "properties": {"owner": "floe"}}),
        answer(OK, {"namespace": ["db"], "properties": {"owner": "floe"}}),
        answer(OK, {"updated": ["k"], "removed": ["gone"], "missing": []}),
        answer(OK, {"identifiers": [{"namespace": ["db"], "name": "t"}]}),
        answer(NO_CONTENT, ""),
        answer(OK, load_result(False)),
        answer(OK, load_result(True)),
        answer(OK, load_result(True)),
        answer(NO_CONTENT, ""),
        answer(NO_CONTENT, ""),
        answer(NO_CONTENT, ""),
    ]
    seeds = {
        "seed-every-call.bin": script(0, happy),
        "seed-bearer-token.bin": script(1, happy),
        "seed-oauth2.bin": script(2, [answer(OK, {"access_token": "abc", "token_type": "bearer",
                                                 "expires_in": 3600, "issued_token_type":
                                                 "urn:ietf:params:oauth:token-type:access_token"})] + happy),
        "seed-paged-lists.bin": script(0, happy[:1] + [
            answer(OK, {"namespaces": [["a"]], "next-page-token": "p2"}),
            answer(OK, {"namespaces": [["b"]]})] + happy[2:]),
        "seed-errors.bin": script(0, happy[:1] + [
            answer(CONFLICT, error(409, "AlreadyExistsException", "Namespace already exists: db")),
            answer(UNAVAILABLE, "<html>bad gateway</html>"),
            answer(9, error(406, "UnsupportedOperationException", "no"))] + happy[3:9] + [
            answer(CONFLICT, error(409, "CommitFailedException", "Requirement failed: branch main changed")),
            answer(UNAVAILABLE, error(503, "ServiceUnavailableException", "try later"))]),
    }
    for name, data in seeds.items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
