"""The GPU catalog: shipped card specs, validated, merged with the user's own overrides.

Qt-free and without I/O at import time. The shipped catalog is ``data/gpus.json``
(``planner.paths.data_path("gpus.json")``); the user's overrides (their own prices, custom
cards, the cards they own) live in ``catalog-overrides.json`` in the user data folder.

A bad shipped row is a bug: :func:`load_catalog` raises :class:`CatalogError` naming the card
and the field. A bad override file is the user's data: it is set aside (renamed to
``catalog-overrides.json.corrupt-YYYYmmdd-HHMMSS``), a notice says so, and the shipped catalog
still loads.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from planner import safeio
from planner.atomicfile import write_json_atomic
from planner.core import prices as prices_mod
from planner.core.prices import Observation, RentalQuote, RowProblem, rental_quote
from planner.i18n import QT_TRANSLATE_NOOP, Msg

SCHEMA_VERSION = 1
OVERRIDES_SCHEMA_VERSION = 1
OVERRIDES_FILENAME = "catalog-overrides.json"

ARCHITECTURES = (
    "Kepler",
    "Maxwell",
    "Pascal",
    "Volta",
    "Turing",
    "Ampere",
    "Ada Lovelace",
    "Hopper",
    "Blackwell",
)
SEGMENTS = ("consumer", "workstation", "datacenter")
CONDITIONS = ("new", "used")  # of a price the user enters
PRICE_CONDITIONS = ("new", "used", "mixed")  # of a price lookup
PRICES_FILENAME = "prices.csv"
LAUNCH_PRICE_SOURCE = "launch price (MSRP)"
MEMORY_TYPES = ("GDDR5", "GDDR5X", "GDDR6", "GDDR6X", "GDDR7", "HBM2", "HBM2e", "HBM3", "HBM3e")

USER_PRICE_SOURCE = "your own entry"
CUSTOM_CARD_SOURCE = "your own card"

_GIB = 1024**3
_MONTH_RE = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
_CC_RE = re.compile(r"^(\d{1,2})\.(\d)$")


class CatalogError(ValueError):
    """A catalog row or override entry is invalid; the message names the card and field."""


class OverridesError(CatalogError):
    """The user's override file cannot be used (bad JSON or invalid content)."""


class OverridesRefused(OverridesError):
    """The overrides file is beyond a bound or not a regular file: it is not moved."""


# --------------------------------------------------------------------------- data types


@dataclass(frozen=True)
class PricePoint:
    """A dated USD price of one card, as the lookups and the advisor use it.

    The catalog's own points (data/gpus.json, the user's override entries) carry date, usd,
    condition and source; those from price observations (planner.core.prices) also say the
    kind (sold, asking, list), where it was seen, the day and the note. ``launch`` marks a
    launch price standing in for "new" where no dated street price is known.
    """

    date: str  # "YYYY-MM"
    usd: float
    condition: str  # "new" | "used" | "mixed" | "msrp" (a launch price in the history)
    source: str
    kind: str = ""  # sold | asking | list; "" = not stated
    market: str = ""  # eBay, Amazon, a retailer
    day: str | None = None  # YYYY-MM-DD when the source dates it to the day
    note: str = ""
    launch: bool = False
    origin: str = field(default="catalog", compare=False)  # catalog | shipped | yours

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"date": self.date, "usd": self.usd, "condition": self.condition,
                               "source": self.source}
        for k in ("kind", "market", "day", "note"):
            if getattr(self, k):
                out[k] = getattr(self, k)
        if self.launch:
            out["launch"] = True
        return out


@dataclass(frozen=True)
class OwnedCard:
    name: str
    condition: str = "new"
    count: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "condition": self.condition, "count": self.count}


