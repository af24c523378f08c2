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
from planner.core.memory import Assumptions, max_batch_many
from planner.core.network import Setup
from planner.core.parallel import Parallel, ParallelAssumptions, scaling
from planner.core.plan import PlanResult, compute_plan
from planner.core.presets import load_preset
from planner.core.eras import era_workload
from planner.core.speed import ERROR_BAND, best_precision, iteration_time, workload
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

    def assumptions_text(self, as_of: str | None = None) -> str:
        """What the profile assumes; as of a date from which it has an era's workload
        (planner.core.eras), that workload, whose planned peak is the memory need."""
        budget = (f"${self.budget_usd:,.0f}" if self.budget_usd
                  else Msg(QT_TRANSLATE_NOOP("core", "no limit")))
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
    speed_error: float | None = None  # the speed model's typical relative error; None: unchecked

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
                "speed_error": self.speed_error, "fits": self.fits,
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

    def to_json(self) -> dict:
        return {"as_of": self.as_of, "profile": self.profile.key,
                "profile_assumptions": self.profile.assumptions_text(self.as_of),
                "workload": self.workload,
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
    checked: bool = True  # the speed calibration checked every kind of layer of the network


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


@dataclass
class _CardMeasures:
    """Each card's speed on the workload, the precision it runs it in, whether it fits and
    the largest batch that does."""

    precision_of: dict[str, str]
    works: dict
    speed: dict[str, float]
    notes_of: dict[str, str]
    fits: dict[str, bool]
    mbatch: dict[str, int]


def _measure_cards(cards: list[GpuSpec], plan: PlanResult, planned: bool, prof: Profile,
                   a: Assumptions) -> _CardMeasures:
    setup, analysis = plan.setup, plan.analysis
    usable = [c.usable_memory_bytes(a.driver_reserved_bytes) for c in cards]
    # The profile's reference workload runs in the precision each card runs well (fp16 mixed
    # precision on tensor cores, fp32 where FP16 is slow); a planned workload in its own.
    precision_of = {c.name: best_precision(c) if not planned else setup.precision
                    for c in cards}
    setups = {p: replace(setup, precision=p) for p in set(precision_of.values())}
    works = {p: plan.workload if p == setup.precision else workload(analysis, s)
             for p, s in setups.items()}
    batches_by = {p: max_batch_many(analysis, s, usable, a) for p, s in setups.items()}
    batches = [batches_by[precision_of[c.name]][i] for i, c in enumerate(cards)]
    m = _CardMeasures(precision_of, works, {}, {}, {}, {})
    peak = plan.estimate.peak
    for c, use, mb in zip(cards, usable, batches):
        est = iteration_time(works[precision_of[c.name]], c, precision_of[c.name], a)
        m.speed[c.name] = est.samples_per_s
        m.notes_of[c.name] = est.note
        if planned:
            m.fits[c.name] = peak <= use
        else:
            need = prof.memory_gib * GIB * 0.97  # marketed GB vs GiB
            m.fits[c.name] = c.fast_memory_bytes >= need
        m.mbatch[c.name] = int(mb)
    return m


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


def advise(catalog: Catalog, inputs: AdvisorInputs,
           assumptions: Assumptions | None = None,
           advisor: AdvisorAssumptions | None = None) -> Advice:
    a = assumptions or Assumptions()
    adv = advisor or AdvisorAssumptions()
    prof = inputs.profile
    as_of = _checked_month(inputs)
    budget = inputs.budget_usd if inputs.budget_usd is not None else prof.budget_usd
    if budget is not None and budget < 0:
        raise AdvisorError(Msg(QT_TRANSLATE_NOOP("core", "budget must be a positive amount")))
    several = prof.several_gpus if inputs.several_gpus is None else inputs.several_gpus
    notes: list[str] = []

    plan, label, planned = _workload(inputs, as_of, a)
    draft, setup, analysis = plan.draft, plan.setup, plan.analysis
    peak = plan.estimate.peak
    work = plan.workload

    cards = [c for c in catalog if c.release is None or c.release <= as_of]
    measures = _measure_cards(cards, plan, planned, prof, a)
    precision_of, works = measures.precision_of, measures.works
    speed, notes_of, fits, mbatch = (measures.speed, measures.notes_of, measures.fits,
                                     measures.mbatch)

    # What the user owns.
    owned_specs = _owned_specs(catalog, inputs)
    best_owned = max(owned_specs, key=lambda so: speed.get(so[0].name, 0.0), default=None)
    owned_speed = speed.get(best_owned[0].name) if best_owned else None
    if best_owned and best_owned[0].name not in speed:
        p = best_precision(best_owned[0]) if not planned else setup.precision
        owned_work = works.get(p) or workload(analysis, replace(setup, precision=p))
        owned_speed = iteration_time(owned_work, best_owned[0], p, a).samples_per_s

    def fresh(p: PricePoint | None) -> PricePoint | None:
        if p is None or not p.date:
            return p
        return p if _months_between(p.date, as_of) <= adv.stale_price_months else None

    def quote(spec: GpuSpec, condition: str) -> PricePoint | None:
        """The dated price as of the date: sold preferred to a slightly newer asking price; a
        used card with no used price may have a mixed-condition one (labelled so)."""
        p = fresh(catalog.price(spec, as_of, condition, prefer_sold_months=adv.prefer_sold_months))
        if p is None and condition == "used":
            p = fresh(catalog.price(spec, as_of, "mixed",
                                    prefer_sold_months=adv.prefer_sold_months))
        return p

    def resale(spec: GpuSpec) -> PricePoint | None:
        return quote(spec, "used")

    # Rental rates known as of the date (not older than a stale price), per rented card.
    rented = []
    for c in catalog:
        rq = catalog.rental(c, as_of)
        if rq is not None and _months_between(rq.month, as_of) <= adv.stale_price_months:
            rented.append((c, rq, speed.get(c.name) or iteration_time(
                work, c, setup.precision, a).samples_per_s))

    grads = plan.gradients if several else 0
    pa = ParallelAssumptions(framework=adv.framework)

    def pair_speed(card: GpuSpec) -> float:
        """Two of this card training the workload data-parallel (the several-GPUs model:
        all-reduce over the card's link, calibrated to the article's figures)."""
        p = precision_of[card.name]
        return scaling(works[p], card, p, grads, Parallel(2, 1, "ddp"), pa,
                       a)[-1].samples_per_s

    options: list[_Option] = []
    modules: list[str] = []  # priced SXM modules left out
    for c in cards:
        if c.server_module:
            priced = [p for p in (quote(c, "new"), quote(c, "used")) if p is not None]
            if fits[c.name] and any(budget is None or p.usd <= budget for p in priced):
                modules.append(c.name)
            continue
        prices = []
        if inputs.price_basis in ("new", "both"):
            prices.append(quote(c, "new"))
        if inputs.price_basis in ("used", "both"):
            prices.append(quote(c, "used"))
        prices = [p for p in prices if p is not None and p.usd > 0]
        if not prices:
            continue
        price = min(prices, key=lambda p: p.usd)
        support = support_as_of(c.compute_capability, as_of)
        options.append(_Option(c, price, 1, speed[c.name], fits[c.name], mbatch[c.name],
                               support, precision_of[c.name], notes_of[c.name], work.checked))
        if several:
            options.append(_Option(c, price, 2, pair_speed(c),
                                   fits[c.name], mbatch[c.name], support,
                                   precision_of[c.name], notes_of[c.name], work.checked))

    sell_value = 0.0
    sells: tuple[str, ...] = ()
    if best_owned and inputs.sell_replaced and not several:
        rp = resale(best_owned[0])
        if rp is not None:
            sell_value = rp.usd * best_owned[1].count
            sells = (best_owned[0].name,)
        else:
            notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "No used price is known for your {card} as of {date}, so the net costs "
                        "do not subtract its sale: add what it fetches in the Catalog pane "
                        "(Edit price…)."), card=best_owned[0].name, date=as_of))
    notes.extend(catalog.price_book().notices)  # e.g. the user's prices file was set aside
    if modules:
        notes.append(Msg(QT_TRANSLATE_NOOP(
            "core", "Left out: {cards} — SXM modules that come only inside NVIDIA's multi-GPU "
                    "servers, not as cards for a PC."), cards=", ".join(modules)))

    def score(o: _Option) -> float:
        cost = max(o.price.usd * o.count, 1.0)
        s = o.speed / cost ** prof.price_weight
        if o.support == "legacy":
            s *= adv.legacy_factor
        elif o.support == "unsupported":
            s *= adv.unsupported_factor
        return s

    owned_names = {s.name for s, _ in owned_specs}
    eligible = []
    slower = 0  # fit and within budget, but no faster than what is owned
    for o in options:
        if not o.fits or o.card.name in owned_names:
            continue
        net = o.price.usd * o.count - sell_value
        if budget is not None and net > budget:
            continue
        if owned_speed and o.speed <= owned_speed:
            slower += 1  # never advise buying something slower than what you have
            continue
        eligible.append((score(o), o, net))
    eligible.sort(key=lambda t: -t[0])
    chart = tuple((f"{o.count}× {o.card.name}" if o.count > 1 else o.card.name,
                   o.price.usd * o.count - sell_value, o.speed, o.fits)
                  for _, o, _ in eligible[:40])

    recs: list[Recommendation] = []
    if best_owned is not None:
        spec, own = best_owned
        if not fits.get(spec.name, False) and planned:
            notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "Your {card} does not fit {label} at batch {batch} (peak {peak})."),
                card=spec.name, label=label, batch=setup.batch_size, peak=_gb(peak)))

    for sc, o, net in eligible[:adv.top]:
        recs.append(_buy(o, net, sc, sells if sell_value else (), sell_value, owned_speed,
                         best_owned, inputs, adv, label, setup, catalog, as_of, resale, rented))

    # Keep what you have, when nothing is meaningfully better for the money.
    if best_owned is not None:
        spec, own = best_owned
        owned_fits = fits.get(spec.name, True)
        top_speedup = recs[0].speedup if recs else None
        if owned_fits and (top_speedup is None or top_speedup < adv.min_speedup):
            if recs and top_speedup is not None:
                why = Msg(QT_TRANSLATE_NOOP(
                    "core", "Keep your {card}: the best buy within your budget, {best}, is only "
                            "{speedup:.2f}× as fast on {label} (less than the {min:g}× worth "
                            "the money and the trouble)."), card=spec.name, best=recs[0].card,
                    speedup=top_speedup, label=label, min=adv.min_speedup)
            else:
                why = Msg(QT_TRANSLATE_NOOP(
                    "core", "Keep your {card}: nothing within your budget fits {label} and is "
                            "faster."), card=spec.name, label=label)
            recs = [r for r in recs if r.speedup is None or r.speedup >= adv.min_speedup]
            keep = Recommendation("keep", spec.name, None, None, 0.0, 1.0, owned_fits,
                                  mbatch.get(spec.name), _power(spec, inputs, adv),
                                  support_as_of(spec.compute_capability, as_of), why,
                                  count=own.count)
            recs.insert(0, keep)
        if sells and recs and recs[0].action == "buy":
            rp = resale(spec)
            recs.append(Recommendation(
                "sell", spec.name, rp.usd if rp else None, rp, -(rp.usd if rp else 0.0),
                None, owned_fits, mbatch.get(spec.name), None,
                support_as_of(spec.compute_capability, as_of),
                Msg(QT_TRANSLATE_NOOP(
                    "core", "Sell your {card} for about {price} (used price, {date}) when the "
                            "{new} arrives."), card=spec.name, price=_money(rp.usd),
                    date=rp.date, new=recs[0].card) if rp else
                Msg(QT_TRANSLATE_NOOP("core", "Sell your {card} when the {new} arrives."),
                    card=spec.name, new=recs[0].card),
                count=own.count))
    if not eligible and slower:
        if budget is not None:
            notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "Every card that fits and is priced as of {date} within {budget} is "
                        "slower than your {card}."), date=as_of, budget=_money(budget),
                card=best_owned[0].name))
        else:
            notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "Every card that fits and is priced as of {date} is slower than your "
                        "{card}."), date=as_of, card=best_owned[0].name))
    elif not eligible:
        need = (Msg(QT_TRANSLATE_NOOP("core", "{peak} for {label}"), peak=_gb(peak),
                    label=label) if planned else f"{prof.memory_gib:g} GB")
        if budget is not None:
            notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "No card priced as of {date} has {need} within {budget}."),
                date=as_of, need=need, budget=_money(budget)))
        else:
            notes.append(Msg(QT_TRANSLATE_NOOP("core", "No card priced as of {date} has {need}."),
                             date=as_of, need=need))
    if prof.start_cheap and recs:
        first = next((r for r in recs if r.action == "buy"), None)
        if first is not None:
            notes.append(_upgrade_path(first, catalog, as_of, resale))
    if several:
        pair = next((o for o in options if o.count == 2), None)
        two = pair.speed / speed[pair.card.name] if pair and speed[pair.card.name] else 0.0
        notes.append(Msg(QT_TRANSLATE_NOOP(
            "core", "Several GPUs: two cards train this network about {speedup:.1f}× as fast as "
                    "one (the article: four give 2.5–3× in most frameworks, 3.6–3.8× in "
                    "optimised research code; dense networks gain much less) — or run two "
                    "experiments at once."), speedup=two))
    if inputs.plan is None:
        notes.append(Msg(QT_TRANSLATE_NOOP(
            "core", "Speed is measured on {label}; draft your own network for advice on it."),
            label=label))
    owned_points = tuple(
        (s.name, speed.get(s.name) or iteration_time(work, s, setup.precision, a).samples_per_s)
        for s, _ in owned_specs)
    if inputs.plan is not None:
        # One rule, said where the advice is read: the plan's peak decides, not the profile.
        notes.insert(0, Msg(QT_TRANSLATE_NOOP(
            "core", "Memory: a card qualifies when your plan's estimated peak ({peak}) fits "
                    "its usable memory (its memory less the driver's reserve); the profile's "
                    "{memory:g} GB is not used."), peak=_gb(peak), memory=prof.memory_gib))
    return Advice(as_of, prof, tuple(recs), tuple(notes), len(options), chart, owned_points,
                  draft.name, needed_bytes=peak if inputs.plan is not None else None)


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


