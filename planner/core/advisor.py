"""What to buy, what to sell, and why: the article's method as a ranking with its numbers.

The article balances three things: the memory the work needs (a hard limit), the speed
(bandwidth first) and the price (new, or used for older cards). Here:

1. **Memory first.** A card is a candidate only if it has the memory the profile needs, or, with
   a drafted plan, if the plan's estimated peak fits its usable memory (the GTX 970 judged on its
   fast 3.5 GB).
2. **Then speed per dollar.** Each candidate's speed is the time per iteration of the plan (or of
   the profile's reference workload) from the roofline model; the score is
   ``speed / price ** price_weight``: a price weight of 1 is pure speed per dollar, 0 is speed
   regardless of cost. The budget is a hard limit on the net cost.
3. **Software support** as of the chosen date: cards current software no longer supports are
   flagged and their score multiplied down.
4. **Keep what you have** when nothing within the budget is at least ``min_speedup`` times
   faster than the best card owned, and say so with the numbers.
5. **Sell** the owned card a purchase replaces, at its dated used price (net cost); the
   start-cheap, sell-and-upgrade path says what the cheap card fetches later.

Every profile states its assumptions (memory, budget, price weight, workload); they are plain
fields the user can see and change. Qt-free, no I/O.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import re
from dataclasses import dataclass, field, replace

from planner.core.catalog import (
    Catalog,
    GpuSpec,
    OwnedCard,
    PricePoint,
    describe_price,
    parse_compute_capability,
)
from planner.core.fit import FitRow, fit_table
from planner.core.memory import Assumptions
from planner.core.network import Setup
from planner.core.parallel import Parallel, ParallelAssumptions, scaling
from planner.core.plan import PlanResult, compute_plan
from planner.core.presets import load_preset
from planner.core.rates import speed_msg
from planner.core.eras import era_workload
from planner.core.speed import best_precision
from planner.core.speed_bands import Band
from planner.core.transformer import tokens_per_step
from planner.i18n import QT_TRANSLATE_NOOP, Money, Msg

GIB = 1024**3
_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


class AdvisorError(ValueError):
    """Bad advisor input (unknown profile or card, bad date): one clear message."""


@dataclass(frozen=True)
class Profile:
    key: str
    title: str
    description: str
    memory_gib: float  # what the work needs; with a plan, the plan's own peak is used
    budget_usd: float | None  # net cost limit; None = no limit
    price_weight: float  # 1 = speed per dollar, 0 = speed regardless of price
    workload: str = "vgg16"  # preset whose speed stands for the profile's work
    workload_batch: int = 64
    several_gpus: bool = False
    start_cheap: bool = False  # the article's start-cheap, sell-and-upgrade path
    article: str = ""  # what the article recommended (2017 revision)

    def assumptions_text(self, as_of: str | None = None, plan: str | None = None) -> str:
        """What the profile assumes; as of a date from which it has an era's workload
        (planner.core.eras), that workload, whose planned peak is the memory need; with the
        user's plan (its name), the plan, which replaces both the memory and the workload."""
        budget = (f"${self.budget_usd:,.0f}" if self.budget_usd
                  else Msg(QT_TRANSLATE_NOOP("core", "no limit")))
        if plan:
            return Msg(QT_TRANSLATE_NOOP(
                "core", "judged on your plan ({plan}): its peak planned on each card and its "
                        "speed; budget {budget}; price weight {weight:g}"),
                plan=plan, budget=budget, weight=self.price_weight)
        era = era_workload(self.key, as_of) if as_of else None
        if era is not None:
            return Msg(QT_TRANSLATE_NOOP(
                "core", "judged on {workload} (since {since}), memory planned on each card; "
                        "budget {budget}; price weight {weight:g}"),
                workload=Msg(era.title), since=era.since[:4], budget=budget,
                weight=self.price_weight)
        return Msg(QT_TRANSLATE_NOOP(
            "core", "needs {memory:g} GB; budget {budget}; price weight {weight:g} (1 = speed "
                    "per dollar, 0 = speed only); speed measured on {workload} at batch "
                    "{batch}"), memory=self.memory_gib, budget=budget, weight=self.price_weight,
            workload=self.workload, batch=self.workload_batch)


PROFILES: tuple[Profile, ...] = (
    Profile("starting", QT_TRANSLATE_NOOP("core", "Starting out seriously"),
            QT_TRANSLATE_NOOP("core",
                "A first card to learn on; sell it later and buy what fits your direction."),
            6, 300, 1.0, start_cheap=True,
            article="GTX 1060 (6 GB), then sell it and buy what fits your direction"),
    Profile("tight-budget", QT_TRANSLATE_NOOP("core", "Tight budget (little money)"),
            QT_TRANSLATE_NOOP("core",
                "The most speed per dollar with enough memory for most work."), 6, 250, 1.0,
            article="GTX 1060 (6 GB)"),
    Profile("almost-no-money", QT_TRANSLATE_NOOP("core", "Almost no money"),
            QT_TRANSLATE_NOOP("core", "The cheapest card that still trains CNNs."), 4, 150, 1.0,
            article="GTX 1050 Ti (4 GB)"),
    Profile("kaggle", QT_TRANSLATE_NOOP("core", "Kaggle (ordinary competitions)"),
            QT_TRANSLATE_NOOP("core",
                "Ordinary competitions: small data sets, many quick experiments."), 6, 300, 1.0,
            article="GTX 1060 (6 GB)"),
    Profile("dl-competitions", QT_TRANSLATE_NOOP("core", "Deep-learning competitions"),
            QT_TRANSLATE_NOOP("core",
                "Competitions where large networks win: speed matters, within reason."), 8, 800,
            0.5, article="GTX 1080 Ti"),
    Profile("cv-research", QT_TRANSLATE_NOOP("core", "Computer-vision research"),
            QT_TRANSLATE_NOOP("core",
                "ImageNet-scale state of the art needs at least 12 GB."), 12, None, 0.5,
            article="Titan X Pascal or a GTX Titan X you have"),
    Profile("nlp-research", QT_TRANSLATE_NOOP("core", "NLP research"),
            QT_TRANSLATE_NOOP("core",
                "Recurrent networks; 8 GB does for most (check your model's memory)."), 8, 800, 0.5,
            workload="lstm-1024", workload_batch=128, article="GTX 1070 or GTX 1080 Ti"),
    Profile("large-datasets", QT_TRANSLATE_NOOP("core", "Data sets over 250 GB"),
            QT_TRANSLATE_NOOP("core",
                "Large data sets want large networks: a 12 GB card."), 12, None, 0.5,
            article="GTX Titan X or Titan X Pascal (12 GB)"),
    Profile("best", QT_TRANSLATE_NOOP("core", "The best regardless of cost"),
            QT_TRANSLATE_NOOP("core", "Speed first; price only breaks near-ties."), 8, None, 0.25,
            article="Titan X Pascal or GTX 1080 Ti"),
    Profile("cost-efficient", QT_TRANSLATE_NOOP("core", "Cost-efficient (but expensive)"),
            QT_TRANSLATE_NOOP("core", "Fast cards that are still good value."), 8, 800, 0.5,
            article="GTX 1080 Ti or GTX 1070"),
    Profile("cost-efficient-cheap", QT_TRANSLATE_NOOP("core", "Cost-efficient and cheap"),
            QT_TRANSLATE_NOOP("core", "The best value among cheap cards."), 6, 300, 1.0,
            article="GTX 1060 (6 GB); avoid the 3 GB variant"),
    Profile("several-gpus", QT_TRANSLATE_NOOP("core", "Several GPUs"),
            QT_TRANSLATE_NOOP("core",
                "Two cards for parallel training or two experiments at once."), 8, 1500, 0.5,
            several_gpus=True,
            article="several cheaper cards can beat one big one for research throughput"),
)