@dataclass(frozen=True)
class GpuSpec:
    """One card. Units are in the field names; None means "not known / not published"."""

    name: str
    architecture: str
    compute_capability: str
    segment: str
    memory_gib: float
    bandwidth_gbs: float
    fp32_tflops: float
    aliases: tuple[str, ...] = ()
    nvml_names: tuple[str, ...] = ()
    variant_of: str | None = None
    chip: str | None = None
    memory_type: str | None = None
    bus_width_bits: int | None = None
    memory_data_rate_gbps: float | None = None
    cuda_cores: int | None = None
    boost_clock_mhz: int | None = None
    fp16_tflops: float | None = None
    has_tensor_cores: bool = False
    fp16_tensor_tflops: float | None = None
    fp16_tensor_fp32acc_tflops: float | None = None
    bf16_tensor_tflops: float | None = None
    tf32_tensor_tflops: float | None = None  # dense; Ampere and newer
    int8_tops: float | None = None
    tdp_w: float | None = None
    pcie_gen: int | None = None
    nvlink: str | None = None
    release: str | None = None
    launch_price_usd: float | None = None
    prices: tuple[PricePoint, ...] = ()
    quirks: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)
    notes: str | None = None
    source: str = ""
    custom: bool = False  # a card the user added
    # Derived, not stored: (board watts per SM, boost MHz) of the catalog card of the same chip
    # with the most board power per SM (``Catalog``): the speed model's sustained clock under
    # the power limit (``planner.core.speed.sustained_clock_factor``). None: no such figures.
    power_reference: tuple[float, int] | None = field(default=None, compare=False, hash=False)

    @property
    def sm_count(self) -> float | None:
        """Streaming multiprocessors: CUDA cores ÷ FP32 lanes per SM (``fp32_lanes_per_sm``)."""
        return self.cuda_cores / fp32_lanes_per_sm(self) if self.cuda_cores else None

    @property
    def power_per_sm_w(self) -> float | None:
        """Reference board power per SM (W); None where the catalog lacks either figure."""
        sms = self.sm_count
        return self.tdp_w / sms if self.tdp_w and sms else None

    @property
    def memory_bytes(self) -> int:
        return int(self.memory_gib * _GIB)

    @property
    def fast_memory_bytes(self) -> int:
        """Memory at full speed: the GTX 970's 3.5 GB, otherwise all of it."""
        fast = self.quirks.get("fast_memory_gib") if self.quirks else None
        if isinstance(fast, (int, float)) and 0 < fast < self.memory_gib:
            return int(fast * _GIB)
        return self.memory_bytes

    def usable_memory_bytes(self, reserved_bytes: int, *, fast_only: bool = True) -> int:
        """What a network can use: (fast) memory less what driver and context reserve."""
        total = self.fast_memory_bytes if fast_only else self.memory_bytes
        return max(0, total - int(reserved_bytes))

    @property
    def compute_capability_tuple(self) -> tuple[int, int]:
        return parse_compute_capability(self.compute_capability)

    @property
    def server_module(self) -> bool:
        """An SXM module: it plugs into an NVIDIA server baseboard, not a PCIe slot."""
        return bool(self.quirks) and self.quirks.get("form_factor") == "SXM"

    @property
    def gpus_per_board(self) -> int:
        n = self.quirks.get("gpus_per_board") if self.quirks else None
        return n if isinstance(n, int) and n > 0 else 1

    def to_dict(self) -> dict[str, Any]:
        """The JSON row (the shipped file's format), with ``memory_bytes`` added."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "power_reference":  # derived from the other cards, not a fact of its own
                continue
            if f.name == "prices":
                v = [p.to_dict() for p in v]
            elif f.name in ("aliases", "nvml_names"):
                v = list(v)
            elif f.name == "quirks":
                v = dict(v) if v else None
            out[f.name] = v
        out["memory_bytes"] = self.memory_bytes
        return out


# FP32 lanes per SM by compute capability (CUDA C++ Programming Guide, "Arithmetic
# Instructions": 32-bit floating-point add, multiply, multiply-add results per clock cycle per
# multiprocessor): Kepler 192, Maxwell 128, GP100 64, GP10x 128, Volta and Turing 64, GA100 64,
# GA10x and AD10x 128, Hopper 128, Blackwell 128.
_FP32_LANES = (("3.", 192), ("5.", 128), ("6.0", 64), ("6.", 128), ("7.", 64), ("8.0", 64),
               ("8.", 128), ("9.", 128), ("10.", 128), ("12.", 128))


def fp32_lanes_per_sm(card: Any) -> int:
    cc = getattr(card, "compute_capability", "") or ""
    for prefix, lanes in _FP32_LANES:
        if cc.startswith(prefix):
            return lanes
    return 128


# --------------------------------------------------------------------------- validation


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


class _Row:
    """Field readers that raise CatalogError naming the card and the field."""

    def __init__(self, row: Any, where: str, error: type[CatalogError]) -> None:
        if not isinstance(row, dict):
            raise error(f"{where}: expected an object, got {type(row).__name__}")
        self.row = row
        self.error = error
        name = row.get("name")
        self.label = f"{where} ({name!r})" if isinstance(name, str) and name else where

    def fail(self, key: str, msg: str) -> CatalogError:
        return self.error(f"{self.label}: field '{key}' {msg}")

    def str_(self, key: str, *, required: bool = False, choices: Iterable[str] | None = None,
             default: str | None = None) -> str | None:
        v = self.row.get(key, default)
        if v is None:
            if required:
                raise self.fail(key, "is required")
            return None
        if not isinstance(v, str) or not v.strip():
            raise self.fail(key, f"must be a non-empty string, got {v!r}")
        if choices is not None and v not in choices:
            raise self.fail(key, f"must be one of {', '.join(choices)}; got {v!r}")
        return v

    def num(self, key: str, *, required: bool = False, positive: bool = True,
            integer: bool = False) -> Any:
        v = self.row.get(key)
        if v is None:
            if required:
                raise self.fail(key, "is required")
            return None
        if not _is_number(v):
            raise self.fail(key, f"must be a number, got {v!r}")
        if integer and int(v) != v:
            raise self.fail(key, f"must be a whole number, got {v!r}")
        if positive and v <= 0:
            raise self.fail(key, f"must be greater than 0, got {v!r}")
        return int(v) if integer else v

    def month(self, key: str, *, required: bool = False) -> str | None:
        v = self.row.get(key)
        if v is None:
            if required:
                raise self.fail(key, "is required")
            return None
        if not isinstance(v, str) or not _MONTH_RE.match(v):
            raise self.fail(key, f"must be a month 'YYYY-MM', got {v!r}")
        return v

    def strings(self, key: str) -> tuple[str, ...]:
        v = self.row.get(key)
        if v is None:
            return ()
        if not isinstance(v, list) or not all(isinstance(s, str) and s.strip() for s in v):
            raise self.fail(key, f"must be a list of non-empty strings, got {v!r}")
        return tuple(v)


def parse_compute_capability(cc: str) -> tuple[int, int]:
    m = _CC_RE.match(str(cc).strip())
    if not m:
        raise ValueError(f"compute capability must look like '8.6', got {cc!r}")
    return int(m.group(1)), int(m.group(2))


def price_point_from_dict(obj: Any, where: str, *, error: type[CatalogError] = CatalogError,
                          default_source: str | None = None) -> PricePoint:
    r = _Row(obj, where, error)
    date = r.month("date", required=True)
    usd = r.num("usd", required=True)
    condition = r.str_("condition", required=True, choices=CONDITIONS)
    source = r.str_("source", required=default_source is None, default=default_source)
    assert date is not None and condition is not None and source is not None
    return PricePoint(date=date, usd=float(usd), condition=condition, source=source)



def _check_tensor_rates(r: "_Row", has_tc: bool, fp32: float | None) -> None:
    """The speed model's tensor-core rates: positive, only on cards with tensor cores, and
    ordered as the hardware orders them (TF32 ≤ FP16 with FP32 accumulate ≤ FP16 accumulate)."""
    rates = {k: r.num(k) for k in ("tf32_tensor_tflops", "fp16_tensor_fp32acc_tflops",
                                   "bf16_tensor_tflops", "fp16_tensor_tflops")}
    for key, v in rates.items():
        if v is None:
            continue
        if v <= 0:
            raise r.fail(key, f"must be above 0 or null, got {v!r}")
        if not has_tc:
            raise r.fail(key, "is given but has_tensor_cores is false")
    tf32, acc32, acc16 = (rates["tf32_tensor_tflops"], rates["fp16_tensor_fp32acc_tflops"],
                          rates["fp16_tensor_tflops"])
    if tf32 is not None and acc32 is not None and tf32 > acc32 * 1.01:
        raise r.fail("tf32_tensor_tflops", f"({tf32:g}) is above the FP16 FP32-accumulate "
                                           f"rate ({acc32:g})")
    if acc32 is not None and acc16 is not None and acc32 > acc16 * 1.01:
        raise r.fail("fp16_tensor_fp32acc_tflops", f"({acc32:g}) is above the FP16-accumulate "
                                                   f"rate ({acc16:g})")

def spec_from_dict(row: Any, where: str = "card", *, custom: bool = False,
                   error: type[CatalogError] = CatalogError) -> GpuSpec:
    """Validate one catalog row and build its GpuSpec.

    Shipped rows (``custom=False``) must name their source and every price's source; a user's
    custom card gets ``CUSTOM_CARD_SOURCE`` when it names none. The fields are checked in a fixed
    order, so a row with several bad fields is told of the same one every time.
    """
    r = _Row(row, where, error)
    name, cc = _identity(r)
    memory_type = _memory_type(r, custom)
    prices = _prices(r, custom)
    quirks, mem = _quirks_and_memory(r)
    has_tc, tensor = _tensor_cores(r)
    nvlink = _nvlink(r)
    source = r.str_("source", required=not custom, default=CUSTOM_CARD_SOURCE if custom else None)
    launch = _launch_price(r)
    return GpuSpec(name=name, compute_capability=cc, memory_gib=mem, memory_type=memory_type,
                   has_tensor_cores=has_tc, fp16_tensor_tflops=tensor, nvlink=nvlink,
                   launch_price_usd=launch, prices=prices, quirks=dict(quirks),
                   source=source or "", custom=custom, **_plain_fields(r))


def _identity(r: _Row) -> tuple[str, str]:
    """The card's name and its compute capability ('8.6')."""
    name = r.str_("name", required=True)
    assert name is not None
    cc = r.str_("compute_capability", required=True)
    if not _CC_RE.match(cc or ""):
        raise r.fail("compute_capability", f"must look like '8.6', got {cc!r}")
    return name, cc or ""


