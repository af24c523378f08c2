"""Price observations as data: dated, sourced figures, apart from the card specs.

Qt-free, no I/O at import time. One observation is one figure as its source states it: a card
(the catalog's name), a date (``YYYY-MM`` or ``YYYY-MM-DD``), an amount in a currency, a
condition (new, used, mixed, msrp; empty for a rental), a kind (sold, asking, list,
rental-per-hour), where it was seen (``market``), its source and a note. The shipped file is
``data/prices.csv`` (how it was built: ``data/prices.md``); the user's own prices live in
``prices-yours.csv`` in the user data folder, in the same columns.

Reading never raises for a bad row: every row that cannot be used (an unknown card, a bad date,
a negative amount, an unknown condition) becomes a :class:`RowProblem` naming the file, the row
number (as a spreadsheet counts it: the header is row 1) and the field. A file that is not a
price CSV at all raises :class:`PriceFileError`; the user's stored file is then set aside
(renamed ``prices-yours.csv.corrupt-YYYYmmdd-HHMMSS``) with a notice, and the shipped prices
still load.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import math
import os
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from planner.i18n import QT_TRANSLATE_NOOP, Msg

CONDITIONS = ("new", "used", "mixed", "msrp")
KINDS = ("sold", "asking", "list", "rental-per-hour")
RENTAL = "rental-per-hour"
CURRENCIES = ("USD", "EUR")
REQUIRED_COLUMNS = ("card", "date", "amount", "currency", "condition", "kind", "source")
COLUMNS = ("card", "date", "amount", "currency", "condition", "kind", "market", "gpus",
           "source", "source_date", "source_card", "note")
USER_PRICES_FILENAME = "prices-yours.csv"
MAX_FILE_BYTES = 16 * 1024 * 1024  # a price list, not a data dump

SHIPPED = "shipped"  # data/prices.csv
CATALOG = "catalog"  # a price point of data/gpus.json
YOURS = "yours"  # the user's own (imported CSV or an entry of theirs)

_DATE_RE = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")

CONDITION_LABELS = {
    "new": QT_TRANSLATE_NOOP("core", "new"),
    "used": QT_TRANSLATE_NOOP("core", "used"),
    "mixed": QT_TRANSLATE_NOOP("core", "mixed condition"),
    "msrp": QT_TRANSLATE_NOOP("core", "launch price"),
}
KIND_LABELS = {
    "sold": QT_TRANSLATE_NOOP("core", "sold"),
    "asking": QT_TRANSLATE_NOOP("core", "asking"),
    "list": QT_TRANSLATE_NOOP("core", "list"),
    RENTAL: QT_TRANSLATE_NOOP("core", "rental per hour"),
}


class PriceFileError(ValueError):
    """A file that is not a usable price CSV (unreadable, too big, required columns missing)."""


@dataclass(frozen=True)
class Observation:
    """One dated price as its source states it."""

    card: str
    date: str  # YYYY-MM or YYYY-MM-DD
    amount: float
    currency: str
    condition: str  # new | used | mixed | msrp; "" for a rental
    kind: str  # sold | asking | list | rental-per-hour; "" = the source does not say
    source: str
    note: str = ""
    market: str = ""  # eBay, Amazon, a retailer, a cloud provider
    gpus: int = 1  # how many GPUs an hourly rental amount is for
    source_date: str = ""
    source_card: str = ""  # the source's own name for the card
    origin: str = field(default=SHIPPED, compare=False)
    row: int = field(default=0, compare=False)  # its row in the file it came from

    @property
    def month(self) -> str:
        return self.date[:7]

    @property
    def day(self) -> str | None:
        return self.date if len(self.date) == 10 else None

    @property
    def rental(self) -> bool:
        return self.kind == RENTAL

    @property
    def per_gpu_hour(self) -> float:
        return self.amount / self.gpus

    def key(self) -> tuple:
        """What makes two observations the same figure (for merging without duplicates)."""
        return (self.card.casefold(), self.date, self.condition, self.kind, self.currency,
                round(self.amount, 2), self.gpus, self.market.casefold(), self.source,
                self.note)

    def to_row(self) -> dict[str, str]:
        return {"card": self.card, "date": self.date, "amount": f"{self.amount:g}",
                "currency": self.currency, "condition": self.condition, "kind": self.kind,
                "market": self.market, "gpus": str(self.gpus) if self.rental else "",
                "source": self.source, "source_date": self.source_date,
                "source_card": self.source_card, "note": self.note}


@dataclass(frozen=True)
class RowProblem:
    """A row that is not used, and why (the file, the row number, the field)."""

    file: str
    row: int
    card: str
    message: str
    unmatched: bool = False  # the row is valid but names no catalog card

    def __str__(self) -> str:
        return f"{self.file} row {self.row} ({self.card!r}): {self.message}"


@dataclass(frozen=True)
class ParsedPrices:
    observations: tuple[Observation, ...]
    problems: tuple[RowProblem, ...]


def _valid_date(text: str) -> str | None:
    m = _DATE_RE.match(text)
    if not m:
        return None
    y, mo, d = int(m.group(1)), int(m.group(2)), m.group(3)
    try:
        _dt.date(y, mo, int(d) if d else 1)
    except ValueError:
        return None
    return text


class _Clean(dict):
    """A row whose keys are already lower case and whose values are stripped."""


class _Bad(Exception):
    def __init__(self, fld: str, msg: str) -> None:
        super().__init__(f"field '{fld}' {msg}")


def _observation(row: dict[str, str], name: str, origin: str, n: int) -> Observation:
    """One validated row (raises _Bad naming the field)."""
    get = row.get
    date = _valid_date(get("date", ""))
    if date is None:
        raise _Bad("date", f"must be a date YYYY-MM or YYYY-MM-DD, got {get('date', '')!r}")
    try:
        amount = float(get("amount", ""))
    except ValueError:
        raise _Bad("amount", f"must be a number, got {get('amount', '')!r}") from None
    if not math.isfinite(amount) or amount <= 0:
        raise _Bad("amount", f"must be greater than 0, got {get('amount', '')!r}")
    currency = get("currency", "").upper()
    if currency not in CURRENCIES:
        raise _Bad("currency", f"must be one of {', '.join(CURRENCIES)}; got "
                               f"{get('currency', '')!r}")
    kind = get("kind", "").casefold()
    if kind and kind not in KINDS:  # empty: the source does not say
        raise _Bad("kind", f"must be one of {', '.join(KINDS)} or empty (not stated); got "
                           f"{get('kind', '')!r}")
    condition = get("condition", "").casefold()
    if kind == RENTAL and condition:
        raise _Bad("condition", f"must be empty for a rental; got {condition!r}")
    if kind != RENTAL and condition not in CONDITIONS:
        raise _Bad("condition", f"must be one of {', '.join(CONDITIONS)}; got "
                                f"{get('condition', '')!r}")
    gpus_text = get("gpus", "")
    gpus = 1
    if gpus_text:
        gpus = int(gpus_text) if gpus_text.isdigit() else 0
        if gpus < 1:
            raise _Bad("gpus", f"must be a whole number of GPUs (1 or more), got {gpus_text!r}")
    source = get("source", "")
    if not source:
        raise _Bad("source", "is empty: every price names where it comes from")
    card = row["card"]
    return Observation(
        card=name, date=date, amount=amount, currency=currency, condition=condition,
        kind=kind, source=source, note=get("note", ""), market=get("market", ""), gpus=gpus,
        source_date=get("source_date", ""),
        source_card=get("source_card", "") or (card if card != name else ""),
        origin=origin, row=n)


def parse_rows(rows: Iterable[dict[str, str | None]], file: str,
               match: Callable[[str], str | None] | None = None, *, origin: str = SHIPPED,
               first_row: int = 2) -> ParsedPrices:
    """Validate rows (dicts of the CSV's columns) into observations; problems name the row.

    ``match`` maps a card name to the catalog's name (None: no such card); without it names
    are taken as they are.
    """
    out: list[Observation] = []
    problems: list[RowProblem] = []
    for n, raw in enumerate(rows, start=first_row):
        row = raw if isinstance(raw, _Clean) else {
            k.strip().casefold(): (v or "").strip() for k, v in raw.items() if isinstance(k, str)}
        card = row.get("card", "")
        if not card:
            problems.append(RowProblem(file, n, card, "field 'card' is empty"))
            continue
        try:
            obs = _observation(row, card, origin, n)
        except _Bad as exc:
            problems.append(RowProblem(file, n, card, str(exc)))
            continue
        name = match(card) if match is not None else card
        if name is None:
            problems.append(RowProblem(file, n, card, "names no card in the catalog",
                                       unmatched=True))
            continue
        if name != card:
            obs = replace(obs, card=name, source_card=obs.source_card or card)
        out.append(obs)
    return ParsedPrices(tuple(out), tuple(problems))


def parse_csv(text: str, file: str, match: Callable[[str], str | None] | None = None, *,
              origin: str = SHIPPED) -> ParsedPrices:
    """Parse price CSV text. Raises PriceFileError when required columns are missing."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    try:
        names = [h.strip().casefold() for h in next(reader, [])]
    except csv.Error as exc:
        raise PriceFileError(f"{file}: not a readable CSV ({exc})") from exc
    header = set(names)
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise PriceFileError(Msg(QT_TRANSLATE_NOOP(
            "core", "{file}: not a price list: the columns {columns} are missing (needed: "
                    "{needed})"), file=file, columns=", ".join(missing),
            needed=", ".join(REQUIRED_COLUMNS)))
    width = len(names)

    def rows():
        for r in reader:
            if not any(r):
                continue  # a blank line
            if len(r) < width:
                r += [""] * (width - len(r))
            yield _Clean(zip(names, map(str.strip, r)))

    try:
        return parse_rows(rows(), file, match, origin=origin)
    except csv.Error as exc:
        raise PriceFileError(f"{file}: not a readable CSV ({exc})") from exc


def read_csv_file(path: Path | str, match: Callable[[str], str | None] | None = None, *,
                  origin: str = SHIPPED, label: str | None = None) -> ParsedPrices:
    p = Path(path)
    name = label or p.name
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise PriceFileError(f"{name}: {size:,} bytes is too big for a price list (the "
                                 f"limit is {MAX_FILE_BYTES:,})")
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PriceFileError(f"{name}: not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise PriceFileError(f"{name}: cannot read it ({exc.strerror or exc})") from exc
    return parse_csv(text, name, match, origin=origin)


def to_csv(observations: Iterable[Observation]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
    w.writeheader()
    for o in observations:
        w.writerow(o.to_row())
    return buf.getvalue()


def merge(*groups: Iterable[Observation]) -> tuple[Observation, ...]:
    """All observations, each figure once: a later group's duplicate of an earlier one (same
    card, date, condition, kind, currency, amount, market, source and note) is dropped."""
    seen: set[tuple] = set()
    out: list[Observation] = []
    for g in groups:
        for o in g:
            k = o.key()
            if k in seen:
                continue
            seen.add(k)
            out.append(o)
    return tuple(out)


# --------------------------------------------------------------------------- the user's file


def user_prices_path() -> Path:
    from planner import paths

    return paths.user_prices_path()


def set_aside(path: Path, now: _dt.datetime | None = None) -> Path:
    stamp = (now or _dt.datetime.now()).strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    os.replace(path, target)
    return target


@dataclass(frozen=True)
class UserPrices:
    observations: tuple[Observation, ...]
    problems: tuple[RowProblem, ...] = ()
    notices: tuple[str, ...] = ()


def load_user_prices(path: Path | str | None = None,
                     match: Callable[[str], str | None] | None = None) -> UserPrices:
    """The user's own prices; a file that is not a price list is set aside with a notice."""
    p = Path(path) if path is not None else user_prices_path()
    if not p.exists():
        return UserPrices(())
    try:
        parsed = read_csv_file(p, match, origin=YOURS)
    except PriceFileError as exc:
        try:
            aside = set_aside(p)
        except OSError as move_exc:
            return UserPrices((), notices=(Msg(QT_TRANSLATE_NOOP(
                "core", "Your prices file {path} could not be read ({error}) and could not be "
                        "moved aside either ({move}); your own prices are not shown."),
                path=str(p), error=str(exc), move=str(move_exc)),))
        return UserPrices((), notices=(Msg(QT_TRANSLATE_NOOP(
            "core", "Your prices file could not be read ({error}). It was moved aside to "
                    "{aside}; the shipped prices are used, and your own are not shown until "
                    "you import them again."), error=str(exc), aside=str(aside)),))
    notices = ()
    if parsed.problems:
        notices = (Msg(QT_TRANSLATE_NOOP(
            "core", "{count} of your saved prices are not shown: {first}"),
            count=len(parsed.problems), first=str(parsed.problems[0])),)
    return UserPrices(parsed.observations, parsed.problems, notices)


@dataclass(frozen=True)
class ImportResult:
    added: int
    duplicates: int
    problems: tuple[RowProblem, ...]
    path: Path


def import_prices(source: Path | str, match: Callable[[str], str | None],
                  dest: Path | str | None = None, *,
                  known: Sequence[Observation] = ()) -> ImportResult:
    """Add the valid rows of a CSV to the user's prices (saved atomically).

    Rows already in the user's file or in ``known`` (the shipped history) are not added twice;
    rows that cannot be used are returned with their row numbers. Raises PriceFileError when
    ``source`` is not a price list, or when none of its rows can be used.
    """
    from planner.atomicfile import write_text_atomic

    parsed = read_csv_file(source, match, origin=YOURS)
    if not parsed.observations:
        first = f": {parsed.problems[0]}" if parsed.problems else ""
        raise PriceFileError(Msg(QT_TRANSLATE_NOOP(
            "core", "{file}: no row could be used ({count} rejected){first}"),
            file=Path(source).name, count=len(parsed.problems), first=first))
    d = Path(dest) if dest is not None else user_prices_path()
    current = load_user_prices(d, None).observations if d.exists() else ()
    taken = {o.key() for o in known} | {o.key() for o in current}
    fresh = merge([o for o in parsed.observations if o.key() not in taken])
    d.parent.mkdir(parents=True, exist_ok=True)  # the data folder, made when first written
    write_text_atomic(d, to_csv((*current, *fresh)))
    added = len(fresh)
    return ImportResult(added, len(parsed.observations) - added, parsed.problems, d)


def remove_user_prices(dest: Path | str | None = None,
                       which: Callable[[Observation], bool] | None = None) -> int:
    """Remove the user's prices (all of them, or those ``which`` selects); the count removed."""
    from planner.atomicfile import write_text_atomic

    d = Path(dest) if dest is not None else user_prices_path()
    if not d.exists():
        return 0
    current = load_user_prices(d, None).observations
    if which is None:
        d.unlink()
        return len(current)
    kept = [o for o in current if not which(o)]
    write_text_atomic(d, to_csv(kept))
    return len(current) - len(kept)


def export_prices(observations: Iterable[Observation], path: Path | str) -> Path:
    from planner.atomicfile import write_text_atomic

    return write_text_atomic(path, to_csv(observations))


# --------------------------------------------------------------------------- rentals


@dataclass(frozen=True)
class RentalQuote:
    """The rental rates of one card as of a month: that month's observations per GPU-hour."""

    card: str
    month: str  # the latest month at or before the as-of date with rental observations
    cheapest: Observation
    median_usd_per_gpu_hour: float
    count: int
    providers: tuple[str, ...]

    @property
    def cheapest_usd_per_gpu_hour(self) -> float:
        return self.cheapest.per_gpu_hour


def rental_quote(observations: Iterable[Observation], as_of: str | None = None
                 ) -> RentalQuote | None:
    """Cheapest and median USD per GPU-hour from the latest month (at or before ``as_of``)."""
    rentals = [o for o in observations
               if o.rental and o.currency == "USD" and (as_of is None or o.month <= as_of)]
    if not rentals:
        return None
    month = max(o.month for o in rentals)
    latest = [o for o in rentals if o.month == month]
    cheapest = min(latest, key=lambda o: o.per_gpu_hour)
    providers = tuple(sorted({o.market for o in latest if o.market}))
    return RentalQuote(cheapest.card, month, cheapest,
                       statistics.median(o.per_gpu_hour for o in latest), len(latest),
                       providers)


def months_between(a: str, b: str) -> int:
    """Whole months from month ``a`` to month ``b`` (YYYY-MM…)."""
    return (int(b[:4]) - int(a[:4])) * 12 + int(b[5:7]) - int(a[5:7])


def age_text(date: str, as_of: str) -> Msg:
    """ "3 months old", "this month", "1 month old"."""
    n = months_between(date[:7], as_of[:7])
    if n <= 0:
        return Msg(QT_TRANSLATE_NOOP("core", "this month"))
    if n == 1:
        return Msg(QT_TRANSLATE_NOOP("core", "1 month old"))
    return Msg(QT_TRANSLATE_NOOP("core", "{n} months old"), n=n)


def with_origin(obs: Iterable[Observation], origin: str) -> tuple[Observation, ...]:
    return tuple(replace(o, origin=origin) for o in obs)