def _buy(o: _Option, net: float, score: float, sells, sell_value, owned_speed, best_owned,
         inputs: AdvisorInputs, adv: AdvisorAssumptions, label: str, setup: Setup,
         catalog: Catalog, as_of: str, resale, rented=()) -> Recommendation:
    card = o.card
    name = f"{o.count}× {card.name}" if o.count > 1 else card.name
    speedup = o.speed / owned_speed if owned_speed else None
    if o.max_batch:
        prec = o.precision or setup.precision
        precision = (Msg(QT_TRANSLATE_NOOP("core", "mixed precision"))
                     if prec == "mixed" else prec)
        parts = [Msg(QT_TRANSLATE_NOOP("core", "{name}: fits {label} up to batch {batch} in "
                                               "{precision}"),
                     name=name, label=label, batch=o.max_batch, precision=precision)]
    else:
        parts = [Msg(QT_TRANSLATE_NOOP("core", "{name}: fits {label}"), name=name, label=label)]
    # The speed model's typical error against measured throughput (benchmarks/speed_accuracy.py).
    band = round(ERROR_BAND * 100)
    if speedup is not None and o.checked:
        parts.append(Msg(QT_TRANSLATE_NOOP("core", "{speedup:.1f}× your {card} (±{band} %)"),
                         speedup=speedup, card=best_owned[0].name, band=band))
    elif speedup is not None:
        parts.append(Msg(QT_TRANSLATE_NOOP("core", "{speedup:.1f}× your {card}"),
                         speedup=speedup, card=best_owned[0].name))
    else:  # "0.42 samples/s", not "0 samples/s" for a slow step (planner.core.rates)
        from planner.core.rates import speed_msg  # noqa: PLC0415

        parts.append(speed_msg(o.speed, band_pct=band if o.checked else None))
    if o.note:
        parts.append(Msg(o.note))
    described = describe_price(o.price, as_of)
    if o.count > 1:
        price_txt = Msg(QT_TRANSLATE_NOOP("core", "{price} each"), price=described)
    else:
        price_txt = described
    if sell_value:
        parts.append(Msg(QT_TRANSLATE_NOOP(
            "core", "{price} less ~{resale} for your {card} used = {net} net"),
            price=price_txt, resale=_money(sell_value), card=best_owned[0].name,
            net=_money(net)))
    elif o.count > 1:
        parts.append(Msg(QT_TRANSLATE_NOOP("core", "{price} = {net}"), price=price_txt,
                         net=_money(net)))
    else:
        parts.append(price_txt)
    power = _power(card, inputs, adv, o.count)
    if power is not None:
        parts.append(Msg(QT_TRANSLATE_NOOP("core", "~{cost} a year in electricity"),
                         cost=_money(power)))
    support = o.support
    if support == "legacy":
        parts.append(Msg(QT_TRANSLATE_NOOP(
            "core", "current software supports it only through legacy builds")))
    elif support != "supported":
        parts.append(Msg(QT_TRANSLATE_NOOP(
            "core", "current CUDA and PyTorch no longer support it")))
    if card.fast_memory_bytes < card.memory_bytes:
        parts.append(Msg(QT_TRANSLATE_NOOP("core", "only its first 3.5 GB are fast")))
    if card.segment == "datacenter":
        parts.append(Msg(QT_TRANSLATE_NOOP(
            "core", "a data-centre card, usually without a fan of its own: in a PC it needs "
                    "added cooling")))
    break_even = None
    rent = None
    if not inputs.cloud_usd_per_hour:
        rent = _rent_comparison(o, net, power, inputs, rented)
    if rent is not None:
        parts.append(_rent_text(rent, inputs))
        if rent.break_even_hours_median is not None and inputs.hours_per_day:
            break_even = round(rent.break_even_hours_median / (inputs.hours_per_day * 30), 1)
    if inputs.cloud_usd_per_hour:
        monthly_cloud = inputs.cloud_usd_per_hour * inputs.hours_per_day * 30
        monthly_power = (power or 0.0) / 12
        if monthly_cloud > monthly_power:
            break_even = round(net / (monthly_cloud - monthly_power), 1) if net > 0 else 0.0
            parts.append(Msg(QT_TRANSLATE_NOOP(
                "core", "pays for itself against ${hourly:g}/h cloud in {months:g} months"),
                hourly=inputs.cloud_usd_per_hour, months=break_even))
    reason = sentence(parts)
    return Recommendation("buy", name, o.price.usd * o.count, o.price, round(net, 2),
                          round(speedup, 3) if speedup is not None else None, o.fits,
                          o.max_batch, power, support, reason, round(score, 6), o.count,
                          tuple(sells), break_even, rent, str(described),
                          ERROR_BAND if o.checked else None)


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