def _memory_type(r: _Row, custom: bool) -> str | None:
    """GDDR6X, HBM3…: one of MEMORY_TYPES on a shipped row, any text on a user's own card."""
    memory_type = r.str_("memory_type")
    if memory_type is not None and not custom and memory_type not in MEMORY_TYPES:
        raise r.fail("memory_type",
                     f"must be one of {', '.join(MEMORY_TYPES)}; got {memory_type!r}")
    return memory_type


def _prices(r: _Row, custom: bool) -> tuple[PricePoint, ...]:
    prices_raw = r.row.get("prices", [])
    if prices_raw is None:
        prices_raw = []
    if not isinstance(prices_raw, list):
        raise r.fail("prices", f"must be a list, got {type(prices_raw).__name__}")
    return tuple(
        price_point_from_dict(p, f"{r.label}: prices[{i}]", error=r.error,
                              default_source=USER_PRICE_SOURCE if custom else None)
        for i, p in enumerate(prices_raw)
    )


def _quirks_and_memory(r: _Row) -> tuple[dict, Any]:
    """The quirks object (fast_memory_gib below memory_gib, form_factor 'SXM') and memory_gib."""
    quirks = r.row.get("quirks")
    if quirks is None:
        quirks = {}
    if not isinstance(quirks, dict):
        raise r.fail("quirks", f"must be an object or null, got {quirks!r}")
    fast = quirks.get("fast_memory_gib")
    mem = r.num("memory_gib", required=True)
    if fast is not None and (not _is_number(fast) or not 0 < fast < mem):
        raise r.fail("quirks", f"fast_memory_gib must be between 0 and memory_gib, got {fast!r}")
    form = quirks.get("form_factor")
    if form is not None and form != "SXM":
        raise r.fail("quirks", f"form_factor must be 'SXM' or absent, got {form!r}")
    return quirks, mem


def _tensor_cores(r: _Row) -> tuple[bool, Any]:
    """has_tensor_cores and the FP16 tensor rate, with every tensor rate checked."""
    has_tc = r.row.get("has_tensor_cores", False)
    if not isinstance(has_tc, bool):
        raise r.fail("has_tensor_cores", f"must be true or false, got {has_tc!r}")
    tensor = r.num("fp16_tensor_tflops")
    if tensor is not None and not has_tc:
        raise r.fail("fp16_tensor_tflops", "is given but has_tensor_cores is false")
    _check_tensor_rates(r, has_tc, r.num("fp32_tflops", required=True))
    return has_tc, tensor


def _nvlink(r: _Row) -> str | None:
    nvlink = r.row.get("nvlink")
    if nvlink is not None and (not isinstance(nvlink, str) or not nvlink.strip()):
        raise r.fail("nvlink", f"must be a description string or null, got {nvlink!r}")
    return nvlink


def _launch_price(r: _Row) -> Any:
    launch = r.row.get("launch_price_usd")
    if launch is not None and (not _is_number(launch) or launch < 0):
        raise r.fail("launch_price_usd", f"must be a number >= 0 or null, got {launch!r}")
    return launch


def _plain_fields(r: _Row) -> dict[str, Any]:
    """The fields read as they are, in the order they are checked."""
    return {
        "architecture": r.str_("architecture", required=True, choices=ARCHITECTURES) or "",
        "segment": r.str_("segment", required=True, choices=SEGMENTS) or "",
        "bandwidth_gbs": r.num("bandwidth_gbs", required=True),
        "fp32_tflops": r.num("fp32_tflops", required=True),
        "aliases": r.strings("aliases"),
        "nvml_names": r.strings("nvml_names"),
        "variant_of": r.str_("variant_of"),
        "chip": r.str_("chip"),
        "bus_width_bits": r.num("bus_width_bits", integer=True),
        "memory_data_rate_gbps": r.num("memory_data_rate_gbps"),
        "cuda_cores": r.num("cuda_cores", integer=True),
        "boost_clock_mhz": r.num("boost_clock_mhz", integer=True),
        "fp16_tflops": r.num("fp16_tflops"),
        "fp16_tensor_fp32acc_tflops": r.num("fp16_tensor_fp32acc_tflops"),
        "bf16_tensor_tflops": r.num("bf16_tensor_tflops"),
        "tf32_tensor_tflops": r.num("tf32_tensor_tflops"),
        "int8_tops": r.num("int8_tops"),
        "tdp_w": r.num("tdp_w"),
        "pcie_gen": r.num("pcie_gen", integer=True),
        "release": r.month("release"),
        "notes": r.str_("notes"),
    }