def profile_names() -> list[str]:
    return [p.key for p in PROFILES]


def get_profile(key: str) -> Profile:
    for p in PROFILES:
        if p.key == key:
            return p
    close = difflib.get_close_matches(key, profile_names(), n=3, cutoff=0.4)
    if close:
        raise AdvisorError(Msg(QT_TRANSLATE_NOOP(
            "core", "no profile named '{key}'; did you mean {names}?"), key=key,
            names=", ".join(close)))
    raise AdvisorError(Msg(QT_TRANSLATE_NOOP("core", "no profile named '{key}'"), key=key))


@dataclass(frozen=True)
class AdvisorInputs:
    profile: Profile
    owned: tuple[OwnedCard, ...] = ()
    budget_usd: float | None = None  # None: the profile's
    price_basis: str = "both"  # new | used | both
    as_of: str | None = None  # YYYY-MM; None: this month
    plan: PlanResult | None = None  # the user's plan, computed; None: the profile's workload
    electricity_usd_per_kwh: float | None = None
    hours_per_day: float = 8.0
    cloud_usd_per_hour: float | None = None
    several_gpus: bool | None = None  # None: the profile's
    sell_replaced: bool = True  # sell the owned card a purchase replaces


@dataclass(frozen=True)
class AdvisorAssumptions:
    """The advisor's own guesses, editable like the estimate's."""

    stale_price_months: int = 24  # a price older than this is not taken as today's
    prefer_sold_months: int = 3  # a sold price this much older still beats an asking price
    min_speedup: float = 1.25  # below this, keeping what you have is the advice
    legacy_factor: float = 0.85  # score multiplier for legacy-only software support
    unsupported_factor: float = 0.4  # and for no current support
    average_load: float = 0.8  # share of TDP drawn while training
    framework: str = "typical"  # several GPUs: typical framework or optimised code
    top: int = 5


@dataclass(frozen=True)
class RentComparison:
    """Renting the same work instead of buying, from dated rental observations.

    ``card`` is the rented card (the bought one where it is rented out, else the rented card
    that does the work cheapest); ``work_ratio`` is how many of its hours one hour on the bought
    card's work takes (bought speed / rented speed, from the roofline model), so the rates here
    are per hour of the bought card's work.
    """

    card: str
    month: str
    cheapest_usd_per_hour: float
    median_usd_per_hour: float
    provider: str
    offers: int
    work_ratio: float
    break_even_hours_cheapest: float | None  # None: renting never costs more than running it
    break_even_hours_median: float | None

    def to_json(self) -> dict:
        return {"card": self.card, "date": self.month,
                "cheapest_usd_per_hour": round(self.cheapest_usd_per_hour, 4),
                "median_usd_per_hour": round(self.median_usd_per_hour, 4),
                "cheapest_provider": self.provider, "offers": self.offers,
                "work_ratio": round(self.work_ratio, 3),
                "break_even_hours_cheapest": self.break_even_hours_cheapest,
                "break_even_hours_median": self.break_even_hours_median}


@dataclass(frozen=True)
class Recommendation:
    action: str  # buy | keep | sell
    card: str
    price_usd: float | None
    price: PricePoint | None
    net_cost_usd: float | None
    speedup: float | None  # over the best card owned (None when nothing is owned)
    fits: bool
    max_batch: int | None
    power_cost_per_year_usd: float | None
    support: str
    reason: str
    score: float = 0.0
    count: int = 1
    sells: tuple[str, ...] = ()
    break_even_months: float | None = None
    rent: RentComparison | None = None  # renting the same work, from rental observations
    price_text: str = ""  # "used $539, eBay asking, 2026-08, 3 months old"
    # The speed's error band (of the speed-up where there is one: both cards' bands): its
    # wider side as a fraction, and the band; None where a card's kind or the network was not
    # measured.
    speed_error: float | None = None
    speed_band: Band | None = None

    def to_json(self) -> dict:
        p = self.price
        return {"action": self.action, "card": self.card, "price_usd": self.price_usd,
                "price_date": p.date if p else None,
                "price_condition": p.condition if p else None,
                "price_kind": (p.kind or None) if p else None,
                "price_market": (p.market or None) if p else None,
                "price_day": p.day if p else None,
                "price_source": p.source if p else None,
                "price_is_launch_price": p.launch if p else None,
                "price_text": self.price_text or None,
                "rent": self.rent.to_json() if self.rent else None,
                "net_cost_usd": self.net_cost_usd, "speedup": self.speedup,
                "speed_error": self.speed_error,
                "speed_band": ({"low": self.speed_band.low_pct / 100,
                                "high": self.speed_band.high_pct / 100}
                               if self.speed_band else None),
                "fits": self.fits,
                "max_batch": self.max_batch, "count": self.count, "sells": list(self.sells),
                "power_cost_per_year_usd": self.power_cost_per_year_usd,
                "break_even_months": self.break_even_months, "support": self.support,
                "reason": self.reason}


