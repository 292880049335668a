"""The recorded agent searches through the real PreToolUse hook: decision rates and latency per hook call.

    python3 benchmarks/hook_payloads.py [--rounds 3] [--shim auto|pyenv-like|none]

Runs every search of tests/fixtures/hooks/agent_searches.json (doc-answerable, code-only, not a
search) against an index of the fixture repository tests/fixtures/hooks/tree/, each as a real
process with hooks.json's command line (`sh hooks/launch.sh suggest.py`) and the payload on stdin,
with a version-manager shim first on PATH: this machine's own pyenv shim when `python3` on PATH is
one (`auto`), else a pyenv-like shim (tests/fixtures/hooks/pyenv_like.py). Each call gets its own
session, warmed as SessionStart leaves it (the index location cached).

Prints the rates the tests assert (fires on doc-answerable, right file in the first three, false
hints on code-only and non-searches, blocked calls), then p50/p95 wall ms per hook call over all
calls, the CPU ms per call (less inflated by other load), and for comparison: the bare interpreter
start, and the same hook run the old way (`python3 -I -S suggest.py`, through the shim).
Targets: p50 <= 40 ms, p95 <= 60 ms.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "hooks"))

from hookrun import hook_command  # noqa: E402
from payload_set import load_searches, make_tree_project, rates, run_entry, warm_sessions  # noqa: E402
from pyenv_like import make_shim  # noqa: E402

from scree.hookkit import interp  # noqa: E402


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def child_cpu_ms() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r.ru_utime + r.ru_stime) * 1000


def start_ms(cmd: list[str], env: dict, n: int = 20) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True, stdin=subprocess.DEVNULL, check=False)
        times.append((time.perf_counter() - t) * 1000)
    return pct(times, 0.5)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="times to run the whole set (latency samples)")
    ap.add_argument("--shim", choices=["auto", "pyenv-like", "none"], default="auto")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="scree-hook-payloads-"))
    try:
        # The first python3 on PATH that is a shim (`uv run` puts its venv in front of a pyenv shim).
        found = [shutil.which("python3", path=d) for d in os.environ.get("PATH", "").split(os.pathsep) if d]
        shims = [f for f in found if f and interp.shim_kind(f)]
        system_python3 = shims[0] if shims else shutil.which("python3")
        real = interp.real_executable(system_python3) if system_python3 else sys.executable
        real = real or sys.executable
        if args.shim == "auto" and system_python3 and interp.shim_kind(system_python3):
            shim_dir = str(Path(system_python3).parent)
            shim_name = f"this machine's {interp.shim_kind(system_python3)} shim ({system_python3})"
        elif args.shim == "none":
            shim_dir, shim_name = str(Path(real).parent), f"no shim ({real})"
        else:
            shim_dir = str(make_shim(tmp / ".pyenv", real))
            shim_name = f"a pyenv-like shim ({shim_dir}/python3)"
        path = os.pathsep.join([shim_dir, "/usr/local/bin", "/usr/bin", "/bin"])
        project = make_tree_project(tmp / "p", path=path)
        env = project.env
        cmd = hook_command("suggest.py")
        searches = load_searches()
        print(f"payload set: {len(searches)} searches; python3 on PATH: {shim_name}")
        print(f"hook: {' '.join(cmd)}")
        print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")

        # The first hook call resolves python3 through the shim and caches the real interpreter.
        t = time.perf_counter()
        warm_sessions(cmd, project, [])
        first = (time.perf_counter() - t) * 1000
        cached = (project.plugin_data / interp.CACHE_NAME).read_text().strip()

        outcomes = []
        wall: list[float] = []
        cpu: list[float] = []
        for r in range(args.rounds):
            sessions = [f"r{r}-{i}" for i in range(len(searches))]
            warm_sessions(cmd, project, sessions)
            for entry, session in zip(searches, sessions):
                c = child_cpu_ms()
                o = run_entry(cmd, entry, project, session)
                cpu.append(child_cpu_ms() - c)
                wall.append(o.ms)
                if r == 0:
                    outcomes.append(o)
        rr = rates(outcomes, project.folder)
        print("\nrates (tests/test_hook_payload_set.py asserts them):")
        print(f"  doc-answerable: {rr['doc']:3.0f}  fires {rr['doc_fires']:6.1%}  right file in first 3 "
              f"{rr['doc_right_file_top3']:6.1%}   (targets >= 95%, >= 95%)")
        print(f"  code-only:      {rr['code']:3.0f}  false hints {rr['code_false_hints']:6.1%}            (target <= 5%)")
        print(f"  not a search:   {rr['other']:3.0f}  false hints {rr['other_false_hints']:6.1%}            (target 0)")
        print(f"  blocked or failed calls: {rr['blocked']}")
        hinted = [o.ms for o in outcomes if o.hint]
        print(f"\nlatency per PreToolUse call, {len(wall)} calls ({args.rounds} rounds):")
        print(f"  all calls         p50 {pct(wall, .5):6.1f} ms   p95 {pct(wall, .95):6.1f} ms   "
              f"cpu p50 {pct(cpu, .5):5.1f} ms   (targets p50 <= 40, p95 <= 60)")
        print(f"  hinted (round 1)  p50 {pct(hinted, .5):6.1f} ms   p95 {pct(hinted, .95):6.1f} ms")
        print(f"  first call ever (resolves python3 through the shim, caches {cached}): {first:.0f} ms")
        base = start_ms([real, "-I", "-S", "-c", "pass"], env)
        via_shim = start_ms(["python3", "-I", "-S", "-c", "pass"], env)
        old = []
        for i, entry in enumerate(searches[:30]):
            warm_sessions(cmd, project, [f"old-{i}"])
            old.append(run_entry(["python3", "-I", "-S", str(ROOT / "hooks" / "suggest.py")], entry, project,
                                 f"old-{i}").ms)
        # The launcher's own cost: the same calls with and without it, interleaved so load drift cancels.
        direct_cmd = [cached, "-I", "-S", str(ROOT / "hooks" / "suggest.py")]
        via, direct = [], []
        for i, entry in enumerate(searches[:60]):
            warm_sessions(cmd, project, [f"via-{i}", f"direct-{i}"])
            via.append(run_entry(cmd, entry, project, f"via-{i}").ms)
            direct.append(run_entry(direct_cmd, entry, project, f"direct-{i}").ms)
        print(f"  launcher cost: p50 {pct(via, .5):.1f} ms via `sh launch.sh` vs {pct(direct, .5):.1f} ms running "
              f"{cached} directly (60 calls each, interleaved)")
        print(f"\nfor comparison: `{real} -I -S -c pass` p50 {base:.1f} ms; through `python3` on PATH {via_shim:.1f} ms;")
        print(f"  the hook as `python3 -I -S hooks/suggest.py` (no launcher) p50 {pct(old, .5):.1f} ms")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