# --------------------------------------------------------------------------- name matching

_VENDOR_WORDS = re.compile(r"\b(nvidia|geforce)\b")
_MEMORY_SUFFIX = re.compile(r"\b\d+\s*gb\b|\bhbm\w*\b|\bgddr\w*\b")


def normalize_name(name: str, *, drop_memory: bool = False) -> str:
    """Lower case, without 'NVIDIA'/'GeForce', spaces and punctuation (and memory suffix)."""
    s = name.casefold()
    s = _VENDOR_WORDS.sub(" ", s)
    if drop_memory:
        s = _MEMORY_SUFFIX.sub(" ", s)
    return re.sub(r"[^0-9a-z]+", "", s)


def _collapse(s: str) -> str:
    return " ".join(s.split()).casefold()


# --------------------------------------------------------------------------- catalog


def with_power_references(cards: Iterable[GpuSpec]) -> tuple[GpuSpec, ...]:
    """Each card with the ``power_reference`` of its chip: the board watts per SM and boost
    clock of the built-in card that runs the whole chip (the most SMs) with the most watts per
    SM: RTX 3090 Ti for GA102, A100 SXM4 for GA100, H100 SXM5 for GH100, Quadro RTX 6000 for
    TU102. A cut-down variant (fewer SMs) with more watts per SM than that runs at its boost
    clock. Custom cards take their chip's reference and never set it."""
    cards = tuple(cards)
    best: dict[str, tuple[float, float, int]] = {}
    for c in cards:
        w, sms = c.power_per_sm_w, c.sm_count
        if c.custom or not c.chip or w is None or not sms or not c.boost_clock_mhz:
            continue
        key = (round(sms), w, int(c.boost_clock_mhz))
        if c.chip not in best or key > best[c.chip]:
            best[c.chip] = key
    refs = {chip: (w, mhz) for chip, (_, w, mhz) in best.items()}
    return tuple(c if c.power_reference == refs.get(c.chip or "") else
                 replace(c, power_reference=refs.get(c.chip or "")) for c in cards)