@dataclass(frozen=True)
class Advice:
    as_of: str
    profile: Profile
    recommendations: tuple[Recommendation, ...]
    notes: tuple[str, ...] = ()
    considered: int = 0
    options: tuple[tuple[str, float, float, bool], ...] = field(default=())  # name, cost, speed
    owned: tuple[tuple[str, float], ...] = ()  # (owned card, samples/s on the workload)
    workload: str = ""  # the network the speeds are measured on
    # With the user's plan: what it needs on a card (its estimated peak, CUDA context
    # included); a card qualifies when this fits its usable memory. None: the profile's GB.
    needed_bytes: int | None = None
    # A text workload's tokens per sample (sequence length): its speeds read as tokens/s.
    tokens_per_sample: int | None = None

    def to_json(self) -> dict:
        return {"as_of": self.as_of, "profile": self.profile.key,
                "profile_assumptions": self.profile.assumptions_text(self.as_of),
                "workload": self.workload, "tokens_per_sample": self.tokens_per_sample,
                "recommendations": [r.to_json() for r in self.recommendations],
                "notes": list(self.notes)}


# ------------------------------------------------------------------------- software over time

# (from month, minimum compute capability for "supported", for "legacy") — what CUDA, cuDNN and
# the frameworks supported at a date. Before 2022-12 every cuDNN-capable card (Kepler, 3.0+)
# was current, as in the article; CUDA 12 (2022-12) dropped Kepler; CUDA 13 (2025-08) dropped
# Maxwell, Pascal and Volta.
_SUPPORT_ERAS = (
    ("2025-08", (7, 5), (5, 0)),
    ("2022-12", (5, 0), (3, 5)),
    ("0000-00", (3, 0), (3, 0)),
)


def support_as_of(compute_capability: str, as_of: str) -> str:
    cc = parse_compute_capability(compute_capability)
    for since, current, legacy in _SUPPORT_ERAS:
        if as_of >= since:
            if cc >= current:
                return "supported"
            if cc >= legacy:
                return "legacy"
            return "unsupported"
    return "unsupported"  # pragma: no cover


# --------------------------------------------------------------------------------- the advice


def _months_between(a: str, b: str) -> int:
    ya, ma = int(a[:4]), int(a[5:7])
    yb, mb = int(b[:4]), int(b[5:7])
    return (yb - ya) * 12 + (mb - ma)


def this_month() -> str:
    return _dt.date.today().strftime("%Y-%m")


def _money(v: float) -> Money:
    return Money(v)


def _gb(nbytes: int) -> str:
    return f"{nbytes / GIB:.1f} GiB"


@dataclass(frozen=True)
class _Option:
    card: GpuSpec
    price: PricePoint
    count: int
    speed: float  # samples per second (of the whole option)
    fits: bool
    max_batch: int | None
    support: str
    precision: str = ""  # what the speed was estimated in
    note: str = ""  # why the card runs that precision slowly (a core text), or ""
    # The band measured for this card's kind and precision (None: the network or the kind of
    # card was not measured).
    band: Band | None = None


def _checked_month(inputs: AdvisorInputs) -> str:
    """The as-of month (this month when none), after checking the inputs' simple fields."""
    as_of = inputs.as_of or this_month()
    if not _MONTH.match(as_of):
        raise AdvisorError(Msg(QT_TRANSLATE_NOOP(
            "core", "as-of must be a month YYYY-MM, not '{as_of}'"), as_of=as_of))
    if inputs.price_basis not in ("new", "used", "both"):
        raise AdvisorError(Msg(QT_TRANSLATE_NOOP("core", "price basis must be new, used or both")))
    return as_of


def _workload(inputs: AdvisorInputs, as_of: str, a: Assumptions) -> tuple[PlanResult, Msg, bool]:
    """What the advice is judged on, computed: the user's plan, the profile's workload of the
    era (planned on every card: planner.core.eras), or the profile's reference network (the
    article's); its label; and whether it is planned (its own peak decides the fit)."""
    prof = inputs.profile
    era = era_workload(prof.key, as_of) if inputs.plan is None else None
    plan = inputs.plan
    if plan is not None:
        label = Msg(QT_TRANSLATE_NOOP("core", "your {name}"), name=plan.draft.name)
    elif era is not None:
        plan = compute_plan(*era.build(), a)
        label = Msg(QT_TRANSLATE_NOOP("core", "{workload} (the profile's workload since "
                                              "{since})"), workload=Msg(era.title),
                    since=era.since[:4])
    else:
        draft, setup = load_preset(prof.workload)
        setup = replace(setup, batch_size=prof.workload_batch, precision="mixed")
        plan = compute_plan(draft, setup, a)
        label = Msg(QT_TRANSLATE_NOOP("core", "{name} (the profile's reference workload)"),
                    name=draft.name)
    if plan.estimate is None:
        if plan.problems:
            raise AdvisorError(Msg(QT_TRANSLATE_NOOP("core", "the plan has errors: {why}"),
                                   why="; ".join(map(str, plan.problems))))
        if plan.failure is not None:
            raise AdvisorError(Msg(QT_TRANSLATE_NOOP("core", "the plan has errors: {why}"),
                                   why=plan.failure))
        raise AdvisorError(Msg(QT_TRANSLATE_NOOP("core", "the plan has no layers")))
    return plan, label, inputs.plan is not None or era is not None


def _precision_of(card: GpuSpec, plan: PlanResult, planned: bool) -> str:
    """The precision a card runs the workload in: a planned workload its own; the profile's
    reference workload the one each card runs well (fp16 mixed precision on tensor cores,
    fp32 where FP16 is slow)."""
    return plan.setup.precision if planned else best_precision(card)


def _fit_rows(plan: PlanResult, catalog: Catalog, planned: bool, cards: list[GpuSpec]
              ) -> tuple[dict[str, FitRow], dict[str, PlanResult]]:
    """The cards' fit rows (``planner.core.fit.fit_table``) for the workload, each in the
    precision it runs it in: the advice reads its per-card figures (fits, largest batch,
    speed, its notes) from the very rows the fit table shows, so the two never disagree. Also
    the plan in each precision used (its workload times two cards)."""
    groups: dict[str, list[GpuSpec]] = {}
    for c in cards:
        groups.setdefault(_precision_of(c, plan, planned), []).append(c)
    rows: dict[str, FitRow] = {}
    plans: dict[str, PlanResult] = {}
    for precision, cards in groups.items():
        plans[precision] = plan if precision == plan.setup.precision else compute_plan(
            plan.draft, replace(plan.setup, precision=precision), plan.assumptions,
            plan.parallel, analysis=plan.analysis)
        rows.update((r.card.name, r) for r in fit_table(plans[precision], catalog, cards=cards))
    return rows, plans


