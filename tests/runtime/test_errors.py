"""The error kinds in their families (``sandbox/common/errors.py``): a host catches a whole family
or one case, and the kind reported is always the leaf's."""

from __future__ import annotations

import pytest

from runtime import Runtime
from sandbox.common import errors

FAMILIES = {
    errors.SourceError: {errors.InvalidSource, errors.PolicyViolation},
    errors.ArgumentError: {errors.InvalidArguments, errors.NotFound},
    errors.ToolError: {errors.ToolFailed, errors.InvalidState},
    errors.LimitExceeded: {
        errors.Timeout,
        errors.Busy,
        errors.MemoryExceeded,
        errors.OutputTooLarge,
        errors.RecursionLimit,
        errors.BudgetExceeded,
    },
    errors.IsolationError: {errors.WorkerCrashed, errors.ProtocolBroken, errors.IsolationUnavailable},
    errors.TransportError: {errors.HttpDenied, errors.HttpFailed, errors.ModelFailed, errors.StreamEnded},
    errors.SessionError: {errors.UnknownOutcome, errors.Conflict, errors.StoreError},
    errors.SetupError: {errors.MissingExtra, errors.InvalidApp, errors.BadArchive},
}


def _error_classes() -> list[type[errors.ToolpenError]]:
    return [
        value
        for value in vars(errors).values()
        if isinstance(value, type) and issubclass(value, errors.ToolpenError)
    ]


def test_each_leaf_is_in_exactly_one_family_under_toolpen_error() -> None:
    leaves = {cls for cls in _error_classes() if "kind" in vars(cls)} - {errors.ToolpenError}
    assert leaves == set().union(*FAMILIES.values())
    for family, members in FAMILIES.items():
        assert family.__bases__ == (errors.ToolpenError,)
        for leaf in members:
            assert issubclass(leaf, family)
            assert [other for other in FAMILIES if issubclass(leaf, other)] == [family]


def test_a_family_has_no_kind_of_its_own_and_the_wire_keeps_each_leafs() -> None:
    for family in FAMILIES:
        assert "kind" not in vars(family)
        assert family not in errors.ERROR_KINDS.values()
    for kind, cls in errors.ERROR_KINDS.items():
        assert cls(f"a {kind}").to_dict()["kind"] == kind
        assert type(errors.error_from_dict({"kind": kind, "message": "m"})) is cls


@pytest.mark.parametrize(
    ("error", "family"),
    [
        (errors.InvalidSource("x"), errors.SourceError),
        (errors.PolicyViolation("x"), errors.SourceError),
        (errors.InvalidArguments("x"), errors.ArgumentError),
        (errors.NotFound("x"), errors.ArgumentError),
        (errors.ToolFailed("x"), errors.ToolError),
        (errors.InvalidState("x"), errors.ToolError),
        (errors.Busy("x"), errors.LimitExceeded),
        (errors.BudgetExceeded("x"), errors.LimitExceeded),
        (errors.WorkerCrashed("x"), errors.IsolationError),
        (errors.IsolationUnavailable("x"), errors.IsolationError),
        (errors.HttpDenied("x"), errors.TransportError),
        (errors.StreamEnded("x"), errors.TransportError),
        (errors.ModelFailed("x"), errors.TransportError),
        (errors.Conflict("x"), errors.SessionError),
        (errors.StoreError("x"), errors.SessionError),
        (errors.MissingExtra("x"), errors.SetupError),
        (errors.BadArchive("x"), errors.SetupError),
    ],
)
def test_a_host_catches_a_whole_family(error: errors.ToolpenError, family: type[Exception]) -> None:
    with pytest.raises(family) as caught:
        raise error
    assert caught.value is error
    assert isinstance(error, errors.ToolpenError)


def test_what_users_caught_before_still_matches() -> None:
    assert issubclass(errors.Busy, errors.Timeout)
    assert issubclass(errors.MissingExtra, ImportError)
    with pytest.raises(ImportError):
        raise errors.MissingExtra("needs toolpen[serve]")


def test_a_tool_failure_comes_back_catchable_by_family() -> None:
    with Runtime(allow_weak_isolation=True) as rt:
        rt.add_tool('def boom() -> int:\n    """Fails."""\n    return 1 // 0\n')
        result = rt.call("boom", {})
        missing = rt.call("nope", {})
    assert isinstance(result.error, errors.ToolError) and result.error.kind == "tool_error"
    assert isinstance(missing.error, errors.ArgumentError) and missing.error.kind == "not_found"


def test_the_http_status_of_each_kind_is_as_before() -> None:
    from runtime._server.responses import status_of

    expected = {"not_found": 404, "invalid_source": 422, "policy": 422, "invalid_arguments": 422}
    expected["store_error"] = 503
    for kind, cls in errors.ERROR_KINDS.items():
        assert status_of(cls("m")) == expected.get(kind, 500), kind
    for family in FAMILIES:
        assert status_of(family("m")) == 500