@dataclass(frozen=True)
class Catalog:
    cards: tuple[GpuSpec, ...]
    notices: tuple[str, ...] = ()
    owned: tuple[OwnedCard, ...] = ()
    # Price observation files, read on the first price lookup (None: none); see price_book().
    prices_path: Path | None = field(default=None, compare=False)
    user_prices_path: Path | None = field(default=None, compare=False)
    _by_name: dict[str, GpuSpec] = field(default_factory=dict, init=False, repr=False,
                                         compare=False, hash=False)
    _lazy: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False,
                                  hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", with_power_references(self.cards))
        index: dict[str, GpuSpec] = {}
        for c in self.cards:
            index.setdefault(_collapse(c.name), c)
        for c in self.cards:
            for a in c.aliases:
                index.setdefault(_collapse(a), c)
        object.__setattr__(self, "_by_name", index)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[GpuSpec]:
        return iter(self.cards)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.cards)

    def by_name(self, name: str) -> GpuSpec | None:
        """The card with this name or alias, case-insensitively (then ignoring 'NVIDIA'/
        'GeForce', spaces and punctuation)."""
        hit = self._by_name.get(_collapse(name))
        if hit is not None:
            return hit
        key = normalize_name(name)
        if not key:
            return None
        for c in self.cards:
            if normalize_name(c.name) == key or any(normalize_name(a) == key for a in c.aliases):
                return c
        return None

    def variants(self, card: GpuSpec) -> tuple[GpuSpec, ...]:
        """The card and the cards that report the same NVML name (``variant_of`` it)."""
        base = self.by_name(card.variant_of) if card.variant_of else card
        base = base or card
        return (base,) + tuple(c for c in self.cards if c.variant_of == base.name)

    def match_nvml_name(self, nvml_name: str,
                        memory_total_bytes: int | None = None) -> GpuSpec | None:
        """The catalog card for a name NVML reports.

        Exact ``nvml_names`` first; then a normalised match (without 'NVIDIA', 'GeForce',
        spacing, case), then the same without a memory suffix such as '80GB HBM3'. Where
        cards share a name and differ in memory (``variant_of``), ``memory_total_bytes`` (as
        NVML reports it) picks the closest.
        """
        if not nvml_name or not nvml_name.strip():
            return None
        target = _collapse(nvml_name)
        candidates = [c for c in self.cards if any(_collapse(n) == target for n in c.nvml_names)]
        if not candidates:
            key = normalize_name(nvml_name)
            candidates = [c for c in self.cards if key and key in self._keys(c, False)]
        if not candidates:
            key = normalize_name(nvml_name, drop_memory=True)
            candidates = [c for c in self.cards if key and key in self._keys(c, True)]
        if not candidates:
            return None
        group: list[GpuSpec] = []
        for c in candidates:
            for v in self.variants(c):
                if v not in group:
                    group.append(v)
        if memory_total_bytes is None or len(group) == 1:
            return candidates[0]
        return min(group, key=lambda c: abs(c.memory_bytes - memory_total_bytes))

    @staticmethod
    def _keys(card: GpuSpec, drop_memory: bool) -> set[str]:
        names = (card.name, *card.aliases, *card.nvml_names)
        return {normalize_name(n, drop_memory=drop_memory) for n in names} - {""}

    def closest_names(self, name: str, n: int = 3) -> list[str]:
        """Card names most like ``name`` (for "did you mean ...")."""
        def plain(s: str) -> str:
            return " ".join(_VENDOR_WORDS.sub(" ", s.casefold()).split())

        choices: dict[str, str] = {}
        for c in self.cards:
            for label in (c.name, *c.aliases):
                choices.setdefault(plain(label), c.name)
        q = plain(name)
        contains = [k for k in choices if q and q in k]
        hits = sorted(contains, key=len) + difflib.get_close_matches(q, list(choices),
                                                                     n=n * 3, cutoff=0.5)
        out: list[str] = []
        for h in hits:
            if choices[h] not in out:
                out.append(choices[h])
        return out[:n]

    def _resolve(self, card: GpuSpec | str) -> GpuSpec:
        if isinstance(card, GpuSpec):
            return card
        spec = self.by_name(card)
        if spec is None:
            raise KeyError(f"no card named {card!r} in the catalog")
        return spec

    # ----------------------------------------------------------------- prices

    def price_book(self) -> PriceBook:
        """Every price observation, read on first use (never at start-up) and kept."""
        book = self._lazy.get("prices")
        if book is None:
            book = _build_price_book(self)
            self._lazy["prices"] = book
        return book

    def forget_prices(self) -> None:
        """Read the observation files again on the next lookup (after an import or removal)."""
        self._lazy.pop("prices", None)

    def observations(self, card: GpuSpec | str) -> tuple[Observation, ...]:
        """All of a card's observations (any currency, rentals too; the catalog's own points
        and the user's included), oldest first."""
        spec = self._resolve(card)
        return self.price_book().by_card.get(spec.name, ())

    def price_history(self, card: GpuSpec | str, condition: str | None = None
                      ) -> tuple[PricePoint, ...]:
        """USD sale prices oldest first, each figure once; on the same month a user entry comes
        after the rest, then a dated day after a month-only point, then sold after list after
        asking (so the last one is the month's nearest and best)."""
        spec = self._resolve(card)
        pts = self.price_book().points.get(spec.name, ())
        return tuple(p for p in pts if condition is None or p.condition == condition)

    def price(self, card: GpuSpec | str, as_of: str | None = None,
              condition: str = "new", *, prefer_sold_months: int | None = None
              ) -> PricePoint | None:
        """The nearest price at or before ``as_of`` ("YYYY-MM"; None: the latest of all).

        ``prefer_sold_months``: take a sold price instead of a newer asking or list price when
        it is at most that many months older. For "new", with no dated point, the launch price
        (flagged ``launch``) dated at release stands in; otherwise None, never a guess.
        """
        if condition not in PRICE_CONDITIONS:
            raise ValueError(f"condition must be one of {', '.join(PRICE_CONDITIONS)}, got "
                             f"{condition!r}")
        if as_of is not None and not _MONTH_RE.match(as_of):
            raise ValueError(f"as_of must be a month 'YYYY-MM', got {as_of!r}")
        spec = self._resolve(card)
        known = [p for p in self.price_history(spec, condition)
                 if as_of is None or p.date <= as_of]
        best: PricePoint | None = known[-1] if known else None
        if best is not None and prefer_sold_months is not None and best.kind != "sold":
            sold = [p for p in known if p.kind == "sold"
                    and _months(p.date, best.date) <= prefer_sold_months]
            if sold:
                best = sold[-1]
        launched = spec.release is None or as_of is None or spec.release <= as_of
        if best is None and condition == "new" and launched:
            best = self.launch_price(spec, as_of)
        return best

    def launch_price(self, card: GpuSpec | str, as_of: str | None = None
                     ) -> PricePoint | None:
        """The launch price as a "new" point flagged ``launch``: the catalog's, else a dated
        MSRP observation at or before ``as_of``."""
        spec = self._resolve(card)
        if spec.launch_price_usd is not None:
            return PricePoint(date=spec.release or "", usd=float(spec.launch_price_usd),
                              condition="new", source=LAUNCH_PRICE_SOURCE, kind="list",
                              launch=True)
        msrp = [p for p in self.price_history(spec, "msrp") if as_of is None or p.date <= as_of]
        if msrp:
            return replace(msrp[-1], condition="new", launch=True)
        return None

    def rental(self, card: GpuSpec | str, as_of: str | None = None) -> RentalQuote | None:
        """Cheapest and median rental rate per GPU-hour from the latest month of observations
        at or before ``as_of``, with the providers; None where nobody rents it out."""
        return rental_quote(self.observations(card), as_of)

    def price_coverage(self) -> dict[str, dict[str, str]]:
        """{card: {year: letters}}: which kinds of dated price each card has in each year —
        N new, U used, M mixed condition, L launch (MSRP), R rental; lower case where the year
        has that kind only in another currency (EUR)."""
        letters = {"new": "N", "used": "U", "mixed": "M", "msrp": "L", "": "R"}
        out: dict[str, dict[str, str]] = {}
        for c in self.cards:
            years: dict[str, set[str]] = {}
            for o in self.observations(c):
                letter = letters.get(o.condition, "?")
                # lower case: only in another currency (EUR), never taken as dollars
                years.setdefault(o.date[:4], set()).add(
                    letter if o.currency == "USD" else letter.lower())
            if c.launch_price_usd is not None and c.release:
                years.setdefault(c.release[:4], set()).add("L")
            out[c.name] = {y: "".join(sorted((x for x in v if x.isupper() or x.upper() not in v),
                                             key="NUMLRnumlr".index))
                           for y, v in sorted(years.items())}
        return out

    def is_owned(self, card: GpuSpec | str) -> bool:
        name = card.name if isinstance(card, GpuSpec) else card
        return any(_collapse(o.name) == _collapse(name) for o in self.owned)


# --------------------------------------------------------------------------- overrides