def _fits_need(row: FitRow, planned: bool, prof: Profile) -> bool:
    """Whether the card has the memory the work needs: with a planned workload its row's
    verdict (the peak on its usable memory), else the profile's GB on its fast memory."""
    if planned:
        return row.fits
    return row.card.fast_memory_bytes >= prof.memory_gib * GIB * 0.97  # marketed GB vs GiB


def _owned_specs(catalog: Catalog, inputs: AdvisorInputs) -> list[tuple[GpuSpec, OwnedCard]]:
    """The user's cards, each found in the catalog (an unknown name is an error that offers
    the closest names)."""
    out: list[tuple[GpuSpec, OwnedCard]] = []
    for o in inputs.owned:
        spec = catalog.by_name(o.name)
        if spec is None:
            close = catalog.closest_names(o.name)
            if close:
                raise AdvisorError(Msg(QT_TRANSLATE_NOOP(
                    "core", "unknown card '{name}'; did you mean {names}?"), name=o.name,
                    names=", ".join(close)))
            raise AdvisorError(Msg(QT_TRANSLATE_NOOP("core", "unknown card '{name}'"),
                                   name=o.name))
        out.append((spec, o))
    return out


_STRATEGY_NAMES = {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3",
                   "fsdp": "FSDP"}


@dataclass(frozen=True)
class _Quotes:
    """Dated prices as of the advice's month, by the advisor's rules: none older than
    ``stale_price_months``; a sold price preferred to a slightly newer asking price; a used
    card with no used price may have a mixed-condition one (labelled so)."""

    catalog: Catalog
    as_of: str
    adv: AdvisorAssumptions

    def _fresh(self, p: PricePoint | None) -> PricePoint | None:
        if p is None or not p.date:
            return p
        return p if _months_between(p.date, self.as_of) <= self.adv.stale_price_months else None

    def quote(self, spec: GpuSpec, condition: str) -> PricePoint | None:
        sold = self.adv.prefer_sold_months
        p = self._fresh(self.catalog.price(spec, self.as_of, condition, prefer_sold_months=sold))
        if p is None and condition == "used":
            p = self._fresh(self.catalog.price(spec, self.as_of, "mixed", prefer_sold_months=sold))
        return p

    def resale(self, spec: GpuSpec) -> PricePoint | None:
        return self.quote(spec, "used")


@dataclass(frozen=True)
class _Run:
    """One advice being worked out: its inputs checked, the workload planned, every card's fit
    row and the user's cards (``_prepare``); the steps of ``advise`` read it."""

    catalog: Catalog
    inputs: AdvisorInputs
    a: Assumptions
    adv: AdvisorAssumptions
    as_of: str
    budget: float | None
    several: bool
    plan: PlanResult
    label: Msg
    planned: bool
    rows: dict[str, FitRow]  # the cards', in the precision each runs the workload in
    plans: dict[str, PlanResult]  # the workload planned in each of those precisions
    owned: list[tuple[GpuSpec, OwnedCard]]
    best_owned: tuple[GpuSpec, OwnedCard] | None  # the fastest card owned on the workload
    quotes: _Quotes
    rentals: dict  # card name → its rental rates known as of the date

    @property
    def prof(self) -> Profile:
        return self.inputs.profile

    @property
    def peak(self) -> int:
        """What one card must hold: the plan's peak, per GPU when the plan spans several."""
        return self.plan.peak_per_gpu

    @property
    def tokens_per_sample(self) -> int | None:
        """A text workload's tokens per sample (its speeds then read as tokens/s), or None."""
        return tokens_per_step(self.plan.draft, 1)

    @property
    def world(self) -> int:
        """How many cards the plan trains on: each option is that many of a card."""
        return self.plan.parallel.world

    @property
    def owned_speed(self) -> float | None:
        return self.rows[self.best_owned[0].name].samples_per_s if self.best_owned else None

    @property
    def owned_name(self) -> str:
        return self.best_owned[0].name

    def fits(self, name: str) -> bool:
        return _fits_need(self.rows[name], self.planned, self.prof)

    def precision(self, name: str) -> str:
        return _precision_of(self.rows[name].card, self.plan, self.planned)


@dataclass(frozen=True)
class _Sale:
    """Selling the best card owned when a purchase replaces it: what it fetches (all of them),
    which cards that is, and a note when no used price is known."""

    value: float = 0.0
    cards: tuple[str, ...] = ()
    note: Msg | None = None


def _prepare(catalog: Catalog, inputs: AdvisorInputs, a: Assumptions,
             adv: AdvisorAssumptions) -> _Run:
    prof = inputs.profile
    as_of = _checked_month(inputs)
    budget = inputs.budget_usd if inputs.budget_usd is not None else prof.budget_usd
    if budget is not None and budget < 0:
        raise AdvisorError(Msg(QT_TRANSLATE_NOOP("core", "budget must be a positive amount")))
    several = prof.several_gpus if inputs.several_gpus is None else inputs.several_gpus
    plan, label, planned = _workload(inputs, as_of, a)
    several = several and plan.parallel.world == 1  # a plan on several GPUs says how many
    owned = _owned_specs(catalog, inputs)
    rentals = _rentals(catalog, as_of, adv)
    mine = {s.name for s, _ in owned}
    cards = [c for c in catalog if c.release is None or c.release <= as_of or c.name in mine
             or c.name in rentals]  # the cards the advice speaks of
    rows, plans = _fit_rows(plan, catalog, planned, cards)
    best_owned = max(owned, key=lambda so: rows[so[0].name].samples_per_s, default=None)
    return _Run(catalog, inputs, a, adv, as_of, budget, several, plan, label, planned, rows,
                plans, owned, best_owned, _Quotes(catalog, as_of, adv), rentals)


def _rentals(catalog: Catalog, as_of: str, adv: AdvisorAssumptions) -> dict:
    """Rental rates known as of the date (not older than a stale price), by card name."""
    out = {}
    for c in catalog:
        rq = catalog.rental(c, as_of)
        if rq is not None and _months_between(rq.month, as_of) <= adv.stale_price_months:
            out[c.name] = rq
    return out


