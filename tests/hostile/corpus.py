"""The hostile-input corpus: every file is generated here (no committed blobs).

    python tests/hostile/corpus.py OUTDIR      # writes the files, prints the number of cases

``cli_cases(root)`` writes the files under ``root`` and returns the CLI cases: argv, the exit
status expected, a pattern the one stderr line must match, and the files that must be left
exactly as they were. Other groups (settings, overrides, recordings, Prometheus, ONNX, the
window) build their own inputs with the writers below.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

OK = 0
USAGE = 2


@dataclass
class Case:
    id: str
    argv: list[str]
    rc: int
    msg: str | None = None  # regex the single stderr line must match (rc != 0)
    env: dict[str, str] = field(default_factory=dict)
    intact: list[str] = field(default_factory=list)  # files that must keep their bytes
    subprocess: bool = False  # needs its own interpreter (encoding, environment, exit path)
    stdout_clean: bool = True  # stdout holds no raw control characters
    xfail: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# -- plan files --------------------------------------------------------------------------------

def plan(layers: list[dict], **extra: Any) -> dict[str, Any]:
    return {"schema_version": 1, "name": "hostile", "layers": layers, **extra}


def good_layers() -> list[dict]:
    return [{"type": "input", "name": "input", "shape": [3, 32, 32]},
            {"type": "conv2d", "name": "conv1", "filters": 8, "kernel": 3},
            {"type": "flatten", "name": "flat"},
            {"type": "fc", "name": "fc", "units": 10}]


def deep(n: int, leaf: str = "1") -> str:
    return "[" * n + leaf + "]" * n


def plan_texts() -> dict[str, tuple[bytes, str]]:
    """name → (bytes, pattern of the error); pattern "" means the plan is valid."""
    out: dict[str, tuple[bytes, str]] = {}

    def j(obj: Any) -> bytes:
        return json.dumps(obj).encode()

    def put(name: str, data: bytes | str, pattern: str) -> None:
        out[name] = (data.encode() if isinstance(data, str) else data, pattern)

    good = good_layers()
    put("good.json", j(plan(good)), "")
    put("empty.json", b"", "not valid JSON")
    put("space.json", b"   \n\t ", "not valid JSON")
    put("null.json", b"null", "not a plan")
    put("list.json", b"[]", "not a plan")
    put("string.json", b'"plan"', "not a plan")
    put("number.json", b"42", "not a plan")
    put("truncated.json", j(plan(good))[:-7], "not valid JSON")
    put("binary.json", bytes(range(256)) * 4, "not UTF-8|not valid JSON")
    put("utf16.json", json.dumps(plan(good)).encode("utf-16"), "not UTF-8|not valid JSON")
    put("bom.json", b"\xef\xbb\xbf" + j(plan(good)), "")
    put("nul.json", b"\x00" * 100, "not valid JSON")
    put("deep-100000.json", deep(100_000), "nested more than")
    put("deep-in-layer.json", '{"schema_version":1,"layers":[{"type":"input","name":"i",'
        '"shape":' + deep(5000) + '}]}', "nested more than")
    put("deep-100.json", '{"schema_version":1,"layers":' + deep(100, "{}") + "}",
        "nested more than")
    put("deep-objects.json", '{"a":' * 3000 + "1" + "}" * 3000, "nested more than")
    digits = "9" * 5000
    put("digits-version.json", '{"schema_version":' + digits + ',"layers":[]}', "digits")
    put("digits-shape.json", '{"schema_version":1,"name":"d","layers":[{"type":"input",'
        '"name":"i","shape":[' + digits + ']}]}', "digits")
    put("digits-batch.json", json.dumps(plan(good))[:-1] + ',"setup":{"batch_size":'
        + digits + "}}", "digits")
    put("digits-neg.json", '{"schema_version":-' + digits + "}", "digits")
    put("float-huge.json", j(plan(good, setup={"batch_size": 1e308})), "batch")
    put("inf.json", json.dumps(plan(good)).replace('"units": 10', '"units": Infinity'),
        "units")
    put("nan.json", json.dumps(plan(good)).replace('"units": 10', '"units": NaN'), "units")
    for v in (99, 0, -1, "1", 1.5, None, True, [1]):
        put(f"version-{json.dumps(v)}.json".replace('"', "q"),
            j({"schema_version": v, "layers": good}),
            "newer|not valid|missing")
    put("no-version.json", j({"layers": good}), "schema_version is missing")
    put("layers-missing.json", j({"schema_version": 1}), "layers")
    put("layers-empty.json", j(plan([])), "layers")
    put("layers-dict.json", j(plan({"a": 1})), "layers")  # type: ignore[arg-type]
    put("layers-strings.json", j(plan(["input", "fc"])), "layers")  # type: ignore[list-item]
    put("layer-no-type.json", j(plan([{"name": "x"}])), "type")
    put("layer-unknown.json", j(plan([good[0], {"type": "warp", "name": "w"}])),
        "unknown layer type")
    put("no-input.json", j(plan(good[1:])), "input")
    put("two-inputs.json", j(plan([good[0], dict(good[0], name="input2")] + good[1:])),
        "input")
    put("dup-names.json", j(plan([good[0], good[1], dict(good[1])])), "already used")
    for label, shape in [("2e62", [2 ** 31, 2 ** 31]), ("16m-cubed", [1 << 24] * 3),
                         ("int64-wrap", [1 << 24, 1 << 24, 1 << 16]),
                         ("16m-squared", [1 << 24, 1 << 24]), ("zero", [3, 0, 5]),
                         ("negative", [3, -224, 224]), ("float", [3, 22.5, 224]),
                         ("bool", [True, 3]), ("string", ["a", 3]), ("nested", [[3], 3]),
                         ("empty", []), ("null", None), ("huge-dim", [1 << 40]),
                         ("ten-dims", [2] * 10 + [1 << 24])]:
        put(f"shape-{label}.json", j(plan([{"type": "input", "name": "input", "shape": shape},
                                          {"type": "fc", "name": "fc", "units": 10}])),
            "input|shape|beyond|absurd|not a|empty|below|whole")
    put("fc-overflow.json", j(plan([{"type": "input", "name": "input", "shape": [1 << 24]},
                                    {"type": "fc", "name": "fc", "units": 1 << 24}])),
        "beyond the bound")
    put("conv-overflow.json", j(plan([
        {"type": "input", "name": "input", "shape": [4096, 4096, 4096]},
        {"type": "conv2d", "name": "conv", "filters": 1 << 24, "kernel": 1}])),
        "beyond the bound")
    put("kernel-too-big.json", j(plan([{"type": "input", "name": "input", "shape": [3, 4, 4]},
                                       {"type": "conv2d", "name": "c", "filters": 2,
                                        "kernel": 7}])), "kernel|larger")
    put("param-bad-types.json", j(plan([good[0], {"type": "conv2d", "name": "c",
                                                  "filters": "many", "kernel": [3, 3, 3, 3]}])),
        "filters|kernel")
    put("param-huge.json", j(plan([good[0], {"type": "conv2d", "name": "c",
                                             "filters": 10 ** 30, "kernel": 3}])),
        "absurd|digits|beyond|filters")
    put("from-bogus.json", j(plan([good[0], {"type": "add", "name": "a", "from": "nowhere"}])),
        "not an earlier layer")
    put("setup-bad.json", j(plan(good, setup={"batch_size": -5, "precision": "fp3"})),
        "batch|precision")
    put("setup-list.json", j(plan(good, setup=[1, 2])), "setup")
    put("setup-unknown.json", j(plan(good, setup={"warp": 9})), "unknown")
    put("name-list.json", j(dict(plan(good), name=[1])), "name")
    # names that would rewrite the terminal: valid plans, printed with the controls escaped
    for label, name in [("newline", "evil\nline two"), ("ansi", "\x1b[31mred\x1b[0m\x1b[2J"),
                        ("bidi", "abc\u202edcba"), ("nul", "a\x00b"), ("bell", "ding\x07"),
                        ("cr", "100%\rfake"), ("osc", "\x1b]0;pwned\x07title"),
                        ("long", "n" * 100_000)]:
        layers = [dict(good[0], name=name)] + good[1:]
        put(f"name-{label}.json", j(dict(plan(layers), name=name)),
            "longer than" if label == "long" else "")
        put(f"dupname-{label}.json", j(plan([good[0], dict(good[1], name=name),
                                             dict(good[1], name=name)])),
            "longer than" if label == "long" else "already used")
    many = [good[0]] + [{"type": "activation", "name": f"a{i}", "function": "relu"}
                        for i in range(20_000)]
    put("many-layers.json", j(plan(many)), "")
    return out


def write_plans(folder: Path) -> dict[str, tuple[Path, str]]:
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, (data, pattern) in plan_texts().items():
        p = folder / name
        p.write_bytes(data)
        out[name] = (p, pattern)
    big = folder / "huge-sparse.json"  # larger than the bound without using the disk
    with open(big, "wb") as f:
        f.truncate(65 * 1024 * 1024)
    out[big.name] = (big, "larger than")
    (folder / "a-folder.json").mkdir(exist_ok=True)
    out["a-folder.json"] = (folder / "a-folder.json", "folder")
    fifo = folder / "fifo.json"
    if hasattr(os, "mkfifo") and not fifo.exists():
        os.mkfifo(fifo)
    if fifo.exists():
        out[fifo.name] = (fifo, "pipe")
    zero = folder / "zero.json"
    if Path("/dev/zero").exists() and not zero.is_symlink():
        zero.symlink_to("/dev/zero")
        out[zero.name] = (zero, "device")
    dangling = folder / "dangling.json"
    if not dangling.is_symlink():
        dangling.symlink_to(folder / "nowhere.json")
    out[dangling.name] = (dangling, "no such file")
    return out


def _is_file(p: Path) -> bool:
    return p.is_file() and not p.is_symlink()


# -- the CLI cases -----------------------------------------------------------------------------

BAD_NUMBERS = ["inf", "-inf", "nan", "NaN", "1e300", "1e309", "-1", "-1e308", "", " ", "abc",
               "0x10", "1,5", "\x1b[2J"]


def cli_cases(root: Path) -> list[Case]:
    root = Path(root)
    plans = write_plans(root / "plans")
    cases: list[Case] = []

    def add(case_id: str, argv: list[str], rc: int, msg: str | None = None, **kw: Any) -> None:
        cases.append(Case(case_id, argv, rc, msg, **kw))

    est = ["estimate", "preset:seed-example"]
    # numbers from outside
    for flag, cmd, good in [("--memory", est, "8"),
                            ("--budget", ["advise", "--profile", "starting"], "500"),
                            ("--electricity", ["advise", "--profile", "starting"], "0.3"),
                            ("--hours", ["advise", "--profile", "starting"], "24"),
                            ("--cloud", ["advise", "--profile", "starting"], "2.5"),
                            ("--interval", ["monitor", "--demo", "--once"], "1"),
                            ("--duration", ["monitor", "--demo", "--once"], "1")]:
        for i, v in enumerate(BAD_NUMBERS):
            if flag == "--cloud" and v == "":
                continue
            add(f"num{flag}-{i}", cmd + [flag, v], USAGE, rf"argument {flag}|{flag}")
        add(f"num{flag}-good", cmd + [flag, good], OK)
    for flag, cmd in [("--hours", ["advise", "--profile", "starting"]),
                      ("--electricity", ["advise", "--profile", "starting"])]:
        add(f"num{flag}-25", cmd + [flag, "25" if flag == "--hours" else "1e6"], USAGE,
            rf"argument {flag}")
    add("num--memory-zero", est + ["--memory", "0"], USAGE, "argument --memory")
    for v in ["0", "-3", "1e3", "abc", "", "99999999999999999999999", "1048577"]:
        add(f"num--batch-{v or 'empty'}", est + ["--batch", v], USAGE, "batch")
    for v in ["0", "-1", "abc", "", "99999999999999999999999"]:
        add(f"num--gpus-{v or 'empty'}", est + ["--gpus", v], USAGE, "gpus|GPUs")
        add(f"num--nodes-{v or 'empty'}", est + ["--nodes", v], USAGE, "nodes|machines")
    # --input shapes: each dimension within the bound, the product beyond it
    for i, shape in enumerate(["16777216x16777216x16777216", "16777216x16777216x3",
                               "4194304x4194304x4194304", "16777217x1x1", "0x3x3", "-1x3x3",
                               "3x", "x", "3xNaNx3", "3x1e400x3", "3xinfx3", "3x2.5x3",
                               "3,,3", "３x３", "3x224x224x224x224x224x224x224", " ", "\n",
                               "3x\x1b[2Jx3", "1" * 5000]):
        add(f"input-{i}", est + ["--input", shape], USAGE, "input|beyond|shape|kernel")
    add("input-good", est + ["--input", "3x64x64"], OK)
    add("input-big-ok", ["estimate", "preset:alexnet", "--input", "3x4096x4096", "--batch",
                         "1048576", "--json"], OK)
    # empty and hostile texts
    for argv, flag in [(["estimate", ""], "source"), (["estimate", " "], "source"),
                       (["fit", "preset:seed-example", "--reference", ""], "--reference"),
                       (["fit", "preset:seed-example", "--as-of", ""], "--as-of"),
                       (["fit", "preset:seed-example", "--as-of", "2026-13"], "--as-of"),
                       (["fit", "preset:seed-example", "--as-of", "\x1b[2J"], "--as-of"),
                       (["fit", "preset:seed-example", "--reference", "\x1b[2Jx"], "card"),
                       (["advise", "--profile", ""], "--profile"),
                       (["advise", "--profile", "\x1b[31mnope"], "profile"),
                       (["advise", "--profile", "starting", "--plan", ""], "--plan"),
                       (["advise", "--profile", "starting", "--owned", ""], "--owned"),
                       (["advise", "--profile", "starting", "--as-of", ""], "--as-of"),
                       (["monitor", "--demo", "--once", "--record", ""], "--record"),
                       (["monitor", "--prometheus", ""], "--prometheus"),
                       (["monitor", "--prometheus", "http://127.0.0.1:9", "--token-file", ""],
                        "--token-file"),
                       (["monitor", "--prometheus", "http://127.0.0.1:9", "--token-env", ""],
                        "--token-env"),
                       (["monitor", "--prometheus", "http://127.0.0.1:9", "--ca-file", ""],
                        "--ca-file"),
                       (["monitor", "--prometheus", "http://127.0.0.1:9", "--match", ""],
                        "--match"),
                       (["monitor", "--prometheus", "http://127.0.0.1:9", "--match", "}"],
                        "--match"),
                       (["monitor", "--demo", "--match", "a=\"b\""], "--match"),
                       (["monitor", "--prometheus", "ftp://x"], "URL"),
                       (["monitor", "--prometheus", "\x1b[2J"], "URL"),
                       (["estimate", "preset:\x1b[2Jnope"], "preset|no such"),
                       (["catalog", "--as-of", ""], "as-of"),
                       (["catalog", "--as-of", "2026-13"], "as-of"),
                       (["catalog", "--architecture", ""], "architecture"),
                       (["catalog", "--architecture", "\x1b[2J"], "architecture"),
                       (["catalog", "--segment", "\x00"], "segment")]:
        add(f"text-{len(cases)}", argv, USAGE, flag.lstrip("-") if flag != "source" else None)
    # plan files, through estimate, --json and advise --plan
    for name, (path, pattern) in sorted(plans.items()):
        intact = [str(path)] if _is_file(path) else []
        rc = OK if not pattern else USAGE
        add(f"plan-{name}", ["estimate", str(path)], rc, pattern or None, intact=intact)
        add(f"plan-json-{name}", ["estimate", str(path), "--json"], rc, pattern or None,
            intact=intact)
        if name in ("good.json", "deep-100000.json", "fifo.json", "zero.json",
                    "huge-sparse.json", "digits-version.json", "shape-2e62.json",
                    "shape-int64-wrap.json", "name-ansi.json", "fc-overflow.json"):
            add(f"plan-advise-{name}", ["advise", "--profile", "starting", "--plan", str(path)],
                rc, pattern or None, intact=intact)
            add(f"plan-fit-{name}", ["fit", str(path), "--json"], rc, pattern or None,
                intact=intact)
    # token and CA files
    tok = root / "token"
    tok.mkdir(exist_ok=True)
    (tok / "empty").write_bytes(b"")
    (tok / "spaces").write_text("two tokens\n", encoding="utf-8")
    (tok / "binary").write_bytes(b"\xff\xfe\x00\x01" * 10)
    with open(tok / "huge", "wb") as f:
        f.truncate(200 * 1024 * 1024)
    (tok / "garbage.pem").write_bytes(b"not a certificate\n" * 10)
    (tok / "binary.pem").write_bytes(bytes(range(256)))
    (tok / "good").write_text("s3cret-token\n", encoding="utf-8")
    fifo = tok / "fifo"
    if hasattr(os, "mkfifo") and not fifo.exists():
        os.mkfifo(fifo)
    prom = ["monitor", "--prometheus", "http://127.0.0.1:9", "--once"]
    for name, pattern in [("empty", "empty"), ("spaces", "more than one"),
                          ("binary", "UTF-8|token"), ("huge", "larger than"),
                          ("fifo", "pipe"), ("missing", "No such file|cannot read")]:
        add(f"token-{name}", prom + ["--token-file", str(tok / name)], USAGE, pattern,
            intact=[str(tok / name)] if _is_file(tok / name) else [])
    add("token-dev-zero", prom + ["--token-file", "/dev/zero"], USAGE, "device")
    add("token-folder", prom + ["--token-file", str(tok)], USAGE, "folder")
    for name in ("garbage.pem", "binary.pem", "huge", "fifo", "empty"):
        add(f"ca-{name}", ["monitor", "--prometheus", "https://127.0.0.1:9", "--once",
                           "--ca-file", str(tok / name)], USAGE, "CA file")
    add("ca-dev-zero", ["monitor", "--prometheus", "https://127.0.0.1:9", "--once",
                        "--ca-file", "/dev/zero"], USAGE, "CA file")
    add("token-env-unset", prom + ["--token-env", "PLANNER_HOSTILE_UNSET"], USAGE,
        "not set")
    # recordings given to --record
    rec = root / "rec"
    rec.mkdir(exist_ok=True)
    (rec / "text.sqlite").write_text("hello", encoding="utf-8")
    (rec / "folder.sqlite").mkdir(exist_ok=True)
    for name, pattern in [("text.sqlite", "not a readable|not SQLite|recording"),
                          ("folder.sqlite", "folder|recording|directory")]:
        add(f"record-{name}", ["monitor", "--demo", "--once", "--record", str(rec / name)],
            USAGE, pattern, intact=[str(rec / name)] if _is_file(rec / name) else [])
    return cases


def subprocess_cases(root: Path) -> list[Case]:
    """Cases that need their own interpreter: the terminal's encoding, PLANNER_HOME, the real
    exit path of ``python -m planner``."""
    root = Path(root)
    plans = write_plans(root / "plans")
    cases: list[Case] = []
    ascii_env = {"PYTHONIOENCODING": "ascii"}
    for preset in ("seed-example", "resnet50", "lstm-128", "video"):
        cases.append(Case(f"ascii-estimate-{preset}", ["estimate", f"preset:{preset}"], OK,
                          env=ascii_env, subprocess=True))
    for argv in (["fit", "preset:seed-example"], ["advise", "--profile", "starting"],
                 ["profiles"], ["presets"], ["catalog"],
                 ["estimate", str(plans["name-bidi.json"][0])],
                 ["monitor", "--demo", "--once"]):
        cases.append(Case(f"ascii-{argv[0]}-{len(cases)}", argv, OK, env=ascii_env,
                          subprocess=True))
    cases.append(Case("ascii-error", ["estimate", "preset:seed-example", "--input", "３x３"],
                      USAGE, "input", env=ascii_env, subprocess=True))
    home_file = root / "home-is-a-file"
    home_file.write_text("not a folder", encoding="utf-8")
    for argv in (["fit", "preset:seed-example"], ["catalog"], ["advise", "--profile", "starting"],
                 ["estimate", "preset:seed-example"], ["monitor", "--demo", "--once"]):
        for label, home in (("file", home_file), ("under-file", home_file / "sub")):
            cases.append(Case(f"home-{label}-{argv[0]}", argv, OK, env={"PLANNER_HOME": str(home)},
                              subprocess=True, intact=[str(home_file)]))
    cases.append(Case("home-file-record", ["monitor", "--demo", "--once", "--record",
                                           str(home_file / "x.sqlite")], USAGE, "record",
                      env={"PLANNER_HOME": str(home_file)}, subprocess=True))
    for name in ("deep-100000.json", "huge-sparse.json", "zero.json", "fifo.json",
                 "digits-shape.json", "shape-int64-wrap.json", "name-ansi.json",
                 "many-layers.json"):
        if name in plans:
            path, pattern = plans[name]
            cases.append(Case(f"sub-plan-{name}", ["estimate", str(path)],
                              OK if not pattern else USAGE, pattern or None, subprocess=True,
                              intact=[str(path)] if _is_file(path) else []))
    for v in ("inf", "1e300", "nan"):
        cases.append(Case(f"sub-memory-{v}", ["estimate", "preset:resnet50", "--memory", v],
                          USAGE, "memory", subprocess=True))
    cases.append(Case("sub-electricity-nan-json", ["advise", "--profile", "starting",
                                                   "--electricity", "nan", "--json"],
                      USAGE, "electricity", subprocess=True))
    return cases


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: corpus.py OUTDIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    n = len(cli_cases(out)) + len(subprocess_cases(out))
    print(f"{n} CLI cases written under {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


# -- JSON documents for the settings and overrides files ---------------------------------------

def hostile_json_files() -> dict[str, bytes]:
    """Damaged or hostile contents for any of the app's JSON files (settings, overrides)."""
    digits = "9" * 5000
    return {
        "empty": b"",
        "not-json": b"this is not json",
        "truncated": b'{"units": "binary", "theme": ',
        "binary": bytes(range(256)) * 8,
        "utf16": json.dumps({"units": "binary"}).encode("utf-16"),
        "nul": b"\x00" * 64,
        "array": b"[1, 2, 3]",
        "string": b'"settings"',
        "null": b"null",
        "deep-100000": deep(100_000).encode(),
        "deep-object": ('{"a":' * 5000 + "1" + "}" * 5000).encode(),
        "deep-in-field": ('{"units":' + deep(3000) + "}").encode(),
        "digits": ('{"default_batch":' + digits + "}").encode(),
        "digits-neg": ('{"memory_alert_pct":-' + digits + "}").encode(),
        "digits-key": ('{"prices":{"a":[{"usd":' + digits + "}]}}").encode(),
        "nan": b'{"sampling_interval_s": NaN, "currency_rate": NaN}',
        "inf": b'{"sampling_interval_s": Infinity, "electricity_usd_per_kwh": -Infinity}',
        "huge-float": b'{"default_batch": 1e308, "currency_rate": 1e308}',
        "wrong-types": json.dumps({"units": 1, "theme": [], "language": {}, "default_batch": "x",
                                   "memory_alert_pct": True, "first_run_done": "yes",
                                   "prices": "none", "custom_cards": {}, "owned": 3}).encode(),
        "controls": json.dumps({"currency_symbol": "\x1b[2J", "currency": "\x1b[31m",
                                "owned": [{"name": "\x1b]0;pwned\x07", "count": 1}]}).encode(),
        "long-strings": json.dumps({"currency_symbol": "$" * 100_000,
                                    "owned": [{"name": "n" * 100_000}]}).encode(),
        "negative": json.dumps({"recording_retention_days": -5, "default_batch": -1,
                                "owned": [{"name": "GeForce RTX 4090", "count": -3}]}).encode(),
        "many-keys": json.dumps({f"k{i}": i for i in range(100_000)}).encode(),
    }


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    key, n, varint = (number << 3) | 2, len(payload), b""
    while True:
        byte, n = n & 0x7F, n >> 7
        varint += bytes([byte | (0x80 if n else 0)])
        if not n:
            return bytes([key]) + varint + payload