@dataclass(frozen=True)
class Overrides:
    """The user's catalog overrides file, as data."""

    prices: Mapping[str, tuple[PricePoint, ...]] = field(default_factory=dict, hash=False)
    custom_cards: tuple[GpuSpec, ...] = ()
    owned: tuple[OwnedCard, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        custom = []
        for c in self.custom_cards:
            row = c.to_dict()
            row.pop("memory_bytes", None)
            row.pop("custom", None)
            custom.append(row)
        return {
            "schema_version": OVERRIDES_SCHEMA_VERSION,
            "prices": {k: [p.to_dict() for p in v] for k, v in self.prices.items()},
            "custom_cards": custom,
            "owned": [o.to_dict() for o in self.owned],
        }


def default_overrides_path() -> Path:
    from planner import paths

    return paths.data_dir(create=False) / OVERRIDES_FILENAME


def parse_overrides(obj: Any) -> Overrides:
    """Validate the override file's content; raise OverridesError naming what is wrong."""
    err = OverridesError
    if not isinstance(obj, dict):
        raise err(f"overrides: expected a JSON object, got {type(obj).__name__}")
    version = obj.get("schema_version")
    if version != OVERRIDES_SCHEMA_VERSION:
        raise err(f"overrides: field 'schema_version' must be {OVERRIDES_SCHEMA_VERSION}, "
                  f"got {version!r}")
    prices_raw = obj.get("prices", {}) or {}
    if not isinstance(prices_raw, dict):
        raise err("overrides: field 'prices' must be an object {card name: [price points]}")
    prices: dict[str, tuple[PricePoint, ...]] = {}
    for card_name, pts in prices_raw.items():
        if not isinstance(pts, list):
            raise err(f"overrides: prices for {card_name!r} must be a list")
        prices[card_name] = tuple(
            price_point_from_dict(p, f"overrides: prices[{card_name!r}][{i}]", error=err,
                                  default_source=USER_PRICE_SOURCE)
            for i, p in enumerate(pts)
        )
    custom_raw = obj.get("custom_cards", []) or []
    if not isinstance(custom_raw, list):
        raise err("overrides: field 'custom_cards' must be a list")
    custom = tuple(
        spec_from_dict(row, f"overrides: custom_cards[{i}]", custom=True, error=err)
        for i, row in enumerate(custom_raw)
    )
    owned_raw = obj.get("owned", []) or []
    if not isinstance(owned_raw, list):
        raise err("overrides: field 'owned' must be a list")
    owned = []
    for i, o in enumerate(owned_raw):
        r = _Row(o, f"overrides: owned[{i}]", err)
        name = r.str_("name", required=True)
        cond = r.str_("condition", choices=CONDITIONS, default="new")
        count = 1 if o.get("count") is None else r.num("count", integer=True)
        owned.append(OwnedCard(name=name or "", condition=cond or "new", count=count))
    return Overrides(prices=prices, custom_cards=custom, owned=tuple(owned))


def load_overrides(path: Path | str | None = None) -> Overrides:
    """Read the override file; empty Overrides when it does not exist.

    Raises OverridesError when it is not valid JSON or its content is invalid.
    """
    p = Path(path) if path is not None else default_overrides_path()
    if not p.exists():
        return Overrides()
    try:
        text = safeio.read_text(p, limit=safeio.MAX_OVERRIDES_BYTES)
        obj = safeio.loads_json(text)
    except safeio.BadContent as exc:
        raise OverridesError(f"overrides: {exc}") from None  # damaged: set aside
    except safeio.InputRefused as exc:
        raise OverridesRefused(f"overrides: {exc}") from None  # not a file, too large
    except OSError as exc:
        raise OverridesRefused(f"overrides: cannot read {p}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise OverridesError(f"overrides: not valid JSON ({exc.msg} at line {exc.lineno})"
                             ) from exc
    return parse_overrides(obj)


def save_overrides(overrides: Overrides, path: Path | str | None = None) -> Path:
    """Write the override file atomically (temp file in the same folder, then os.replace)."""
    p = Path(path) if path is not None else default_overrides_path()
    write_json_atomic(p, overrides.to_dict(), indent=1)
    return p


def with_price(overrides: Overrides, card_name: str, point: PricePoint) -> Overrides:
    """A copy with one more user price point for ``card_name``."""
    prices = dict(overrides.prices)
    prices[card_name] = tuple(prices.get(card_name, ())) + (point,)
    return replace(overrides, prices=prices)


def with_custom_card(overrides: Overrides, card: GpuSpec) -> Overrides:
    """A copy with ``card`` added (or replacing a custom card of the same name)."""
    card = replace(card, custom=True, source=card.source or CUSTOM_CARD_SOURCE)
    spec_from_dict({**card.to_dict()}, f"custom card {card.name!r}", custom=True)  # validate
    kept = tuple(c for c in overrides.custom_cards if _collapse(c.name) != _collapse(card.name))
    return replace(overrides, custom_cards=kept + (card,))


def with_owned(overrides: Overrides, owned: Iterable[OwnedCard]) -> Overrides:
    owned = tuple(owned)
    for o in owned:
        if o.condition not in CONDITIONS or o.count < 1 or not o.name:
            raise CatalogError(f"owned card {o.name!r}: needs a name, condition new|used "
                               f"and count >= 1")
    return replace(overrides, owned=owned)


def set_user_price(card_name: str, point: PricePoint, path: Path | str | None = None
                   ) -> Overrides:
    """Add a price point of the user's to the override file and save it."""
    ov = with_price(load_overrides(path), card_name, point)
    save_overrides(ov, path)
    return ov


def clear_entered_prices(path: Path | str | None = None) -> int:
    """Remove the prices the user entered (Edit price…) from the override file; how many."""
    ov = load_overrides(path)
    n = sum(len(v) for v in ov.prices.values())
    if n:
        save_overrides(replace(ov, prices={}), path)
    return n


def add_custom_card(card: GpuSpec, path: Path | str | None = None) -> Overrides:
    ov = with_custom_card(load_overrides(path), card)
    save_overrides(ov, path)
    return ov


def set_owned_cards(owned: Iterable[OwnedCard], path: Path | str | None = None) -> Overrides:
    ov = with_owned(load_overrides(path), owned)
    save_overrides(ov, path)
    return ov


def _set_aside(path: Path, now: _dt.datetime | None = None) -> Path:
    return prices_mod.set_aside(path, now)  # one rule for every user file that is set aside


# --------------------------------------------------------------------------- loading


def _read_shipped(path: Path) -> list[GpuSpec]:
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CatalogError(f"built-in catalog {path}: cannot read it: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise CatalogError(f"built-in catalog {path}: not valid JSON ({exc.msg} at line "
                           f"{exc.lineno})") from exc
    if not isinstance(obj, dict) or obj.get("schema_version") != SCHEMA_VERSION:
        raise CatalogError(f"built-in catalog {path}: 'schema_version' must be {SCHEMA_VERSION}")
    rows = obj.get("cards")
    if not isinstance(rows, list) or not rows:
        raise CatalogError(f"built-in catalog {path}: 'cards' must be a non-empty list")
    cards = [spec_from_dict(row, f"catalog card {i}") for i, row in enumerate(rows)]
    _check_unique(cards, CatalogError)
    return cards


def _check_unique(cards: list[GpuSpec], error: type[CatalogError]) -> None:
    seen: dict[str, str] = {}
    nvml: dict[str, str] = {}
    for c in cards:
        for label in (c.name, *c.aliases):
            k = _collapse(label)
            owner = seen.get(k)
            if owner == c.name:
                raise error(f"catalog card {c.name!r}: name or alias {label!r} is listed twice")
            if owner is not None:
                raise error(f"catalog card {c.name!r}: name or alias {label!r} is already "
                            f"used by {owner!r}")
            seen[k] = c.name
        for n in c.nvml_names:
            k = _collapse(n)
            if k in nvml and nvml[k] != c.name:
                raise error(f"catalog card {c.name!r}: field 'nvml_names' entry {n!r} is "
                            f"already claimed by {nvml[k]!r}")
            nvml[k] = c.name
    names = {_collapse(c.name) for c in cards}
    for c in cards:
        if c.variant_of is not None and _collapse(c.variant_of) not in names:
            raise error(f"catalog card {c.name!r}: field 'variant_of' names no card "
                        f"({c.variant_of!r})")


def _merge(cards: list[GpuSpec], ov: Overrides, notices: list[str]
           ) -> tuple[list[GpuSpec], tuple[OwnedCard, ...]]:
    names = {_collapse(c.name) for c in cards}
    names |= {_collapse(a) for c in cards for a in c.aliases}
    for c in ov.custom_cards:
        if _collapse(c.name) in names:
            notices.append(f"Your custom card {c.name!r} has the same name as a built-in card, "
                           "so the built-in one is shown. Rename it to see it.")
            continue
        cards.append(c)
        names.add(_collapse(c.name))
    probe = Catalog(tuple(cards))
    by_name = {c.name: i for i, c in enumerate(cards)}
    for card_name, pts in ov.prices.items():
        spec = probe.by_name(card_name)
        if spec is None:
            notices.append(f"Your saved prices for {card_name!r} are kept but not shown: "
                           "no card of that name is in the catalog.")
            continue
        i = by_name[spec.name]
        mine = tuple(replace(p, origin=prices_mod.YOURS) for p in pts)
        cards[i] = replace(cards[i], prices=cards[i].prices + mine)
    owned = []
    for o in ov.owned:
        spec = probe.by_name(o.name)
        if spec is None:
            notices.append(f"A card you own, {o.name!r}, is not in the catalog; add it as a "
                           "custom card to see it.")
            continue
        owned.append(replace(o, name=spec.name))
    return cards, tuple(owned)


def load_catalog(path: Path | str | None = None,
                 overrides_path: Path | str | None = None, *,
                 prices_path: Path | str | None = None,
                 user_prices_path: Path | str | None = None) -> Catalog:
    """Load the shipped catalog, validate it, and merge the user's overrides over it.

    The price observations (``prices_path``, default data/prices.csv, and the user's
    ``user_prices_path``, default prices-yours.csv in the data folder) are only located here;
    they are read on the first price lookup.
    """
    from planner import paths

    if path is None:
        path = paths.data_path("gpus.json")
    if prices_path is None:
        prices_path = paths.data_path(PRICES_FILENAME)
    if user_prices_path is None:
        user_prices_path = prices_mod.user_prices_path()
    cards = _read_shipped(Path(path))
    notices: list[str] = []
    ov_path = Path(overrides_path) if overrides_path is not None else default_overrides_path()
    try:
        ov = load_overrides(ov_path)
    except OverridesRefused as exc:  # not a regular file, too large, unreadable: left alone
        ov = Overrides()
        notices.append(
            f"Your catalog overrides file could not be read ({exc}); it was left as it is. "
            "Your own prices, custom cards and owned cards are not shown; the built-in catalog "
            "is used.")
    except OverridesError as exc:
        ov = Overrides()
        try:
            aside = _set_aside(ov_path)
        except OSError as move_exc:
            notices.append(
                f"Your catalog overrides file {ov_path} could not be read ({exc}) and could "
                f"not be moved aside either ({move_exc}). Your own prices, custom cards and "
                "owned cards are not shown; the built-in catalog is used.")
        else:
            notices.append(
                f"Your catalog overrides file could not be read ({exc}). It was moved aside to "
                f"{aside} and the built-in catalog is used; your own prices, custom cards and "
                "owned cards from it are not shown until you fix or re-enter them.")
    cards, owned = _merge(cards, ov, notices)
    return Catalog(cards=tuple(cards), notices=tuple(notices), owned=owned,
                   prices_path=Path(prices_path), user_prices_path=Path(user_prices_path))


# --------------------------------------------------------------------------- price book

_KIND_RANK = {"asking": 0, "list": 1, "": 1, "sold": 2}


def _months(a: str, b: str) -> int:
    return prices_mod.months_between(a, b)


@dataclass(frozen=True)
class PriceBook:
    """The catalog's prices: every observation (shipped, the catalog's own points, the user's)
    per card, each figure once, and the rows that could not be used."""

    by_card: Mapping[str, tuple[Observation, ...]]
    points: Mapping[str, tuple[PricePoint, ...]]  # USD sale prices in lookup order
    problems: tuple[RowProblem, ...] = ()
    notices: tuple[str, ...] = ()

    @property
    def unmatched(self) -> tuple[RowProblem, ...]:
        return tuple(p for p in self.problems if p.unmatched)

    def all_observations(self) -> tuple[Observation, ...]:
        return tuple(o for obs in self.by_card.values() for o in obs)


def _point_of(o: Observation) -> PricePoint:
    return PricePoint(date=o.month, usd=o.amount, condition=o.condition, source=o.source,
                      kind=o.kind, market=o.market, day=o.day, note=o.note, origin=o.origin)


def _observation_of(card: str, p: PricePoint) -> Observation:
    origin = p.origin if p.origin == prices_mod.YOURS else prices_mod.CATALOG
    return Observation(card=card, date=p.day or p.date, amount=p.usd, currency="USD",
                       condition=p.condition, kind=p.kind, source=p.source, note=p.note,
                       market=p.market, origin=origin)


def _order(p: PricePoint) -> tuple:
    return (p.date, p.origin == prices_mod.YOURS, p.day or "", _KIND_RANK.get(p.kind, 1))


def _build_price_book(catalog: Catalog) -> PriceBook:
    names: dict[str, str | None] = {}

    def match(name: str) -> str | None:
        if name not in names:
            spec = catalog.by_name(name)
            names[name] = spec.name if spec is not None else None
        return names[name]

    problems: list[RowProblem] = []
    notices: list[str] = []
    shipped: tuple[Observation, ...] = ()
    if catalog.prices_path is not None:
        try:
            parsed = prices_mod.read_csv_file(catalog.prices_path, match,
                                              origin=prices_mod.SHIPPED)
        except prices_mod.PriceFileError as exc:  # a broken install: say so, keep going
            notices.append(f"The shipped price history could not be read: {exc}")
        else:
            shipped = parsed.observations
            problems += parsed.problems
    mine: tuple[Observation, ...] = ()
    if catalog.user_prices_path is not None:
        user = prices_mod.load_user_prices(catalog.user_prices_path, match)
        mine = user.observations
        problems += user.problems
        notices += user.notices
    # The same figure twice (same card, month, condition, amount) is kept once: an observation
    # over the catalog's own month-dated point of it.
    seen = {(o.card, o.month, o.condition, round(o.amount)) for o in shipped + mine
            if o.currency == "USD" and not o.rental}
    own: list[Observation] = []
    for c in catalog.cards:
        for p in c.prices:
            k = (c.name, p.date, p.condition, round(p.usd))
            if k not in seen:
                seen.add(k)
                own.append(_observation_of(c.name, p))
    merged = prices_mod.merge(shipped, own, mine)
    by_card: dict[str, list[Observation]] = {}
    for o in merged:
        by_card.setdefault(o.card, []).append(o)
    obs = {k: tuple(sorted(v, key=lambda o: o.date)) for k, v in by_card.items()}
    points = {k: tuple(sorted((_point_of(o) for o in v if o.currency == "USD" and not o.rental),
                              key=_order)) for k, v in obs.items()}
    return PriceBook(obs, points, tuple(problems), tuple(notices))


def describe_price(point: PricePoint | None, as_of: str | None = None) -> Msg | None:
    """ "used $539, eBay asking, 2026-08, 3 months old"; a launch price says so; None: none."""
    if point is None:
        return None
    from planner.i18n import Money

    cond = Msg(prices_mod.CONDITION_LABELS.get(point.condition, point.condition))
    if point.launch:
        cond = Msg(QT_TRANSLATE_NOOP("core", "launch price"))
    kind = Msg(prices_mod.KIND_LABELS[point.kind]) if point.kind in prices_mod.KIND_LABELS \
        else ""
    where = (Msg(QT_TRANSLATE_NOOP("core", "{market} {kind}"), market=point.market, kind=kind)
             if point.market and kind and not point.launch else point.market or
             (kind if not point.launch else ""))
    parts = [Msg(QT_TRANSLATE_NOOP("core", "{condition} {price}"), condition=cond,
                 price=Money(point.usd))]
    if where:
        parts.append(where)
    if point.date:
        parts.append(point.day or point.date)
        if as_of is not None:
            parts.append(prices_mod.age_text(point.date, as_of))
    return Msg(_PRICE_PHRASES[len(parts) - 1], **{f"p{i}": p for i, p in enumerate(parts)})


# "used $539, eBay asking, 2026-08, 3 months old": literal templates, so lupdate finds them.
_PRICE_PHRASES = (
    QT_TRANSLATE_NOOP("core", "{p0}"),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}"),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}, {p2}"),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}, {p2}, {p3}"),
)