def _rented(run: _Run) -> list:
    """The rented cards: (card, rates, the speed one rented card adds to the workload: on a
    plan over N GPUs, a set of N's / N)."""
    return [(run.rows[name].card, rq, run.rows[name].samples_per_s / run.world)
            for name, rq in run.rentals.items()]


def _pair_speed(run: _Run, card: GpuSpec) -> float:
    """Two of this card training the workload data-parallel (the several-GPUs model:
    all-reduce over the card's link, calibrated to the article's figures)."""
    p = run.precision(card.name)
    pa = ParallelAssumptions(framework=run.adv.framework)
    return scaling(run.plans[p].workload, card, p, run.plan.gradients, Parallel(2, 1, "ddp"),
                   pa, run.a)[-1].samples_per_s


def _cheapest(run: _Run, card: GpuSpec) -> PricePoint | None:
    """The card's cheapest dated price on the chosen basis (new, used or both)."""
    basis = run.inputs.price_basis
    conditions = [c for c in ("new", "used") if basis in (c, "both")]
    prices = [p for p in (run.quotes.quote(card, c) for c in conditions)
              if p is not None and p.usd > 0]
    return min(prices, key=lambda p: p.usd) if prices else None


def _module_in_reach(run: _Run, card: GpuSpec) -> bool:
    """An SXM module that would fit the work and is priced within the budget (left out, and
    the advice says so)."""
    priced = [p for p in (run.quotes.quote(card, "new"), run.quotes.quote(card, "used"))
              if p is not None]
    return run.fits(card.name) and any(run.budget is None or p.usd <= run.budget
                                       for p in priced)


def _options(run: _Run) -> tuple[list[_Option], list[str]]:
    """What can be bought as of the date: each priced card released by then (as many as the
    plan trains on; and, with several GPUs, two of it); and the priced SXM modules left out."""
    options: list[_Option] = []
    modules: list[str] = []
    for c in run.catalog:
        if c.release is not None and c.release > run.as_of:
            continue
        if c.server_module:
            if _module_in_reach(run, c):
                modules.append(c.name)
            continue
        price = _cheapest(run, c)
        if price is None:
            continue
        row = run.rows[c.name]
        one = _Option(c, price, run.world, row.samples_per_s, run.fits(c.name), row.max_batch,
                      support_as_of(c.compute_capability, run.as_of), run.precision(c.name),
                      row.speed.note, row.speed.band)
        options.append(one)
        if run.several:
            options.append(replace(one, count=2, speed=_pair_speed(run, c)))
    return options, modules


def _sale(run: _Run) -> _Sale:
    """Selling the best card owned to pay for the new one (not with several GPUs: then the
    new card joins it)."""
    if not (run.best_owned and run.inputs.sell_replaced and not run.several):
        return _Sale()
    spec, own = run.best_owned
    rp = run.quotes.resale(spec)
    if rp is not None:
        return _Sale(rp.usd * own.count, (spec.name,))
    return _Sale(note=Msg(QT_TRANSLATE_NOOP(
        "core", "No used price is known for your {card} as of {date}, so the net costs do "
                "not subtract its sale: add what it fetches in the Catalog pane (Edit "
                "price…)."), card=spec.name, date=run.as_of))


def _score(run: _Run, o: _Option) -> float:
    """Speed per price ** price weight, less for cards current software supports only through
    legacy builds, or not at all."""
    cost = max(o.price.usd * o.count, 1.0)
    s = o.speed / cost ** run.prof.price_weight
    if o.support == "legacy":
        s *= run.adv.legacy_factor
    elif o.support == "unsupported":
        s *= run.adv.unsupported_factor
    return s


def _eligible(run: _Run, options: list[_Option], sale: _Sale
              ) -> tuple[list[tuple[float, _Option, float]], int]:
    """The options worth buying, best score first: (score, option, net cost); and how many fit
    within the budget but are no faster than the card owned (never advised)."""
    owned_names = {s.name for s, _ in run.owned}
    owned_speed = run.owned_speed
    eligible = []
    slower = 0
    for o in options:
        if not o.fits or o.card.name in owned_names:
            continue
        net = o.price.usd * o.count - sale.value
        if run.budget is not None and net > run.budget:
            continue
        if owned_speed and o.speed <= owned_speed:
            slower += 1
            continue
        eligible.append((_score(run, o), o, net))
    eligible.sort(key=lambda t: -t[0])
    return eligible, slower


def _chart(eligible, sale: _Sale) -> tuple[tuple[str, float, float, bool], ...]:
    """The options chart's points: name, net cost, speed, fits (the 40 best)."""
    return tuple((f"{o.count}× {o.card.name}" if o.count > 1 else o.card.name,
                  o.price.usd * o.count - sale.value, o.speed, o.fits)
                 for _, o, _ in eligible[:40])


def _keep(run: _Run, recs: list[Recommendation]) -> list[Recommendation]:
    """Keep what you have, when it fits and nothing is meaningfully faster for the money: the
    keep first, and no buy below the minimum speed-up."""
    spec, own = run.best_owned
    top_speedup = recs[0].speedup if recs else None
    min_speedup = run.adv.min_speedup
    if not run.fits(spec.name) or (top_speedup is not None and top_speedup >= min_speedup):
        return recs
    if recs and top_speedup is not None:
        why = Msg(QT_TRANSLATE_NOOP(
            "core", "Keep your {card}: the best buy within your budget, {best}, is only "
                    "{speedup:.2f}× as fast on {label} (less than the {min:g}× worth the "
                    "money and the trouble)."), card=spec.name, best=recs[0].card,
            speedup=top_speedup, label=run.label, min=min_speedup)
    else:
        why = Msg(QT_TRANSLATE_NOOP(
            "core", "Keep your {card}: nothing within your budget fits {label} and is "
                    "faster."), card=spec.name, label=run.label)
    keep = Recommendation("keep", spec.name, None, None, 0.0, 1.0, True,
                          run.rows[spec.name].max_batch, _power(spec, run.inputs, run.adv),
                          support_as_of(spec.compute_capability, run.as_of), why,
                          count=own.count)
    return [keep] + [r for r in recs if r.speedup is None or r.speedup >= min_speedup]


