#!/bin/bash
# Two builds of hone alternated three times on the 192-configuration vector_add space at 2^16,
# warm compile cache: wall, statuses, samples, and each build's run-to-run agreement of medians
# (RESULTS section 13: the stopping rule's trimmed mean, a5cc36c against e128414).
#   HONE_NEW=.../bin/hone HONE_OLD=.../bin/hone bash bench/ab_2p16.sh   (on the GPU machine)
NEW=${HONE_NEW:-$PWD/.carry/prefix/bin/hone}
OLD=${HONE_OLD:-$PWD/.carry/prefix_prev/bin/hone}
C=$(mktemp -d); W=$(mktemp -d)
$NEW tune configs/vector_add_192.yaml --set N=65536 --dry-run --cache-dir $C -q >/dev/null 2>&1
for r in 1 2 3; do
  for b in old new; do
    H=$OLD; [ $b = new ] && H=$NEW
    t0=$(date +%s.%N)
    $H tune configs/vector_add_192.yaml --set N=65536 --cache-dir $C -o $W/$b$r.db --fresh -q --json > $W/$b$r.json 2>$W/$b$r.err
    t1=$(date +%s.%N)
    echo "$b $r $(python3 -c "print(round($t1-$t0,2))")" >> $W/walls
  done
done
python3 - $W <<'PY'
import json, sys, statistics as st, collections
w = sys.argv[1]
walls = collections.defaultdict(list)
for line in open(f"{w}/walls"):
    b, r, t = line.split(); walls[b].append(float(t))
def load(b, r):
    x = json.load(open(f"{w}/{b}{r}.json")); x = x[0] if isinstance(x, list) else x
    return {y["key"]: y for y in x["results"] if y.get("timing")}
for b in ("old", "new"):
    runs = [load(b, r) for r in (1, 2, 3)]
    nc = [sum(1 for y in run.values() if y["status"] == "not_converged") for run in runs]
    n = [sum(y["timing"]["n"] for y in run.values()) for run in runs]
    ratios = []
    for a, c in ((runs[0], runs[1]), (runs[1], runs[2])):
        for k in a:
            if k in c: ratios.append(c[k]["timing"]["median_us"] / a[k]["timing"]["median_us"])
    ratios.sort()
    q = lambda p: ratios[int(p * (len(ratios) - 1))]
    within = sum(1 for x in ratios if abs(x - 1) <= 0.02) / len(ratios)
    print(f"{b}: wall {walls[b]} s; not_converged {nc} of {len(runs[0])}; samples {n}; run-to-run median ratio {st.median(ratios):.4f}, 5-95% {q(0.05):.4f}-{q(0.95):.4f}, within 2%: {100*within:.0f}%")
PY
