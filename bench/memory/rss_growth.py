#!/usr/bin/env python3
"""Memory growth of a long run: runs `commlab-cli run` on a small scenario under a pseudo-terminal
(so the progress bar reports each percent), samples VmRSS from /proc/PID/status at every new percent,
and prints RSS at chosen iteration counts plus the bytes per iteration between them.

usage: bench/memory/rss_growth.py --cli BUILD/app/commlab-cli [--iterations 100000]
                                  [--scenario bench/memory/tiny_mlp.json] [--json OUT.json]
Not part of CI (100,000 iterations take minutes)."""
import argparse, json, os, pty, re, select, sys, tempfile, time

def vm(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--iterations", type=int, default=100000)
    ap.add_argument("--scenario", default=os.path.join(here, "tiny_mlp.json"))
    ap.add_argument("--json")
    a = ap.parse_args()
    out = tempfile.mkdtemp(prefix="commlab-rss-")
    argv = [a.cli, "run", a.scenario, "--out", out, "--threads", "1",
            "--set", f"training.iterations={a.iterations}"]
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(a.cli, argv)
    start, buf, samples, last, peak = time.time(), b"", [], -1, 0
    while True:
        r, _, _ = select.select([fd], [], [], 0.5)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            buf = (buf + chunk)[-4096:]
            for m in re.finditer(rb"\]\s+(\d+)%", buf):
                pct = int(m.group(1))
                if pct > last:
                    last = pct
                    rss = vm(pid, "VmRSS")
                    if rss:
                        samples.append({"percent": pct, "iteration": a.iterations * pct // 100,
                                        "rss_bytes": rss, "seconds": round(time.time() - start, 2)})
            buf = buf[-64:]
        hwm = vm(pid, "VmHWM")
        if hwm:
            peak = hwm
    _, status = os.waitpid(pid, 0)
    print(f"exit status {status >> 8}, {time.time() - start:.1f} s, peak RSS {peak / 2**20:.1f} MiB")
    by_it = {s["iteration"]: s for s in samples}
    marks = [m for m in (1000, 10000, 50000, 100000) if m <= a.iterations]
    prev = None
    for m in marks:
        s = min(samples, key=lambda s: abs(s["iteration"] - m))
        line = f"iteration {s['iteration']:>7}: RSS {s['rss_bytes'] / 2**20:8.2f} MiB"
        if prev:
            per = (s["rss_bytes"] - prev["rss_bytes"]) / max(1, s["iteration"] - prev["iteration"])
            line += f"  ({per:+.0f} bytes/iteration since {prev['iteration']})"
        print(line)
        prev = s
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"argv": argv, "samples": samples, "peak_rss_bytes": peak}, f, indent=1)
    return status >> 8

if __name__ == "__main__":
    sys.exit(main())