def _sell(run: _Run, new: str) -> Recommendation:
    """Sell the card owned when the ``new`` one arrives, at its dated used price."""
    spec, own = run.best_owned
    rp = run.quotes.resale(spec)
    if rp:
        why = Msg(QT_TRANSLATE_NOOP(
            "core", "Sell your {card} for about {price} (used price, {date}) when the {new} "
                    "arrives."), card=spec.name, price=_money(rp.usd), date=rp.date, new=new)
    else:
        why = Msg(QT_TRANSLATE_NOOP("core", "Sell your {card} when the {new} arrives."),
                  card=spec.name, new=new)
    return Recommendation("sell", spec.name, rp.usd if rp else None, rp,
                          -(rp.usd if rp else 0.0), None, run.fits(spec.name),
                          run.rows[spec.name].max_batch, None,
                          support_as_of(spec.compute_capability, run.as_of), why,
                          count=own.count)


def _recommendations(run: _Run, eligible, sale: _Sale) -> list[Recommendation]:
    """The best buys; with a card owned, keep it (when nothing is worth the money) or sell it
    (when a buy replaces it and the sale was counted)."""
    rented = _rented(run)
    recs = [_buy(run, o, net, sc, sale, rented) for sc, o, net in eligible[:run.adv.top]]
    if run.best_owned is None:
        return recs
    recs = _keep(run, recs)
    if sale.cards and recs and recs[0].action == "buy":
        recs.append(_sell(run, recs[0].card))
    return recs


def _owned_does_not_fit(run: _Run) -> Msg | None:
    spec = run.best_owned[0] if run.best_owned else None
    if spec is None or not run.planned or run.fits(spec.name):
        return None
    return Msg(QT_TRANSLATE_NOOP(
        "core", "Your {card} does not fit {label} at batch {batch} (peak {peak})."),
        card=spec.name, label=run.label, batch=run.plan.setup.batch_size, peak=_gb(run.peak))


def _nothing_eligible(run: _Run, slower: int) -> Msg:
    """Why no buy is advised: every card in reach is slower than the one owned, or none has
    the memory within the budget."""
    budget, as_of = run.budget, run.as_of
    if slower:
        if budget is not None:
            return Msg(QT_TRANSLATE_NOOP(
                "core", "Every card that fits and is priced as of {date} within {budget} is "
                        "slower than your {card}."), date=as_of, budget=_money(budget),
                card=run.owned_name)
        return Msg(QT_TRANSLATE_NOOP(
            "core", "Every card that fits and is priced as of {date} is slower than your "
                    "{card}."), date=as_of, card=run.owned_name)
    need = (Msg(QT_TRANSLATE_NOOP("core", "{peak} for {label}"), peak=_gb(run.peak),
                label=run.label) if run.planned else f"{run.prof.memory_gib:g} GB")
    if budget is not None:
        return Msg(QT_TRANSLATE_NOOP(
            "core", "No card priced as of {date} has {need} within {budget}."),
            date=as_of, need=need, budget=_money(budget))
    return Msg(QT_TRANSLATE_NOOP("core", "No card priced as of {date} has {need}."),
               date=as_of, need=need)


def _several_note(run: _Run, options: list[_Option]) -> Msg:
    pair = next((o for o in options if o.count == 2), None)
    one = run.rows[pair.card.name].samples_per_s if pair else 0.0
    two = pair.speed / one if pair and one else 0.0
    return Msg(QT_TRANSLATE_NOOP(
        "core", "Several GPUs: two cards train this network about {speedup:.1f}× as fast as "
                "one (the article: four give 2.5–3× in most frameworks, 3.6–3.8× in "
                "optimised research code; dense networks gain much less) — or run two "
                "experiments at once."), speedup=two)


def _world_note(run: _Run) -> Msg:
    """How a plan on several GPUs is advised."""
    strategy = run.plan.parallel.strategy
    return Msg(QT_TRANSLATE_NOOP(
        "core", "Your plan trains on {world} GPUs ({strategy}): each option is {world} of a "
                "card, its fit judged per GPU (peak {peak} on each, batch per GPU) and its "
                "speed that of all {world}, as in the fit table."),
        world=run.world, strategy=_STRATEGY_NAMES.get(strategy, strategy), peak=_gb(run.peak))


def _notes(run: _Run, sale: _Sale, modules: list[str], options: list[_Option], eligible,
           slower: int, recs: list[Recommendation]) -> list[Msg]:
    """The advice's notes, in the order they are read: the memory rule of a plan first, then
    the prices, what was left out, and why there is no buy or how to go on."""
    notes: list = []
    if run.inputs.plan is not None:
        # One rule, said where the advice is read: the plan's peak decides, not the profile.
        notes.append(Msg(QT_TRANSLATE_NOOP(
            "core", "Memory: a card qualifies when your plan's estimated peak ({peak}) fits "
                    "its usable memory (its memory less the driver's reserve); the profile's "
                    "{memory:g} GB is not used."), peak=_gb(run.peak),
            memory=run.prof.memory_gib))
    if sale.note is not None:
        notes.append(sale.note)
    notes.extend(run.catalog.price_book().notices)  # e.g. the user's prices file was set aside
    if modules:
        notes.append(Msg(QT_TRANSLATE_NOOP(
            "core", "Left out: {cards} — SXM modules that come only inside NVIDIA's multi-GPU "
                    "servers, not as cards for a PC."), cards=", ".join(modules)))
    notes.append(_owned_does_not_fit(run))
    if not eligible:
        notes.append(_nothing_eligible(run, slower))
    first = next((r for r in recs if r.action == "buy"), None) if run.prof.start_cheap else None
    if first is not None:
        notes.append(_upgrade_path(first, run.catalog, run.as_of, run.quotes.resale))
    if run.several:
        notes.append(_several_note(run, options))
    if run.world > 1:
        notes.append(_world_note(run))
    if run.inputs.plan is None:
        notes.append(Msg(QT_TRANSLATE_NOOP(
            "core", "Speed is measured on {label}; draft your own network for advice on it."),
            label=run.label))
    return [n for n in notes if n is not None]