# --------------------------------------------------------------------------- software support

SUPPORT_LABELS = {
    "supported": QT_TRANSLATE_NOOP("core", "supported"),
    "legacy": QT_TRANSLATE_NOOP("core", "legacy builds only"),
    "unsupported": QT_TRANSLATE_NOOP("core", "unsupported"),
}

# Lowest compute capability first matched from the top. One table, one place.
SOFTWARE_SUPPORT: tuple[tuple[tuple[int, int], str, str], ...] = (
    ((10, 0), "supported",
     (QT_TRANSLATE_NOOP("core",
         "Blackwell (compute capability {cc}): supported by current builds; needs CUDA 12.8 or "
         "newer and PyTorch 2.7 or newer."))),
    ((7, 5), "supported",
     (QT_TRANSLATE_NOOP("core",
         "Compute capability {cc}: current CUDA 13 toolkits (which need 7.5, Turing, or newer), "
         "cuDNN and PyTorch builds support it."))),
    ((5, 0), "legacy",
     (QT_TRANSLATE_NOOP("core",
         "Compute capability {cc} (Maxwell, Pascal or Volta): CUDA 13 dropped 5.0-7.2. Use the "
         "CUDA 12.x toolkit and PyTorch wheels built for CUDA 12.6 or older (e.g. cu126); wheels "
         "built for CUDA 12.8 and later drop some or all of these architectures."))),
    ((3, 0), "unsupported",
     (QT_TRANSLATE_NOOP("core",
         "Compute capability {cc} (Kepler): CUDA 12 dropped it (the last toolkit is CUDA 11.x) and "
         "current cuDNN and PyTorch builds do not include it; only old releases built against "
         "CUDA 11 or earlier run. The 2016-17 article's era still supported it."))),
    ((0, 0), "unsupported",
     QT_TRANSLATE_NOOP("core",
         "Compute capability {cc}: older than Kepler; cuDNN never supported it.")),
)


def software_support(compute_capability: str | tuple[int, int]) -> tuple[str, str]:
    """("supported" | "legacy" | "unsupported", reason) for a compute capability."""
    if isinstance(compute_capability, tuple):
        cc = compute_capability
    else:
        cc = parse_compute_capability(compute_capability)
    text = f"{cc[0]}.{cc[1]}"
    for threshold, status, reason in SOFTWARE_SUPPORT:
        if cc >= threshold:
            return status, Msg(reason, cc=text)
    raise AssertionError("unreachable: the last threshold is 0.0")
