"""The telemetry records' quick ``__init__`` (types._quick_init) takes what the dataclass's
own would: the same parameters in the same order, the same defaults, a fresh default from a
factory, the same errors, and the result is still frozen and equal field for field."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from planner.telemetry.types import Frame, FrozenDict, GpuSample, ProcessSample


@pytest.mark.parametrize("cls", [GpuSample, ProcessSample, Frame])
def test_parameters_are_the_fields_with_their_defaults(cls):
    params = list(inspect.signature(cls).parameters.values())
    fields = dataclasses.fields(cls)
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields, strict=True):
        if f.default is not dataclasses.MISSING:
            assert p.default == f.default
        elif f.default_factory is dataclasses.MISSING:
            assert p.default is inspect.Parameter.empty


def test_every_field_is_stored_and_defaults_apply():
    values = {f.name: (i if f.name != "unavailable" else FrozenDict({"fan_pct": "no fan"}))
              for i, f in enumerate(dataclasses.fields(GpuSample))}
    s = GpuSample(**values)
    assert dataclasses.asdict(s) == {k: (dict(v) if isinstance(v, FrozenDict) else v)
                                     for k, v in values.items()}
    bare = GpuSample(3, "GPU-x")
    assert (bare.index, bare.uuid, bare.memory_used_bytes, bare.lost) == (3, "GPU-x", None, False)
    assert bare.unavailable == {} and isinstance(bare.unavailable, FrozenDict)
    assert GpuSample(3, "GPU-x") == bare and hash(ProcessSample(1, "a", None, 2)) == hash(
        ProcessSample(1, "a", None, 2))
    assert pickle.loads(pickle.dumps(bare)) == bare
    assert dataclasses.replace(bare, index=4).index == 4


def test_errors_and_frozen_as_before():
    with pytest.raises(TypeError):
        GpuSample(1)  # uuid missing
    with pytest.raises(TypeError):
        GpuSample(1, "x", no_such_field=2)
    with pytest.raises(TypeError):
        ProcessSample(1, "a", None, 2, 5)  # one argument too many
    s = ProcessSample(1, "a", None, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.pid = 2  # type: ignore[misc]