def advise(catalog: Catalog, inputs: AdvisorInputs,
           assumptions: Assumptions | None = None,
           advisor: AdvisorAssumptions | None = None) -> Advice:
    """What to buy, keep and sell for these inputs (the module's docstring says how)."""
    run = _prepare(catalog, inputs, assumptions or Assumptions(), advisor or AdvisorAssumptions())
    options, modules = _options(run)
    sale = _sale(run)
    eligible, slower = _eligible(run, options, sale)
    recs = _recommendations(run, eligible, sale)
    notes = _notes(run, sale, modules, options, eligible, slower, recs)
    owned_points = tuple((s.name, run.rows[s.name].samples_per_s) for s, _ in run.owned)
    return Advice(run.as_of, run.prof, tuple(recs), tuple(notes), len(options),
                  _chart(eligible, sale), owned_points, run.plan.draft.name,
                  needed_bytes=run.peak if inputs.plan is not None else None,
                  tokens_per_sample=run.tokens_per_sample)


# A sentence of 1 to 10 phrases: literal templates, so each can be translated (lupdate), with
# the language's own separators.
_SENTENCES = (
    QT_TRANSLATE_NOOP("core", "{p0}."),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}."),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}, {p2}."),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}, {p2}, {p3}."),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}, {p2}, {p3}, {p4}."),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}, {p2}, {p3}, {p4}, {p5}."),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}, {p2}, {p3}, {p4}, {p5}, {p6}."),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}, {p2}, {p3}, {p4}, {p5}, {p6}, {p7}."),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}, {p2}, {p3}, {p4}, {p5}, {p6}, {p7}, {p8}."),
    QT_TRANSLATE_NOOP("core", "{p0}, {p1}, {p2}, {p3}, {p4}, {p5}, {p6}, {p7}, {p8}, {p9}."),
)


def sentence(parts) -> Msg:
    """Phrases joined into one sentence ("a, b, c.") that stays translatable."""
    parts = list(parts)[:len(_SENTENCES)]
    return Msg(_SENTENCES[len(parts) - 1], **{f"p{i}": p for i, p in enumerate(parts)})


def _power(card: GpuSpec, inputs: AdvisorInputs, adv: AdvisorAssumptions,
           count: int = 1) -> float | None:
    if inputs.electricity_usd_per_kwh is None or not card.tdp_w:
        return None
    kwh = card.tdp_w * adv.average_load * inputs.hours_per_day * 365 / 1000 * count
    return round(kwh * inputs.electricity_usd_per_kwh, 2)


def _rent_comparison(o: _Option, net: float, power_per_year: float | None,
                     inputs: AdvisorInputs, rented) -> RentComparison | None:
    """Renting the same work from the rental observations: the bought card itself where it is
    rented out, else the rented card whose cheapest rate does the work for the least."""
    best = None
    for card, rq, rspeed in rented:
        if rspeed <= 0:
            continue
        ratio = 1.0 if card.name == o.card.name and o.count == 1 else o.speed / rspeed
        cost = rq.cheapest_usd_per_gpu_hour * ratio
        same = card.name == o.card.name
        if best is None or (same, -cost) > (best[0], -best[1]):
            best = (same, cost, card, rq, ratio)
    if best is None:
        return None
    _, _, card, rq, ratio = best
    cheapest = rq.cheapest_usd_per_gpu_hour * ratio
    median = rq.median_usd_per_gpu_hour * ratio
    power_per_hour = ((power_per_year or 0.0) / (inputs.hours_per_day * 365)
                      if inputs.hours_per_day else 0.0)

    def hours(rate: float) -> float | None:
        if rate <= power_per_hour:
            return None
        return round(max(net, 0.0) / (rate - power_per_hour), 0)

    return RentComparison(card.name, rq.month, cheapest, median, rq.cheapest.market,
                          rq.count, ratio, hours(cheapest), hours(median))


def _fit_phrase(o: _Option, name: str, label: Msg, setup: Setup, world: int = 1) -> Msg:
    """'RTX 3090: fits your net up to batch 96 in mixed precision' (per GPU on a plan over
    several GPUs)."""
    if not o.max_batch:
        return Msg(QT_TRANSLATE_NOOP("core", "{name}: fits {label}"), name=name, label=label)
    prec = o.precision or setup.precision
    precision = Msg(QT_TRANSLATE_NOOP("core", "mixed precision")) if prec == "mixed" else prec
    if world > 1:
        return Msg(QT_TRANSLATE_NOOP("core", "{name}: fits {label} up to batch {batch} per GPU "
                                             "in {precision}"),
                   name=name, label=label, batch=o.max_batch, precision=precision)
    return Msg(QT_TRANSLATE_NOOP("core", "{name}: fits {label} up to batch {batch} in "
                                         "{precision}"),
               name=name, label=label, batch=o.max_batch, precision=precision)


def _speed_phrase(o: _Option, speedup: float | None, owned: str | None,
                  tokens_per_sample: int | None = None, band: Band | None = None) -> Msg:
    """As fast as what: times the card owned, or samples (a text workload: tokens) per
    second; with ``band`` (``_speed_band``) where there is one."""
    if speedup is not None and band is not None:
        return Msg(QT_TRANSLATE_NOOP("core", "{speedup:.1f}× your {card} ({band})"),
                   speedup=speedup, card=owned, band=band.text())
    if speedup is not None:
        return Msg(QT_TRANSLATE_NOOP("core", "{speedup:.1f}× your {card}"), speedup=speedup,
                   card=owned)
    return speed_msg(o.speed, tokens_per_sample=tokens_per_sample,
                     band=band.text() if band is not None else None)


def _speed_band(run: _Run, o: _Option, speedup: float | None) -> Band | None:
    """The error band of what the advice says of the option's speed: the card's own band
    (benchmarks/speed_accuracy.py: what was measured for its kind of card and precision), or,
    for a speed-up over the card owned, that of the ratio of the two (``Band.over``); None
    where either was not measured."""
    if speedup is None:
        return o.band
    owned = run.rows[run.owned_name].speed.band
    return o.band.over(owned) if o.band is not None and owned is not None else None


def _price_phrase(o: _Option, described, sale: _Sale, owned: str | None, net: float):
    """The price, each for several cards, less what the card owned fetches."""
    if o.count > 1:
        price = Msg(QT_TRANSLATE_NOOP("core", "{price} each"), price=described)
    else:
        price = described
    if sale.value:
        return Msg(QT_TRANSLATE_NOOP(
            "core", "{price} less ~{resale} for your {card} used = {net} net"),
            price=price, resale=_money(sale.value), card=owned, net=_money(net))
    if o.count > 1:
        return Msg(QT_TRANSLATE_NOOP("core", "{price} = {net}"), price=price, net=_money(net))
    return price