# -- ONNX files --------------------------------------------------------------------------------

def onnx_files(folder: Path) -> dict[str, tuple[Path, int, str | None, str | None]]:
    """name → (file, exit status, pattern of the error, xfail reason). Built with onnx.helper;
    the slow-importer cases are the ones the issue measured (20,000 same-named nodes, 4,000
    Identity-fed constants, 20 MB of empty nodes)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, tuple[Path, int, str | None, str | None]] = {}

    def model(nodes, inputs, outputs, inits=(), name="hostile", opset=17, ir=8):
        g = helper.make_graph(list(nodes), name, list(inputs), list(outputs),
                              initializer=list(inits))
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = ir
        return m

    def vi(name, dims):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)

    def save(name, m, rc=OK, pattern=None, xfail=None):
        p = folder / name
        p.write_bytes(m.SerializeToString() if not isinstance(m, bytes) else m)
        out[name] = (p, rc, pattern, xfail)

    relu = model([helper.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", ["N", 16])],
                 [vi("y", ["N", 16])])
    save("good.onnx", relu)
    save("empty.onnx", b"", USAGE, "onnx|model|empty|parse")
    save("garbage.onnx", b"this is not a protobuf \x00\xff" * 50, USAGE, None)
    save("truncated.onnx", relu.SerializeToString()[:-9], USAGE, None)
    save("zeros.onnx", b"\x00" * 10_000, USAGE, None)
    n = 20_000
    same = model([helper.make_node("Relu", [f"t{i}"], [f"t{i + 1}"], name="same")
                  for i in range(n)], [vi("t0", ["N", 8])], [vi(f"t{n}", ["N", 8])])
    save("same-names-20000.onnx", same, OK, None, None)
    k = 4000
    nodes, inits = [], []
    for i in range(k):
        inits.append(numpy_helper.from_array(np.full((8,), 0.5, np.float32), f"c{i}"))
        nodes.append(helper.make_node("Identity", [f"c{i}"], [f"ci{i}"], name=f"id{i}"))
        nodes.append(helper.make_node("Add", [f"a{i}", f"ci{i}"], [f"a{i + 1}"], name=f"add{i}"))
    save("identity-constants-4000.onnx",
         model(nodes, [vi("a0", ["N", 8])], [vi(f"a{k}", ["N", 8])], inits), OK, None, None)
    base = model([helper.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", ["N", 16])],
                 [vi("y", ["N", 16])])
    # the graph (ModelProto field 7) with 20 MB of empty node entries (GraphProto field 1)
    graph = base.graph.SerializeToString() + b"\x0a\x00" * (10 * 1024 * 1024)
    head = onnx.ModelProto()
    head.CopyFrom(base)
    head.ClearField("graph")
    # 20 MB of empty nodes is over the importer's bound on nodes: refused with one line
    save("empty-nodes-20mb.onnx", head.SerializeToString() + _field(7, graph), USAGE,
         "too large to plan", None)
    save("huge-dims.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                                 [vi("x", [1 << 24, 1 << 24, 1 << 24])],
                                 [vi("y", [1 << 24, 1 << 24, 1 << 24])]),
         USAGE, "beyond|large|absurd|dimension|batch")
    save("negative-dims.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                                     [vi("x", ["N", -16])], [vi("y", ["N", -16])]),
         USAGE, None)
    save("zero-dims.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                                 [vi("x", ["N", 0])], [vi("y", ["N", 0])]), USAGE, None)
    save("ansi-names.onnx", model([helper.make_node("Relu", ["x"], ["y"],
                                                    name="\x1b[31mevil\nnode\x1b[2J")],
                                  [vi("x", ["N", 16])], [vi("y", ["N", 16])],
                                  name="\x1b]0;pwned\x07graph"), OK, None)
    save("opset-999.onnx", model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                                 [vi("x", ["N", 16])], [vi("y", ["N", 16])], opset=999),
         None, None)  # type: ignore[arg-type]  # either answer is fine, one line
    save("unknown-op.onnx", model([helper.make_node("Frobnicate", ["x"], ["y"], name="f")],
                                  [vi("x", ["N", 16])], [vi("y", ["N", 16])]), None, None)
    save("no-nodes.onnx", model([], [vi("x", ["N", 16])], [vi("x", ["N", 16])]), None, None)
    d = folder / "folder.onnx"
    d.mkdir(exist_ok=True)
    out[d.name] = (d, USAGE, "folder", None)
    if hasattr(os, "mkfifo"):
        f = folder / "fifo.onnx"
        if not f.exists():
            os.mkfifo(f)
        out[f.name] = (f, USAGE, "pipe", None)
    if Path("/dev/zero").exists():
        z = folder / "zero.onnx"
        if not z.is_symlink():
            z.symlink_to("/dev/zero")
        out[z.name] = (z, USAGE, "device", None)
    big = folder / "huge-sparse.onnx"
    with open(big, "wb") as fh:
        fh.truncate(3 * 1024 * 1024 * 1024)
    out[big.name] = (big, USAGE, "larger than", None)
    return out