def _caveats(card: GpuSpec, support: str) -> list[Msg]:
    """What to know before buying the card: its software support, slow memory, cooling."""
    out = []
    if support == "legacy":
        out.append(Msg(QT_TRANSLATE_NOOP(
            "core", "current software supports it only through legacy builds")))
    elif support != "supported":
        out.append(Msg(QT_TRANSLATE_NOOP(
            "core", "current CUDA and PyTorch no longer support it")))
    if card.fast_memory_bytes < card.memory_bytes:
        out.append(Msg(QT_TRANSLATE_NOOP("core", "only its first 3.5 GB are fast")))
    if card.segment == "datacenter":
        out.append(Msg(QT_TRANSLATE_NOOP(
            "core", "a data-centre card, usually without a fan of its own: in a PC it needs "
                    "added cooling")))
    return out


def _against_renting(o: _Option, net: float, power: float | None, inputs: AdvisorInputs,
                     rented) -> tuple[list[Msg], float | None, RentComparison | None]:
    """Buying against renting: the user's cloud rate when given, else the dated rental
    observations; the phrases, the months to break even and the rent comparison."""
    if inputs.cloud_usd_per_hour:
        monthly_cloud = inputs.cloud_usd_per_hour * inputs.hours_per_day * 30
        monthly_power = (power or 0.0) / 12
        if monthly_cloud <= monthly_power:
            return [], None, None
        months = round(net / (monthly_cloud - monthly_power), 1) if net > 0 else 0.0
        return [Msg(QT_TRANSLATE_NOOP(
            "core", "pays for itself against ${hourly:g}/h cloud in {months:g} months"),
            hourly=inputs.cloud_usd_per_hour, months=months)], months, None
    rent = _rent_comparison(o, net, power, inputs, rented)
    if rent is None:
        return [], None, None
    months = None
    if rent.break_even_hours_median is not None and inputs.hours_per_day:
        months = round(rent.break_even_hours_median / (inputs.hours_per_day * 30), 1)
    return [_rent_text(rent, inputs)], months, rent


def _buy(run: _Run, o: _Option, net: float, score: float, sale: _Sale,
         rented=()) -> Recommendation:
    """A buy recommendation and its reason, one sentence of phrases."""
    card = o.card
    name = f"{o.count}× {card.name}" if o.count > 1 else card.name
    owned_speed = run.owned_speed
    owned = run.owned_name if run.best_owned else None
    speedup = o.speed / owned_speed if owned_speed else None
    band = _speed_band(run, o, speedup)
    described = describe_price(o.price, run.as_of)
    power = _power(card, run.inputs, run.adv, o.count)
    parts = [_fit_phrase(o, name, run.label, run.plan.setup, run.world),
             _speed_phrase(o, speedup, owned, run.tokens_per_sample, band)]
    if o.note:
        parts.append(Msg(o.note))
    parts.append(_price_phrase(o, described, sale, owned, net))
    if power is not None:
        parts.append(Msg(QT_TRANSLATE_NOOP("core", "~{cost} a year in electricity"),
                         cost=_money(power)))
    parts += _caveats(card, o.support)
    renting, break_even, rent = _against_renting(o, net, power, run.inputs, rented)
    parts += renting
    return Recommendation("buy", name, o.price.usd * o.count, o.price, round(net, 2),
                          round(speedup, 3) if speedup is not None else None, o.fits,
                          o.max_batch, power, o.support, sentence(parts), round(score, 6),
                          o.count, sale.cards if sale.value else (), break_even, rent,
                          str(described), band.magnitude if band else None, band)


def _rent_text(rent: RentComparison, inputs: AdvisorInputs) -> Msg:
    if rent.work_ratio == 1.0:
        head = Msg(QT_TRANSLATE_NOOP(
            "core", "renting it costs ${cheapest:.2f}/h at the cheapest ({provider}, {date}), "
                    "${median:.2f}/h the median of {offers} offers"),
            cheapest=rent.cheapest_usd_per_hour, provider=rent.provider, date=rent.month,
            median=rent.median_usd_per_hour, offers=rent.offers)
    else:
        head = Msg(QT_TRANSLATE_NOOP(
            "core", "renting the same work on {card} ({speed:.2g}× as fast on it) costs "
                    "${cheapest:.2f} per hour of this card's work at the cheapest ({provider}, "
                    "{date}), ${median:.2f} at the median of {offers} offers"),
            card=rent.card, speed=1 / rent.work_ratio, cheapest=rent.cheapest_usd_per_hour,
            provider=rent.provider, date=rent.month, median=rent.median_usd_per_hour,
            offers=rent.offers)
    if rent.break_even_hours_cheapest is None and rent.break_even_hours_median is None:
        return Msg(QT_TRANSLATE_NOOP(
            "core", "{head}: renting costs less than running it, buying never pays off"),
            head=head)
    if rent.break_even_hours_cheapest is None:
        return Msg(QT_TRANSLATE_NOOP(
            "core", "{head}: buying pays off after {median:,.0f} hours of use at the median "
                    "rate (never at the cheapest)"), head=head,
            median=rent.break_even_hours_median)
    return Msg(QT_TRANSLATE_NOOP(
        "core", "{head}: buying pays off after {cheapest:,.0f} hours of use at the cheapest "
                "rate, {median:,.0f} at the median"), head=head,
        cheapest=rent.break_even_hours_cheapest, median=rent.break_even_hours_median)


def _upgrade_path(first: Recommendation, catalog: Catalog, as_of: str, resale) -> str:
    card = catalog.by_name(first.card.split("× ")[-1])
    used = resale(card) if card is not None else None  # what was known then, not later
    if used:
        return Msg(QT_TRANSLATE_NOOP(
            "core", "Start with the {card}; once you know your direction (start-up, Kaggle, "
                    "research, applied work), sell it (it fetched about {price} used by {date}) "
                    "and buy what that direction needs — the article's start-cheap, "
                    "sell-and-upgrade path."), card=first.card, price=_money(used.usd),
            date=used.date)
    return Msg(QT_TRANSLATE_NOOP(
        "core", "Start with the {card}; once you know your direction (start-up, Kaggle, "
                "research, applied work), sell it and buy what that direction needs — the "
                "article's start-cheap, sell-and-upgrade path."), card=first.card)
